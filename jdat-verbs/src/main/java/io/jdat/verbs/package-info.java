/**
 * The {@code verbs} provider: DAT on RDMA hardware through rdma-core, called with
 * {@code java.lang.foreign}.
 *
 * <p>Bindings: {@link io.jdat.verbs.Ibv} (libibverbs, with the inline verbs {@code poll_cq},
 * {@code req_notify_cq}, {@code post_send} and {@code post_recv} bound from each device
 * context's ops table), {@link io.jdat.verbs.RdmaCm} (librdmacm) and {@code Sockaddr}; each
 * draws the struct layouts it uses. Discovery: {@code Devices}. One class per DAT object:
 * {@code VerbsIa} (device and rdma_cm event thread), {@code VerbsPz} ({@code ibv_pd}),
 * {@code VerbsLmr} ({@code ibv_mr}), {@code VerbsEvd} (CQ and completion channel, or a software
 * queue), {@code VerbsEp} (RC QP on an {@code rdma_cm_id}), {@code VerbsPsp}
 * ({@code rdma_listen}), {@code VerbsCr} (a CONNECT_REQUEST). docs/dat-mapping.md lists what is
 * mapped and what returns which error.
 */
package io.jdat.verbs;

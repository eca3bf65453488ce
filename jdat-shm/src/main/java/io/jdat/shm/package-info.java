/**
 * The {@code shm} transport: DAT between processes of one host through shared memory.
 *
 * <p><b>Rendezvous.</b> The IA address is a host-local name; it names a directory under the
 * provider's root ({@code ShmDirectory}). A listening connection qualifier is a file
 * {@code l-QUAL} there ({@code ListenerFile}) with a small array of slots. To connect,
 * a process creates a connection file {@code c-PID-SEQ} ({@code ConnectionFile}) with
 * its request and private data, puts the file's id into a free slot and rings the listener's
 * doorbell. The listener's I/O thread picks it up and hands it to the engine as a connection
 * request; accepting or rejecting is a compare-and-set of the file's state, which the active side
 * confirms (or cancels). Files of processes that died are recognised by process id and start time
 * and removed, never trusted.
 *
 * <p><b>Data path.</b> The connection file holds one single-producer single-consumer ring per
 * direction ({@code SpscRing}) of records that carry the RDMA messages in order
 * ({@code Frame}): Send, Send with Solicited Event, RDMA Write, Read Request, Read
 * Response, Terminate, and a graceful close. The engine validates and places every incoming
 * segment; the channel checks the framing first, reads each header field once, and breaks the
 * connection when the peer writes something impossible. A message counts as sent when the peer
 * has consumed its last record, which it does only after its engine placed it, except a Send of
 * one record (at most {@code max_chunk} bytes, one gather piece) under {@code complete_written=true}
 * (the default): the posting thread writes it into the ring when nothing of its connection waits
 * to be written, else a progress round does; either way its DTO then completes as soon as the
 * record is published, in post order: the local buffer may be reused (as on tcp), and an abrupt
 * close no longer takes the record back, so a peer that goes on reading receives it.
 *
 * <p><b>Shared memory.</b> {@code ShmMemory} is memory of a file under the provider's directory,
 * which a consumer registers as {@code DAT_MEM_TYPE_SHARED_VIRTUAL} (with the cookie that names it;
 * other memory is refused with {@code DAT_INVALID_STATE}). An RDMA Write or Read Response of at
 * least {@code direct_min} bytes whose data lies in such memory is sent as a reference to it (a
 * direct record: the file and the range) instead of through the ring; the receiving side maps the
 * file read only and hands the range to its engine, which validates the STag, PZ, rights and
 * bounds of the target and places the bytes as for any other segment: one copy instead of two,
 * with the check where it always is. The reference is taken from the data's source, never into
 * the target: placing into a peer's shared memory would mean that process writing memory of
 * another one whose engine cannot bound the writes (a mapping cannot be limited to the range one
 * Write was granted, nor revoked when the LMR is freed), so a Write into shared memory out of
 * ordinary memory streams through the ring like any other.
 *
 * <p><b>Progress and waiting.</b> One thread per IA instance ({@code jdat-shm-IA-N-io}) moves
 * every connection of the instance and waits with a spin, yield, park backoff
 * ({@code Backoff}); posting threads and consumers polling an EVD move it inline
 * when the thread is not busy. While a consumer polls, the I/O thread steps aside (parks) rather
 * than spin beside it; it takes over again when the consumer parks in {@code dat_evd_wait} or has
 * not polled for {@code poll_grace_ns} (a time that doubles while polls go on, up to
 * {@code poll_aside_max_ns}, so that the I/O thread seldom takes a core from a polling thread).
 * A consumer whose {@code dat_evd_wait} spin ended does not park either: it goes on moving the
 * rings in the same backoff ({@code ShmPort.awaitProgress}), so that the answer of a peer process
 * finds it runnable, not through the I/O thread's wake-up. Where either thread's backoff would
 * park, it sleeps on futex words of its rings instead ({@code Futex}, {@code futex=true}, Linux
 * with native access): the peer wakes it when it publishes or consumes a record and the ring's
 * "sleeps" word asks for it, with no fence on the peer's side, so a wake-up lost to that race
 * costs one sleep, never longer than the park it replaces ({@code idle_park_max_ns}).
 *
 * <p><b>Peer death.</b> Each side watches the other's process (id and start time, zombies count
 * as dead; the I/O thread reads {@code /proc} every {@code liveness_ms}, never a polling consumer)
 * and its "gone" word in the file; a peer that dies or goes breaks the connection after
 * what it wrote before is delivered, so the engine flushes the endpoint's work and no waiter
 * hangs. A peer that aborts first withdraws what this side has not begun to deliver
 * ({@code SpscRing}) beyond the last record of a Send it reported complete once written: it
 * reported the rest flushed, so it is not delivered, and everything before that record is.
 * Connection files are
 * unlinked as soon as the connection is set up, so the kernel frees their memory when the last
 * process unmaps them, even after a crash.
 */
package io.jdat.shm;

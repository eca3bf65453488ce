package io.jdat.conformance;

import static io.jdat.conformance.Connecting.assertEmpty;
import static io.jdat.conformance.Connecting.connection;
import static io.jdat.conformance.Connecting.request;
import static io.jdat.conformance.Connecting.state;
import static io.jdat.conformance.Fixture.SECOND;
import static io.jdat.conformance.Fixture.expect;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.AsyncErrorReason;
import io.jdat.CloseFlags;
import io.jdat.CompletionFlags;
import io.jdat.ConnectFlags;
import io.jdat.ConnectionRequest;
import io.jdat.CrParam;
import io.jdat.Dat;
import io.jdat.DatCount;
import io.jdat.DatEvent;
import io.jdat.DatException;
import io.jdat.DatReturnSubtype;
import io.jdat.DatReturnType;
import io.jdat.DatStatus;
import io.jdat.DtoStatus;
import io.jdat.Endpoint;
import io.jdat.EpAttr;
import io.jdat.EpParam;
import io.jdat.EpState;
import io.jdat.EpStatus;
import io.jdat.EventDispatcher;
import io.jdat.EventNumber;
import io.jdat.EvdFlags;
import io.jdat.IaAddress;
import io.jdat.Lmr;
import io.jdat.LmrTriplet;
import io.jdat.MemPriv;
import io.jdat.ProtectionZone;
import io.jdat.PspFlags;
import io.jdat.PublicServicePoint;
import io.jdat.Qos;
import io.jdat.ReservedServicePoint;
import io.jdat.RmrTriplet;
import io.jdat.SharedReceiveQueue;
import io.jdat.SrqAttr;
import io.jdat.spi.DatArg;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The sixteen endpoint calls of uDAPL 1.2 (digest §2.8, §3, §5.1, traps T-9, T-15, T-17, T-19,
 * T-25, T-30, T-31): {@code dat_ep_create}, {@code dat_ep_create_with_srq}, {@code dat_ep_connect},
 * {@code dat_ep_dup_connect}, {@code dat_ep_disconnect}, {@code dat_ep_free},
 * {@code dat_ep_get_status}, {@code dat_ep_modify}, {@code dat_ep_post_rdma_read},
 * {@code dat_ep_post_rdma_write}, {@code dat_ep_post_recv}, {@code dat_ep_post_send},
 * {@code dat_ep_query}, {@code dat_ep_recv_query}, {@code dat_ep_reset} and
 * {@code dat_ep_set_watermark}. One test per documented return code, named
 * {@code function_code_condition}; the completion statuses of failed DTOs
 * ({@code DAT_DTO_ERR_LOCAL_LENGTH}, {@code _LOCAL_PROTECTION}, {@code _REMOTE_ACCESS},
 * {@code _RECEIVER_NOT_READY}, {@code _FLUSHED}); suppressed, unsignalled and solicited
 * completions. The seed man page's rules for {@code dat_ep_create} are in {@link SeedEpCreateTest}.
 *
 * <p>Codes that cannot arise here:
 * <ul>
 *   <li>{@code DAT_INVALID_HANDLE} for a handle of another object type (every function): Java's
 *       types refuse it at compile time. Freed endpoints, PZs, EVDs and SRQs, handles of another
 *       IA, closed IAs and {@code null} where a handle is required are the cases that remain.</li>
 *   <li>{@code DAT_INVALID_PARAMETER} for a NULL {@code ep_handle} OUT pointer
 *       ({@code dat_ep_create}, {@code dat_ep_create_with_srq}): the new endpoint is the return
 *       value.</li>
 *   <li>{@code DAT_INVALID_PARAMETER} for a {@code private_data_size} that does not match
 *       {@code private_data} ({@code dat_ep_connect}, {@code dat_ep_dup_connect}): a Java
 *       {@code byte[]} carries its length, so only too much private data is a bad parameter.</li>
 *   <li>{@code DAT_INSUFFICIENT_RESOURCES} ({@code dat_ep_connect}, {@code dat_ep_dup_connect},
 *       {@code dat_ep_disconnect}): the engine reserves every resource of a connection when the
 *       endpoint is created or modified (queues, RDMA Read credits), and the loopback transport
 *       has no limited resource to run out of while connecting; disconnecting allocates
 *       nothing.</li>
 *   <li>{@code DAT_INVALID_PARAMETER} ({@code dat_ep_recv_query}): its only parameters are the
 *       two outputs, and each may be {@code null} ("not wanted").</li>
 *   <li>{@code DAT_MODEL_NOT_SUPPORTED} ({@code dat_ep_recv_query}, {@code dat_ep_set_watermark}):
 *       the provider supports both ({@code ep_recv_info_supported},
 *       {@code srq_watermarks_supported}).</li>
 *   <li>{@code DAT_INVALID_PARAMETER} for an endpoint PZ that differs from the SRQ's
 *       ({@code dat_ep_create_with_srq}): the provider reports
 *       {@code srq_ep_pz_difference_supported}, so the combination is valid
 *       ({@link #epCreateWithSrq_success_endpointPzMayDifferFromTheSrqPz}).</li>
 *   <li>{@code DAT_PROTECTION_VIOLATION} and {@code DAT_PRIVILEGES_VIOLATION} for the remote
 *       buffer of {@code dat_ep_post_rdma_read} and {@code dat_ep_post_rdma_write}: only the
 *       target can check an {@code rmr_context} against its PZ and rights, so these show as the
 *       DTO status {@code DAT_DTO_ERR_REMOTE_ACCESS} and a broken connection
 *       ({@code postRdmaWrite_dtoErrRemoteAccess_*}, {@code postRdmaRead_dtoErrRemoteAccess_*},
 *       and the PZ rule of {@link SeedEpCreateTest}).</li>
 * </ul>
 * {@code dat_ep_post_recv} documents no {@code DAT_INVALID_STATE}: receives may be posted in
 * every state. jdat returns it for an endpoint that takes its buffers from an SRQ, which the
 * {@code dat_ep_create_with_srq} page forbids to post to ({@link #postRecv_invalidState_onSrqEndpoint}).
 */
class EpTest
{
    private static final long MS = 1_000L;
    private static final int LEN = 64;

    // ------------------------------------------------------------------ helpers

    private static LmrTriplet[] iov(final Lmr lmr, final long offset, final long length)
    {
        return new LmrTriplet[] {LmrTriplet.of(lmr, offset, length)};
    }

    private static RmrTriplet remote(final Lmr lmr, final long offset, final long length)
    {
        return new RmrTriplet(lmr.rmrContext(), lmr.registeredAddress() + offset, length);
    }

    /** The next event of {@code evd}: a DTO completion with this cookie and status. */
    private static DatEvent dto(final EventDispatcher evd, final long cookie, final DtoStatus status)
    {
        final DatEvent ev = Connecting.event(evd, EventNumber.DTO_COMPLETION_EVENT);
        assertEquals(cookie, ev.dto.userCookie, ev::toString);
        assertEquals(status, ev.dto.status, ev::toString);
        return ev;
    }

    /** Fills {@code m} with the bytes {@code seed, seed + 1, ...}. */
    private static void pattern(final MemorySegment m, final int seed)
    {
        for (long i = 0; i < m.byteSize(); i++)
        {
            m.set(ValueLayout.JAVA_BYTE, i, (byte) (seed + i));
        }
    }

    private static byte[] bytes(final Lmr lmr, final long offset, final long length)
    {
        return lmr.memory().asSlice(offset, length).toArray(ValueLayout.JAVA_BYTE);
    }

    private static byte[] filled(final int length, final int value)
    {
        final byte[] b = new byte[length];
        java.util.Arrays.fill(b, (byte) value);
        return b;
    }

    /** An endpoint of the fixture's PZ with the given recv EVD and its own request and connect EVDs. */
    private static Fixture.Ep ep(final Fixture f, final EventDispatcher recv, final EpAttr attr)
    {
        final EventDispatcher req = f.evd(256, EvdFlags.DTO_FLAG | EvdFlags.RMR_BIND_FLAG);
        final EventDispatcher conn = f.evd(16, EvdFlags.CONNECTION_FLAG);
        return new Fixture.Ep(f.ia.epCreate(f.pz, recv, req, conn, attr), recv, req, conn);
    }

    /** Connects {@code a} (active) to {@code b} (passive) through a PSP that is freed afterwards. */
    static void connect(final Fixture f, final Fixture.Ep a, final Fixture.Ep b)
    {
        final EventDispatcher crEvd = f.evd(8, EvdFlags.CR_FLAG);
        final PublicServicePoint psp = f.ia.pspCreateAny(crEvd, PspFlags.CONSUMER_FLAG);
        Connecting.connect(f, a, psp.connQual(), null);
        request(crEvd).crArrival.crHandle.accept(b.ep(), null);
        connection(a, EventNumber.CONNECTION_EVENT_ESTABLISHED);
        connection(b, EventNumber.CONNECTION_EVENT_ESTABLISHED);
        psp.free();
        crEvd.free();
    }

    /** A 20 ms wait that must find no notification, with {@code queued} events in the queue. */
    private static void assertNoNotification(final EventDispatcher evd, final int queued)
    {
        final DatCount nmore = new DatCount(-1);
        assertEquals(DatStatus.TIMEOUT_EXPIRED, evd.wait(20 * MS, 1, new DatEvent(), nmore));
        assertEquals(queued, nmore.value);
    }

    private static EpAttr attr(final java.util.function.Consumer<EpAttr> change)
    {
        final EpAttr a = new EpAttr();
        change.accept(a);
        return a;
    }

    private static void assertSubtype(final DatReturnSubtype subtype, final DatException e)
    {
        assertEquals(subtype, e.subtype(), e::getMessage);
    }

    /** An EP that is DISCONNECTED: connected to a peer, then disconnected abruptly, events drained. */
    private static Fixture.Ep[] disconnectedPair(final Fixture f)
    {
        final Fixture.Ep[] p = f.connectedPair(null);
        p[0].ep().disconnect(CloseFlags.ABRUPT_FLAG);
        connection(p[0], EventNumber.CONNECTION_EVENT_DISCONNECTED);
        connection(p[1], EventNumber.CONNECTION_EVENT_DISCONNECTED);
        return p;
    }

    /**
     * Calls {@code dat_ep_disconnect} on another thread while {@code s} holds a delivery, waits
     * until that thread has closed the loopback link (it then waits for the stalled delivery
     * before it can tell the peer), lets the delivery go on, and waits until the disconnect
     * returned.
     */
    private static void disconnectWhileStalled(final StalledDelivery s, final Endpoint ep, final int flags)
    {
        final AtomicReference<Thread> caller = new AtomicReference<>();
        final CompletableFuture<Void> call = CompletableFuture.runAsync(() ->
        {
            caller.set(Thread.currentThread());
            ep.disconnect(flags);
        }, Fixture.THREADS);
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (caller.get() == null || !closedTheLink(caller.get()))
        {
            assertTrue(System.nanoTime() < deadline, "the disconnect did not reach the transport");
            Thread.onSpinWait();
        }
        s.release();
        call.orTimeout(5, TimeUnit.SECONDS).join();
    }

    /**
     * Whether {@code t} is inside {@code LoopbackLink.close} past its first step, the
     * compare-and-set that closes the link: it is in a call {@code close} makes after it.
     */
    private static boolean closedTheLink(final Thread t)
    {
        final StackTraceElement[] stack = t.getStackTrace();
        for (int i = 1; i < stack.length; i++)
        {
            if (stack[i].getClassName().equals("io.jdat.loopback.LoopbackLink")
                && stack[i].getMethodName().equals("close"))
            {
                return !stack[i - 1].getMethodName().equals("compareAndSet");
            }
        }
        return false;
    }

    // ------------------------------------------------------------------ dat_ep_create

    @Test
    void epCreate_success_unconnectedWithItsHandlesAndAttributes()
    {
        try (Fixture f = new Fixture())
        {
            final EpAttr wanted = attr(a ->
            {
                a.maxRecvDtos = 8;
                a.maxRequestDtos = 6;
                a.maxRecvIov = 3;
                a.maxRequestIov = 2;
                a.maxMessageSize = 1 << 20;
                a.maxRdmaReadIn = 2;
                a.maxRdmaReadOut = 1;
            });
            final Fixture.Ep ep = f.ep(wanted);
            final EpParam p = new EpParam();
            ep.ep().query(EpParam.FIELD_ALL, p);
            assertEquals(EpState.UNCONNECTED, p.epState);
            assertSame(f.ia, p.iaHandle);
            assertSame(f.pz, p.pzHandle);
            assertSame(ep.recv(), p.recvEvdHandle);
            assertSame(ep.req(), p.requestEvdHandle);
            assertSame(ep.conn(), p.connectEvdHandle);
            assertNull(p.srqHandle);
            assertEquals(8, p.epAttr.maxRecvDtos);
            assertEquals(6, p.epAttr.maxRequestDtos);
            assertEquals(3, p.epAttr.maxRecvIov);
            assertEquals(2, p.epAttr.maxRequestIov);
            assertEquals(1 << 20, p.epAttr.maxMessageSize);
            assertEquals(2, p.epAttr.maxRdmaReadIn);
            assertEquals(1, p.epAttr.maxRdmaReadOut);
            // the endpoint holds its PZ and EVDs until it is freed
            expect(DatReturnType.INVALID_STATE, f.pz::free);
            expect(DatReturnType.INVALID_STATE, ep.recv()::free);
            expect(DatReturnType.INVALID_STATE, ep.req()::free);
            expect(DatReturnType.INVALID_STATE, ep.conn()::free);
            ep.ep().free();
            ep.recv().free();
            ep.req().free();
            ep.conn().free();
            f.pz.free();
        }
    }

    @Test
    void epCreate_success_nullAttributesGiveUsableProviderDefaults()
    {
        try (Fixture f = new Fixture())
        {
            final Fixture.Ep[] p = f.connectedPair(null);
            final EpParam q = new EpParam();
            p[0].ep().query(EpParam.FIELD_EP_ATTR_ALL, q);
            final EpAttr defaults = new EpAttr();
            assertEquals(defaults.maxRecvDtos, q.epAttr.maxRecvDtos);
            assertEquals(defaults.maxRequestDtos, q.epAttr.maxRequestDtos);
            assertEquals(defaults.maxRecvIov, q.epAttr.maxRecvIov);
            assertEquals(defaults.maxRequestIov, q.epAttr.maxRequestIov);
            assertEquals(CompletionFlags.EVD_THRESHOLD_FLAG, q.epAttr.recvCompletionFlags);
            assertEquals(CompletionFlags.EVD_THRESHOLD_FLAG, q.epAttr.requestCompletionFlags);
            // usable as they are: a message goes through
            final Lmr lmr = f.lmr(2 * LEN);
            p[1].ep().postRecv(1, iov(lmr, 0, LEN), 1, 0);
            p[0].ep().postSend(1, iov(lmr, LEN, LEN), 2, 0);
            dto(p[0].req(), 2, DtoStatus.SUCCESS);
            assertEquals(LEN, dto(p[1].recv(), 1, DtoStatus.SUCCESS).dto.transferredLength);
        }
    }

    @Test
    void epCreate_success_nullEvdsMeanNotInterested()
    {
        try (Fixture f = new Fixture())
        {
            final Endpoint ep = f.ia.epCreate(f.pz, null, null, null, null);
            final EpParam p = new EpParam();
            ep.query(EpParam.FIELD_ALL, p);
            assertEquals(EpState.UNCONNECTED, p.epState);
            assertNull(p.recvEvdHandle);
            assertNull(p.requestEvdHandle);
            assertNull(p.connectEvdHandle);
            // receives can still be posted; their completions go nowhere
            ep.postRecv(1, iov(f.lmr(LEN), 0, LEN), 1, 0);
            ep.free();
        }
    }

    @Test
    void epCreate_insufficientResources_whenMaxEpsReached()
    {
        try (Fixture f = new Fixture(Fixture.loopbackWith("max_eps=2")))
        {
            final Endpoint first = f.ia.epCreate(f.pz, null, null, null, null);
            f.ia.epCreate(f.pz, null, null, null, null);
            final DatException e = expect(DatReturnType.INSUFFICIENT_RESOURCES,
                () -> f.ia.epCreate(f.pz, null, null, null, null));
            assertSubtype(DatReturnSubtype.RESOURCE_TEP, e);
            first.free();
            assertNotNull(f.ia.epCreate(f.pz, null, null, null, null));
        }
    }

    @Test
    void epCreate_invalidHandle_freedOrForeignPz()
    {
        try (Fixture f = new Fixture(); Fixture other = new Fixture())
        {
            // dapltest FFT endpoint case 1: a freed PZ
            final ProtectionZone freed = f.ia.pzCreate();
            freed.free();
            assertSubtype(DatReturnSubtype.INVALID_HANDLE_PZ,
                expect(DatReturnType.INVALID_HANDLE, () -> f.ia.epCreate(freed, null, null, null, null)));
            assertSubtype(DatReturnSubtype.INVALID_HANDLE_PZ,
                expect(DatReturnType.INVALID_HANDLE, () -> f.ia.epCreate(other.pz, null, null, null, null)));
        }
    }

    @Test
    void epCreate_invalidHandle_evdOfTheWrongKindOrFreed()
    {
        try (Fixture f = new Fixture())
        {
            final EventDispatcher dto = f.evd(8, EvdFlags.DTO_FLAG);
            final EventDispatcher conn = f.evd(8, EvdFlags.CONNECTION_FLAG);
            final EventDispatcher freed = f.evd(8, EvdFlags.DTO_FLAG);
            freed.free();
            assertSubtype(DatReturnSubtype.INVALID_HANDLE_EVD_RECV, expect(DatReturnType.INVALID_HANDLE,
                () -> f.ia.epCreate(f.pz, conn, dto, conn, null)));
            assertSubtype(DatReturnSubtype.INVALID_HANDLE_EVD_REQUEST, expect(DatReturnType.INVALID_HANDLE,
                () -> f.ia.epCreate(f.pz, dto, conn, conn, null)));
            assertSubtype(DatReturnSubtype.INVALID_HANDLE_EVD_CONN, expect(DatReturnType.INVALID_HANDLE,
                () -> f.ia.epCreate(f.pz, dto, dto, dto, null)));
            assertSubtype(DatReturnSubtype.INVALID_HANDLE_EVD_RECV, expect(DatReturnType.INVALID_HANDLE,
                () -> f.ia.epCreate(f.pz, freed, dto, conn, null)));
            // the failed creations took no reference: the EVDs can go
            dto.free();
            conn.free();
        }
    }

    @Test
    void epCreate_invalidHandle_closedIa()
    {
        try (Fixture f = new Fixture())
        {
            f.ia.close(CloseFlags.ABRUPT_FLAG);
            assertSubtype(DatReturnSubtype.INVALID_HANDLE_IA,
                expect(DatReturnType.INVALID_HANDLE, () -> f.ia.epCreate(f.pz, null, null, null, null)));
        }
    }

    @Test
    void epCreate_invalidParameter_attributeOutsideTheIaLimits()
    {
        try (Fixture f = new Fixture(Fixture.loopbackWith(
            "max_dto_per_ep=32 max_iov=8 max_message_size=4096 max_rdma_size=8192 max_rdma_read_per_ep=4")))
        {
            final java.util.List<java.util.function.Consumer<EpAttr>> bad = java.util.List.of(
                a -> a.maxRequestDtos = 33,
                a -> a.maxRecvDtos = 33,
                a -> a.maxRecvDtos = -1,
                a -> a.maxRequestIov = 9,
                a -> a.maxRecvIov = 9,
                a -> a.maxRdmaReadIov = 9,
                a -> a.maxRdmaWriteIov = 9,
                a -> a.maxMessageSize = 4097,
                a -> a.maxRdmaSize = 8193,
                a -> a.maxRdmaReadIn = 5,
                a -> a.maxRdmaReadOut = 5,
                a -> a.srqSoftHw = -2);
            for (final java.util.function.Consumer<EpAttr> change : bad)
            {
                final EpAttr a = attr(x ->
                {
                    x.maxMessageSize = 4096;
                    x.maxRdmaSize = 8192;
                });
                change.accept(a);
                expect(DatReturnType.INVALID_PARAMETER, () -> f.ia.epCreate(f.pz, null, null, null, a));
            }
            // exactly at the limits is fine
            assertNotNull(f.ia.epCreate(f.pz, null, null, null, attr(a ->
            {
                a.maxRequestDtos = 32;
                a.maxRecvDtos = 32;
                a.maxRequestIov = 8;
                a.maxRecvIov = 8;
                a.maxMessageSize = 4096;
                a.maxRdmaSize = 8192;
                a.maxRdmaReadIn = 4;
                a.maxRdmaReadOut = 4;
            })));
        }
    }

    @Test
    void epCreate_invalidParameter_badCompletionFlags()
    {
        try (Fixture f = new Fixture())
        {
            // SUPPRESS and BARRIER_FENCE are per-post flags; requests are THRESHOLD or UNSIGNALLED
            for (final int flags : new int[] {CompletionFlags.SUPPRESS_FLAG, CompletionFlags.BARRIER_FENCE_FLAG,
                CompletionFlags.DEFAULT_FLAG, 0x40})
            {
                expect(DatReturnType.INVALID_PARAMETER, () -> f.ia.epCreate(f.pz, null, null, null,
                    attr(a -> a.recvCompletionFlags = flags)));
            }
            for (final int flags : new int[] {CompletionFlags.SOLICITED_WAIT_FLAG, CompletionFlags.SUPPRESS_FLAG,
                CompletionFlags.DEFAULT_FLAG})
            {
                expect(DatReturnType.INVALID_PARAMETER, () -> f.ia.epCreate(f.pz, null, null, null,
                    attr(a -> a.requestCompletionFlags = flags)));
            }
        }
    }

    @Test
    void epCreate_invalidParameter_completionFlagsClashOnASharedEvd()
    {
        try (Fixture f = new Fixture())
        {
            final EventDispatcher shared = f.evd(16, EvdFlags.DTO_FLAG | EvdFlags.CONNECTION_FLAG);
            f.ia.epCreate(f.pz, shared, shared, null, null);
            // an unsignalled recv stream cannot join an EVD of threshold streams
            expect(DatReturnType.INVALID_PARAMETER, () -> f.ia.epCreate(f.pz, shared, null, null,
                attr(a -> a.recvCompletionFlags = CompletionFlags.UNSIGNALLED_FLAG)));
            // a solicited-wait recv EVD carries nothing else, not even connection events
            final EventDispatcher solicited = f.evd(16, EvdFlags.DTO_FLAG | EvdFlags.CONNECTION_FLAG);
            f.ia.epCreate(f.pz, solicited, null, null, attr(a -> a.recvCompletionFlags
                = CompletionFlags.SOLICITED_WAIT_FLAG));
            expect(DatReturnType.INVALID_PARAMETER, () -> f.ia.epCreate(f.pz, null, null, solicited, null));
            expect(DatReturnType.INVALID_PARAMETER, () -> f.ia.epCreate(f.pz, null, solicited, null, null));
        }
    }

    @Test
    void epCreate_modelNotSupported_serviceTypeOrQosOtherThanRcBestEffort()
    {
        try (Fixture f = new Fixture())
        {
            expect(DatReturnType.MODEL_NOT_SUPPORTED,
                () -> f.ia.epCreate(f.pz, null, null, null, attr(a -> a.serviceType = 1)));
            expect(DatReturnType.MODEL_NOT_SUPPORTED,
                () -> f.ia.epCreate(f.pz, null, null, null, attr(a -> a.qos = Qos.LOW_LATENCY)));
        }
    }

    // ------------------------------------------------------------------ dat_ep_create_with_srq

    private static Fixture.Ep srqEp(final Fixture f, final ProtectionZone pz, final SharedReceiveQueue srq,
        final EpAttr attr)
    {
        final EventDispatcher recv = f.evd(64, EvdFlags.DTO_FLAG);
        final EventDispatcher req = f.evd(64, EvdFlags.DTO_FLAG);
        final EventDispatcher conn = f.evd(8, EvdFlags.CONNECTION_FLAG);
        return new Fixture.Ep(f.ia.epCreateWithSrq(pz, recv, req, conn, srq, attr), recv, req, conn);
    }

    @Test
    void epCreateWithSrq_success_unconnectedAndFedByTheSrq()
    {
        try (Fixture f = new Fixture())
        {
            final SharedReceiveQueue srq = f.ia.srqCreate(f.pz, new SrqAttr(4, 1));
            final Fixture.Ep server = srqEp(f, f.pz, srq, new EpAttr());
            final EpParam p = new EpParam();
            server.ep().query(EpParam.FIELD_ALL, p);
            assertEquals(EpState.UNCONNECTED, p.epState);
            assertSame(srq, p.srqHandle);
            assertSame(server.recv(), p.recvEvdHandle);
            final Fixture.Ep client = f.ep(null);
            connect(f, client, server);
            final Lmr lmr = f.lmr(2 * LEN);
            srq.postRecv(1, iov(lmr, 0, LEN), 5);
            pattern(lmr.memory().asSlice(LEN, LEN), 9);
            client.ep().postSend(1, iov(lmr, LEN, 16), 1, 0);
            final DatEvent ev = dto(server.recv(), 5, DtoStatus.SUCCESS);
            assertSame(server.ep(), ev.dto.epHandle);
            assertEquals(16, ev.dto.transferredLength);
            assertArrayEquals(bytes(lmr, LEN, 16), bytes(lmr, 0, 16));
            // the SRQ is held until the endpoint goes
            expect(DatReturnType.INVALID_STATE, srq::free);
        }
    }

    @Test
    void epCreateWithSrq_success_endpointPzMayDifferFromTheSrqPz()
    {
        // srq_ep_pz_difference_supported is TRUE: buffers come from the SRQ's PZ
        try (Fixture f = new Fixture())
        {
            final ProtectionZone srqPz = f.ia.pzCreate();
            final SharedReceiveQueue srq = f.ia.srqCreate(srqPz, new SrqAttr(4, 1));
            final Fixture.Ep server = srqEp(f, f.pz, srq, new EpAttr());
            final Fixture.Ep client = f.ep(null);
            connect(f, client, server);
            final Lmr buffer = f.ia.lmrCreate(io.jdat.MemType.VIRTUAL,
                io.jdat.RegionDescription.forVa(f.memory(LEN)), LEN, srqPz, MemPriv.ALL_FLAG);
            srq.postRecv(1, iov(buffer, 0, LEN), 5);
            client.ep().postSend(1, iov(f.lmr(LEN), 0, 8), 1, 0);
            dto(server.recv(), 5, DtoStatus.SUCCESS);
        }
    }

    @Test
    void epCreateWithSrq_insufficientResources_whenMaxEpsOrMaxEpPerSrqReached()
    {
        try (Fixture f = new Fixture(Fixture.loopbackWith("max_eps=3 max_ep_per_srq=2")))
        {
            final SharedReceiveQueue srq = f.ia.srqCreate(f.pz, new SrqAttr(4, 1));
            final SharedReceiveQueue other = f.ia.srqCreate(f.pz, new SrqAttr(4, 1));
            f.ia.epCreateWithSrq(f.pz, null, null, null, srq, new EpAttr());
            f.ia.epCreateWithSrq(f.pz, null, null, null, srq, new EpAttr());
            assertSubtype(DatReturnSubtype.RESOURCE_SRQ, expect(DatReturnType.INSUFFICIENT_RESOURCES,
                () -> f.ia.epCreateWithSrq(f.pz, null, null, null, srq, new EpAttr())));
            f.ia.epCreateWithSrq(f.pz, null, null, null, other, new EpAttr());
            assertSubtype(DatReturnSubtype.RESOURCE_TEP, expect(DatReturnType.INSUFFICIENT_RESOURCES,
                () -> f.ia.epCreateWithSrq(f.pz, null, null, null, other, new EpAttr())));
        }
    }

    @Test
    void epCreateWithSrq_invalidHandle_nullOrFreedSrq()
    {
        try (Fixture f = new Fixture())
        {
            final SharedReceiveQueue freed = f.ia.srqCreate(f.pz, new SrqAttr(4, 1));
            freed.free();
            assertSubtype(DatReturnSubtype.INVALID_HANDLE_SRQ, expect(DatReturnType.INVALID_HANDLE,
                () -> f.ia.epCreateWithSrq(f.pz, null, null, null, freed, new EpAttr())));
            assertSubtype(DatReturnSubtype.INVALID_HANDLE_SRQ, expect(DatReturnType.INVALID_HANDLE,
                () -> f.ia.epCreateWithSrq(f.pz, null, null, null, null, new EpAttr())));
            final ProtectionZone freedPz = f.ia.pzCreate();
            freedPz.free();
            final SharedReceiveQueue srq = f.ia.srqCreate(f.pz, new SrqAttr(4, 1));
            assertSubtype(DatReturnSubtype.INVALID_HANDLE_PZ, expect(DatReturnType.INVALID_HANDLE,
                () -> f.ia.epCreateWithSrq(freedPz, null, null, null, srq, new EpAttr())));
        }
    }

    @Test
    void epCreateWithSrq_invalidParameter_nullOrBadAttributes()
    {
        try (Fixture f = new Fixture())
        {
            final SharedReceiveQueue srq = f.ia.srqCreate(f.pz, new SrqAttr(4, 1));
            // the attributes must not be NULL (dat_ep_create_with_srq)
            assertSubtype(DatReturnSubtype.INVALID_ARG7, expect(DatReturnType.INVALID_PARAMETER,
                () -> f.ia.epCreateWithSrq(f.pz, null, null, null, srq, null)));
            expect(DatReturnType.INVALID_PARAMETER,
                () -> f.ia.epCreateWithSrq(f.pz, null, null, null, srq, attr(a -> a.maxRequestDtos = -1)));
            expect(DatReturnType.INVALID_PARAMETER, () -> f.ia.epCreateWithSrq(f.pz, null, null, null, srq,
                attr(a -> a.requestCompletionFlags = CompletionFlags.SOLICITED_WAIT_FLAG)));
        }
    }

    @Test
    void epCreateWithSrq_modelNotSupported_serviceTypeOtherThanRc()
    {
        try (Fixture f = new Fixture())
        {
            final SharedReceiveQueue srq = f.ia.srqCreate(f.pz, new SrqAttr(4, 1));
            expect(DatReturnType.MODEL_NOT_SUPPORTED,
                () -> f.ia.epCreateWithSrq(f.pz, null, null, null, srq, attr(a -> a.serviceType = 7)));
        }
    }

    // ------------------------------------------------------------------ dat_ep_connect

    @Test
    void connect_success_activeConnectionPendingUntilTheEstablishedEvent()
    {
        try (Fixture f = new Fixture())
        {
            final Fixture.Ep a = f.ep(null);
            final Fixture.Ep b = f.ep(null);
            final EventDispatcher crEvd = f.evd(8, EvdFlags.CR_FLAG);
            final PublicServicePoint psp = f.ia.pspCreateAny(crEvd, PspFlags.CONSUMER_FLAG);
            a.ep().connect(f.address, psp.connQual(), 5 * SECOND, new byte[] {1, 2, 3}, Qos.BEST_EFFORT,
                ConnectFlags.DEFAULT_FLAG);
            assertEquals(EpState.ACTIVE_CONNECTION_PENDING, state(a.ep()));
            final EpParam p = new EpParam();
            a.ep().query(EpParam.FIELD_ALL, p);
            assertEquals(f.address, p.remoteIaAddress);
            assertEquals(psp.connQual(), p.remotePortQual);
            // the request carries the private data and the local port qualifier bound by connect
            final ConnectionRequest cr = request(crEvd).crArrival.crHandle;
            final CrParam cp = new CrParam();
            cr.query(CrParam.FIELD_ALL, cp);
            assertArrayEquals(new byte[] {1, 2, 3}, cp.privateData);
            assertEquals(p.localPortQual, cp.remotePortQual);
            cr.accept(b.ep(), new byte[] {4, 5});
            final DatEvent ev = connection(a, EventNumber.CONNECTION_EVENT_ESTABLISHED);
            assertArrayEquals(new byte[] {4, 5}, ev.connection.privateData);
            assertEquals(EpState.CONNECTED, state(a.ep()));
        }
    }

    @Test
    void connect_success_nobodyListeningIsNonPeerRejectedAndFlushesReceives()
    {
        try (Fixture f = new Fixture(Fixture.loopbackWith("")))
        {
            final Fixture.Ep a = f.ep(null);
            a.ep().postRecv(1, iov(f.lmr(LEN), 0, LEN), 3, 0);
            // a fresh address: nothing listens on any qualifier
            a.ep().connect(f.address, 4711, 5 * SECOND, null, Qos.BEST_EFFORT, 0);
            connection(a, EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED);
            assertEquals(EpState.DISCONNECTED, state(a.ep()));
            dto(a.recv(), 3, DtoStatus.ERR_FLUSHED);
        }
    }

    @Test
    void connect_success_unknownAddressIsUnreachable()
    {
        try (Fixture f = new Fixture())
        {
            final Fixture.Ep a = f.ep(null);
            a.ep().connect(IaAddress.named(RegisteredLoopback.unregisteredName()), 1, 5 * SECOND, null,
                Qos.BEST_EFFORT, 0);
            connection(a, EventNumber.CONNECTION_EVENT_UNREACHABLE);
            assertEquals(EpState.DISCONNECTED, state(a.ep()));
        }
    }

    @Test
    void connect_invalidHandle_freedEndpoint()
    {
        try (Fixture f = new Fixture())
        {
            final Fixture.Ep a = f.ep(null);
            a.ep().free();
            assertSubtype(DatReturnSubtype.INVALID_HANDLE_EP, expect(DatReturnType.INVALID_HANDLE,
                () -> a.ep().connect(f.address, 1, 5 * SECOND, null, Qos.BEST_EFFORT, 0)));
        }
    }

    @Test
    void connect_invalidParameter_timeoutPrivateDataOrFlags()
    {
        try (Fixture f = new Fixture(Fixture.loopbackWith("max_private_data=64")))
        {
            final Endpoint a = f.ep(null).ep();
            // the timeout must be positive
            expect(DatReturnType.INVALID_PARAMETER, () -> a.connect(f.address, 1, 0, null, Qos.BEST_EFFORT, 0));
            expect(DatReturnType.INVALID_PARAMETER,
                () -> a.connect(f.address, 1, Dat.TIMEOUT_INFINITE + 1, null, Qos.BEST_EFFORT, 0));
            // more private data than max_private_data_size
            expect(DatReturnType.INVALID_PARAMETER,
                () -> a.connect(f.address, 1, SECOND, new byte[65], Qos.BEST_EFFORT, 0));
            expect(DatReturnType.INVALID_PARAMETER, () -> a.connect(f.address, 1, SECOND, null, 0x40, 0));
            expect(DatReturnType.INVALID_PARAMETER, () -> a.connect(f.address, 1, SECOND, null, Qos.BEST_EFFORT, 2));
            // nothing happened
            assertEquals(EpState.UNCONNECTED, state(a));
        }
    }

    @Test
    void connect_invalidAddress_nullOrAnIpAddress()
    {
        try (Fixture f = new Fixture())
        {
            final Endpoint a = f.ep(null).ep();
            assertSubtype(DatReturnSubtype.INVALID_ADDRESS_MALFORMED, expect(DatReturnType.INVALID_ADDRESS,
                () -> a.connect(null, 1, SECOND, null, Qos.BEST_EFFORT, 0)));
            assertSubtype(DatReturnSubtype.INVALID_ADDRESS_UNSUPPORTED, expect(DatReturnType.INVALID_ADDRESS,
                () -> a.connect(IaAddress.of(InetAddress.getLoopbackAddress()), 1, SECOND, null, Qos.BEST_EFFORT,
                    0)));
            assertEquals(EpState.UNCONNECTED, state(a));
        }
    }

    @Test
    void connect_invalidState_whenNotUnconnected()
    {
        try (Fixture f = new Fixture())
        {
            final Fixture.Ep[] p = f.connectedPair(null);
            assertSubtype(DatReturnSubtype.INVALID_STATE_EP_CONNECTED, expect(DatReturnType.INVALID_STATE,
                () -> p[0].ep().connect(f.address, 1, SECOND, null, Qos.BEST_EFFORT, 0)));
            // connection pending
            final Fixture.Ep c = f.ep(null);
            final EventDispatcher crEvd = f.evd(8, EvdFlags.CR_FLAG);
            final PublicServicePoint psp = f.ia.pspCreateAny(crEvd, PspFlags.CONSUMER_FLAG);
            Connecting.connect(f, c, psp.connQual(), null);
            assertSubtype(DatReturnSubtype.INVALID_STATE_EP_ACTCONNPENDING, expect(DatReturnType.INVALID_STATE,
                () -> c.ep().connect(f.address, psp.connQual(), SECOND, null, Qos.BEST_EFFORT, 0)));
            // DISCONNECTED needs dat_ep_reset first
            p[0].ep().disconnect(CloseFlags.ABRUPT_FLAG);
            assertSubtype(DatReturnSubtype.INVALID_STATE_EP_DISCONNECTED, expect(DatReturnType.INVALID_STATE,
                () -> p[0].ep().connect(f.address, psp.connQual(), SECOND, null, Qos.BEST_EFFORT, 0)));
        }
    }

    @Test
    void connect_invalidState_withoutConnectEvdOrPz()
    {
        try (Fixture f = new Fixture())
        {
            final Endpoint noEvd = f.ia.epCreate(f.pz, null, null, null, null);
            assertSubtype(DatReturnSubtype.INVALID_STATE_EP_EVD_CONNECT, expect(DatReturnType.INVALID_STATE,
                () -> noEvd.connect(f.address, 1, SECOND, null, Qos.BEST_EFFORT, 0)));
            final Endpoint noPz = f.ia.epCreate(null, null, null, f.evd(4, EvdFlags.CONNECTION_FLAG), null);
            assertSubtype(DatReturnSubtype.INVALID_STATE_EP_PZ, expect(DatReturnType.INVALID_STATE,
                () -> noPz.connect(f.address, 1, SECOND, null, Qos.BEST_EFFORT, 0)));
            assertEquals(EpState.UNCONNECTED, state(noEvd));
            assertEquals(EpState.UNCONNECTED, state(noPz));
        }
    }

    @Test
    void connect_modelNotSupported_qosOrMultipath()
    {
        try (Fixture f = new Fixture())
        {
            final Endpoint a = f.ep(null).ep();
            expect(DatReturnType.MODEL_NOT_SUPPORTED, () -> a.connect(f.address, 1, SECOND, null, Qos.PREMIUM, 0));
            expect(DatReturnType.MODEL_NOT_SUPPORTED,
                () -> a.connect(f.address, 1, SECOND, null, Qos.BEST_EFFORT, ConnectFlags.MULTIPATH_FLAG));
            assertEquals(EpState.UNCONNECTED, state(a));
        }
    }

    // ------------------------------------------------------------------ dat_ep_dup_connect

    @Test
    void dupConnect_success_connectsToTheSameServicePoint()
    {
        try (Fixture f = new Fixture())
        {
            final Fixture.Ep a = f.ep(null);
            final Fixture.Ep b = f.ep(null);
            final EventDispatcher crEvd = f.evd(8, EvdFlags.CR_FLAG);
            final PublicServicePoint psp = f.ia.pspCreateAny(crEvd, PspFlags.CONSUMER_FLAG);
            Connecting.connect(f, a, psp.connQual(), null);
            request(crEvd).crArrival.crHandle.accept(b.ep(), null);
            connection(a, EventNumber.CONNECTION_EVENT_ESTABLISHED);
            final Fixture.Ep c = f.ep(null);
            final Fixture.Ep d = f.ep(null);
            c.ep().dupConnect(a.ep(), 5 * SECOND, new byte[] {9}, Qos.BEST_EFFORT);
            assertEquals(EpState.ACTIVE_CONNECTION_PENDING, state(c.ep()));
            final DatEvent req = request(crEvd);
            assertSame(psp, req.crArrival.spHandle);
            assertEquals(psp.connQual(), req.crArrival.connQual);
            final CrParam cp = new CrParam();
            req.crArrival.crHandle.query(CrParam.FIELD_PRIVATE_DATA, cp);
            assertArrayEquals(new byte[] {9}, cp.privateData);
            req.crArrival.crHandle.accept(d.ep(), null);
            connection(c, EventNumber.CONNECTION_EVENT_ESTABLISHED);
            connection(d, EventNumber.CONNECTION_EVENT_ESTABLISHED);
        }
    }

    @Test
    void dupConnect_invalidHandle_freedOrNullEndpoints()
    {
        try (Fixture f = new Fixture())
        {
            final Fixture.Ep[] p = f.connectedPair(null);
            final Fixture.Ep freed = f.ep(null);
            freed.ep().free();
            final Endpoint c = f.ep(null).ep();
            assertSubtype(DatReturnSubtype.INVALID_HANDLE_EP, expect(DatReturnType.INVALID_HANDLE,
                () -> freed.ep().dupConnect(p[0].ep(), SECOND, null, Qos.BEST_EFFORT)));
            assertSubtype(DatReturnSubtype.INVALID_HANDLE_EP, expect(DatReturnType.INVALID_HANDLE,
                () -> c.dupConnect(freed.ep(), SECOND, null, Qos.BEST_EFFORT)));
            assertSubtype(DatReturnSubtype.INVALID_HANDLE_EP, expect(DatReturnType.INVALID_HANDLE,
                () -> c.dupConnect(null, SECOND, null, Qos.BEST_EFFORT)));
            assertEquals(EpState.UNCONNECTED, state(c));
        }
    }

    @Test
    void dupConnect_invalidParameter_passiveDupTimeoutOrPrivateData()
    {
        try (Fixture f = new Fixture())
        {
            final Fixture.Ep[] p = f.connectedPair(null);
            final Endpoint c = f.ep(null).ep();
            // the passive side has no service point to connect to again (digest §2.8 [INF])
            assertSubtype(DatReturnSubtype.INVALID_ARG2, expect(DatReturnType.INVALID_PARAMETER,
                () -> c.dupConnect(p[1].ep(), SECOND, null, Qos.BEST_EFFORT)));
            // dat_ep_dup_connect(ep, dup_ep, timeout, private_data_size, private_data, qos):
            // one argument fewer than dat_ep_connect, so its positions are its own
            assertSubtype(DatReturnSubtype.INVALID_ARG3, expect(DatReturnType.INVALID_PARAMETER,
                () -> c.dupConnect(p[0].ep(), 0, null, Qos.BEST_EFFORT)));
            assertSubtype(DatReturnSubtype.INVALID_ARG4, expect(DatReturnType.INVALID_PARAMETER,
                () -> c.dupConnect(p[0].ep(), SECOND, new byte[257], Qos.BEST_EFFORT)));
            assertSubtype(DatReturnSubtype.INVALID_ARG6, expect(DatReturnType.INVALID_PARAMETER,
                () -> c.dupConnect(p[0].ep(), SECOND, null, 1 << 30)));
            assertEquals(EpState.UNCONNECTED, state(c));
        }
    }

    @Test
    void dupConnect_invalidState_epNotUnconnectedOrDupNotConnected()
    {
        try (Fixture f = new Fixture())
        {
            final Fixture.Ep[] p = f.connectedPair(null);
            final Fixture.Ep[] q = f.connectedPair(null);
            assertSubtype(DatReturnSubtype.INVALID_STATE_EP_CONNECTED, expect(DatReturnType.INVALID_STATE,
                () -> q[0].ep().dupConnect(p[0].ep(), SECOND, null, Qos.BEST_EFFORT)));
            final Endpoint unconnected = f.ep(null).ep();
            final Endpoint c = f.ep(null).ep();
            assertSubtype(DatReturnSubtype.INVALID_STATE_EP_UNCONNECTED, expect(DatReturnType.INVALID_STATE,
                () -> c.dupConnect(unconnected, SECOND, null, Qos.BEST_EFFORT)));
            assertEquals(EpState.UNCONNECTED, state(c));
        }
    }

    @Test
    void dupConnect_modelNotSupported_qos()
    {
        try (Fixture f = new Fixture())
        {
            final Fixture.Ep[] p = f.connectedPair(null);
            final Endpoint c = f.ep(null).ep();
            expect(DatReturnType.MODEL_NOT_SUPPORTED,
                () -> c.dupConnect(p[0].ep(), SECOND, null, Qos.HIGH_THROUGHPUT));
            assertEquals(EpState.UNCONNECTED, state(c));
        }
    }

    // ------------------------------------------------------------------ dat_ep_disconnect

    @Test
    void disconnect_success_abruptEndsBothSidesAndFlushesReceives()
    {
        try (Fixture f = new Fixture())
        {
            final Fixture.Ep[] p = f.connectedPair(null);
            final Lmr lmr = f.lmr(4 * LEN);
            p[0].ep().postRecv(1, iov(lmr, 0, LEN), 10, 0);
            p[1].ep().postRecv(1, iov(lmr, LEN, LEN), 20, 0);
            p[1].ep().postRecv(1, iov(lmr, 2 * LEN, LEN), 21, 0);
            p[0].ep().disconnect(CloseFlags.ABRUPT_FLAG);
            connection(p[0], EventNumber.CONNECTION_EVENT_DISCONNECTED);
            connection(p[1], EventNumber.CONNECTION_EVENT_DISCONNECTED);
            assertEquals(EpState.DISCONNECTED, state(p[0].ep()));
            assertEquals(EpState.DISCONNECTED, state(p[1].ep()));
            // every receive still posted completes DAT_DTO_ERR_FLUSHED, in posting order
            dto(p[0].recv(), 10, DtoStatus.ERR_FLUSHED);
            dto(p[1].recv(), 20, DtoStatus.ERR_FLUSHED);
            dto(p[1].recv(), 21, DtoStatus.ERR_FLUSHED);
            assertEmpty(p[1].recv());
            // a disconnect of a DISCONNECTED endpoint does nothing
            p[0].ep().disconnect(CloseFlags.GRACEFUL_FLAG);
            p[0].ep().disconnect(CloseFlags.ABRUPT_FLAG);
            assertEmpty(p[0].conn());
        }
    }

    @Test
    void disconnect_success_abruptFlushesOutstandingRequestsInOrder()
    {
        try (Fixture f = new Fixture(); StalledDelivery s = new StalledDelivery(f))
        {
            final Fixture.Ep a = f.ep(null);
            final Fixture.Ep b = ep(f, s.recvEvd(f), null);
            connect(f, a, b);
            final Lmr lmr = f.lmr(4 * LEN);
            b.ep().postRecv(1, iov(lmr, 0, LEN), 100, 0);
            b.ep().postRecv(1, iov(lmr, LEN, LEN), 101, 0);
            s.stall(() -> a.ep().postSend(1, iov(lmr, 2 * LEN, 8), 1, 0));
            a.ep().postSend(1, iov(lmr, 2 * LEN, 8), 2, 0);
            a.ep().postRdmaWrite(1, iov(lmr, 2 * LEN, 8), 3, remote(lmr, 3 * LEN, 8), 0);
            disconnectWhileStalled(s, a.ep(), CloseFlags.ABRUPT_FLAG);
            connection(a, EventNumber.CONNECTION_EVENT_DISCONNECTED);
            // the Send in progress may complete either way; what was queued behind it is flushed
            final DatEvent first = Connecting.event(a.req(), EventNumber.DTO_COMPLETION_EVENT);
            assertEquals(1, first.dto.userCookie);
            assertTrue(first.dto.status == DtoStatus.SUCCESS || first.dto.status == DtoStatus.ERR_FLUSHED,
                first::toString);
            dto(a.req(), 2, DtoStatus.ERR_FLUSHED);
            dto(a.req(), 3, DtoStatus.ERR_FLUSHED);
            // and never reaches the peer
            connection(b, EventNumber.CONNECTION_EVENT_DISCONNECTED);
            dto(b.recv(), 100, DtoStatus.SUCCESS);
            dto(b.recv(), 101, DtoStatus.ERR_FLUSHED);
            assertEmpty(a.req());
        }
    }

    @Test
    void disconnect_success_gracefulLetsPostedRequestsFinishFirst()
    {
        try (Fixture f = new Fixture(); StalledDelivery s = new StalledDelivery(f))
        {
            final Fixture.Ep a = f.ep(null);
            final Fixture.Ep b = ep(f, s.recvEvd(f), null);
            connect(f, a, b);
            final Lmr lmr = f.lmr(4 * LEN);
            b.ep().postRecv(1, iov(lmr, 0, LEN), 100, 0);
            b.ep().postRecv(1, iov(lmr, LEN, LEN), 101, 0);
            b.ep().postRecv(1, iov(lmr, 2 * LEN, LEN), 102, 0);
            s.stall(() -> a.ep().postSend(1, iov(lmr, 3 * LEN, 8), 1, 0));
            a.ep().postSend(1, iov(lmr, 3 * LEN, 8), 2, 0);
            a.ep().disconnect(CloseFlags.GRACEFUL_FLAG);
            assertEquals(EpState.DISCONNECT_PENDING, state(a.ep()));
            // no new requests while the disconnect is pending (receives are still fine)
            assertSubtype(DatReturnSubtype.INVALID_STATE_EP_DISCPENDING, expect(DatReturnType.INVALID_STATE,
                () -> a.ep().postSend(1, iov(lmr, 3 * LEN, 8), 3, 0)));
            a.ep().postRecv(1, iov(lmr, 3 * LEN, LEN), 10, 0);
            // a second graceful disconnect has no effect (trap T-15)
            a.ep().disconnect(CloseFlags.GRACEFUL_FLAG);
            assertEquals(EpState.DISCONNECT_PENDING, state(a.ep()));
            assertEmpty(a.conn());
            s.release();
            dto(a.req(), 1, DtoStatus.SUCCESS);
            dto(a.req(), 2, DtoStatus.SUCCESS);
            connection(a, EventNumber.CONNECTION_EVENT_DISCONNECTED);
            connection(b, EventNumber.CONNECTION_EVENT_DISCONNECTED);
            dto(a.recv(), 10, DtoStatus.ERR_FLUSHED);
            dto(b.recv(), 100, DtoStatus.SUCCESS);
            dto(b.recv(), 101, DtoStatus.SUCCESS);
            dto(b.recv(), 102, DtoStatus.ERR_FLUSHED);
        }
    }

    @Test
    void disconnect_success_abruptDuringDisconnectPendingEndsTheConnectionAtOnce()
    {
        // dat_ep_disconnect: an abrupt disconnect while DISCONNECT_PENDING finishes immediately
        try (Fixture f = new Fixture(); StalledDelivery s = new StalledDelivery(f))
        {
            final Fixture.Ep a = f.ep(null);
            final Fixture.Ep b = ep(f, s.recvEvd(f), null);
            connect(f, a, b);
            final Lmr lmr = f.lmr(4 * LEN);
            b.ep().postRecv(1, iov(lmr, 0, LEN), 100, 0);
            b.ep().postRecv(1, iov(lmr, LEN, LEN), 101, 0);
            s.stall(() -> a.ep().postSend(1, iov(lmr, 3 * LEN, 8), 1, 0));
            a.ep().postSend(1, iov(lmr, 3 * LEN, 8), 2, 0);
            a.ep().disconnect(CloseFlags.GRACEFUL_FLAG);
            assertEquals(EpState.DISCONNECT_PENDING, state(a.ep()));
            disconnectWhileStalled(s, a.ep(), CloseFlags.ABRUPT_FLAG);
            connection(a, EventNumber.CONNECTION_EVENT_DISCONNECTED);
            assertEquals(EpState.DISCONNECTED, state(a.ep()));
            final DatEvent first = Connecting.event(a.req(), EventNumber.DTO_COMPLETION_EVENT);
            assertEquals(1, first.dto.userCookie);
            dto(a.req(), 2, DtoStatus.ERR_FLUSHED);
            // the connection is gone on both sides: the flushed Send never reaches the peer
            connection(b, EventNumber.CONNECTION_EVENT_DISCONNECTED);
            dto(b.recv(), 100, DtoStatus.SUCCESS);
            dto(b.recv(), 101, DtoStatus.ERR_FLUSHED);
            assertEquals(EpState.DISCONNECTED, state(b.ep()));
        }
    }

    @Test
    void disconnect_success_abortsAConnectionBeingSetUp()
    {
        try (Fixture f = new Fixture())
        {
            final Fixture.Ep a = f.ep(null);
            final Fixture.Ep b = f.ep(null);
            a.ep().postRecv(1, iov(f.lmr(LEN), 0, LEN), 7, 0);
            final EventDispatcher crEvd = f.evd(8, EvdFlags.CR_FLAG);
            final PublicServicePoint psp = f.ia.pspCreateAny(crEvd, PspFlags.CONSUMER_FLAG);
            Connecting.connect(f, a, psp.connQual(), null);
            final ConnectionRequest cr = request(crEvd).crArrival.crHandle;
            a.ep().disconnect(CloseFlags.ABRUPT_FLAG);
            assertEquals(EpState.DISCONNECTED, state(a.ep()));
            connection(a, EventNumber.CONNECTION_EVENT_DISCONNECTED);
            dto(a.recv(), 7, DtoStatus.ERR_FLUSHED);
            // the passive side can no longer complete the connection
            cr.accept(b.ep(), null);
            connection(b, EventNumber.CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR);
            assertEmpty(a.conn());
        }
    }

    @Test
    void disconnect_invalidHandle_freedEndpoint()
    {
        try (Fixture f = new Fixture())
        {
            final Fixture.Ep[] p = f.connectedPair(null);
            p[0].ep().free();
            assertSubtype(DatReturnSubtype.INVALID_HANDLE_EP, expect(DatReturnType.INVALID_HANDLE,
                () -> p[0].ep().disconnect(CloseFlags.ABRUPT_FLAG)));
        }
    }

    @Test
    void disconnect_invalidParameter_unknownFlags()
    {
        try (Fixture f = new Fixture())
        {
            final Fixture.Ep[] p = f.connectedPair(null);
            assertSubtype(DatReturnSubtype.INVALID_ARG2, expect(DatReturnType.INVALID_PARAMETER,
                () -> p[0].ep().disconnect(2)));
            assertEquals(EpState.CONNECTED, state(p[0].ep()));
        }
    }

    @Test
    void disconnect_invalidState_whenUnconnectedOrReserved()
    {
        try (Fixture f = new Fixture(Fixture.loopbackWith("")))
        {
            final Fixture.Ep a = f.ep(null);
            assertSubtype(DatReturnSubtype.INVALID_STATE_EP_UNCONNECTED, expect(DatReturnType.INVALID_STATE,
                () -> a.ep().disconnect(CloseFlags.ABRUPT_FLAG)));
            final ReservedServicePoint rsp = f.ia.rspCreate(4712, a.ep(), f.evd(4, EvdFlags.CR_FLAG));
            assertSubtype(DatReturnSubtype.INVALID_STATE_EP_RESERVED, expect(DatReturnType.INVALID_STATE,
                () -> a.ep().disconnect(CloseFlags.GRACEFUL_FLAG)));
            rsp.free();
        }
    }

    // ------------------------------------------------------------------ dat_ep_free

    @Test
    void free_success_withAPostedReceiveReleasesPzAndEvds()
    {
        // dapltest FFT endpoint case 2: free an EP that has a posted receive
        try (Fixture f = new Fixture())
        {
            final Fixture.Ep a = f.ep(null);
            a.ep().postRecv(1, iov(f.lmr(LEN), 0, LEN), 1, 0);
            a.ep().free();
            assertSubtype(DatReturnSubtype.INVALID_HANDLE_EP, expect(DatReturnType.INVALID_HANDLE, a.ep()::free));
            a.recv().free();
            a.req().free();
            a.conn().free();
        }
    }

    @Test
    void free_success_connectedEndpointIsTornDownAndThePeerSeesDisconnected()
    {
        // trap T-19
        try (Fixture f = new Fixture())
        {
            final Fixture.Ep[] p = f.connectedPair(null);
            p[1].ep().postRecv(1, iov(f.lmr(LEN), 0, LEN), 5, 0);
            p[0].ep().free();
            connection(p[1], EventNumber.CONNECTION_EVENT_DISCONNECTED);
            dto(p[1].recv(), 5, DtoStatus.ERR_FLUSHED);
            assertEquals(EpState.DISCONNECTED, state(p[1].ep()));
        }
    }

    @Test
    void free_success_abortsAConnectionBeingSetUp()
    {
        try (Fixture f = new Fixture())
        {
            final Fixture.Ep a = f.ep(null);
            final Fixture.Ep b = f.ep(null);
            final EventDispatcher crEvd = f.evd(8, EvdFlags.CR_FLAG);
            final PublicServicePoint psp = f.ia.pspCreateAny(crEvd, PspFlags.CONSUMER_FLAG);
            Connecting.connect(f, a, psp.connQual(), null);
            final ConnectionRequest cr = request(crEvd).crArrival.crHandle;
            a.ep().free();
            cr.accept(b.ep(), null);
            connection(b, EventNumber.CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR);
        }
    }

    @Test
    void free_invalidHandle_freedTwice()
    {
        try (Fixture f = new Fixture())
        {
            final Endpoint ep = f.ia.epCreate(f.pz, null, null, null, null);
            ep.free();
            assertSubtype(DatReturnSubtype.INVALID_HANDLE_EP, expect(DatReturnType.INVALID_HANDLE, ep::free));
        }
    }

    @Test
    void free_invalidState_whenReservedOrPassiveConnectionPending()
    {
        try (Fixture f = new Fixture(Fixture.loopbackWith("")))
        {
            final Fixture.Ep a = f.ep(null);
            final Fixture.Ep b = f.ep(null);
            final EventDispatcher crEvd = f.evd(4, EvdFlags.CR_FLAG);
            final ReservedServicePoint rsp = f.ia.rspCreate(77, b.ep(), crEvd);
            assertSubtype(DatReturnSubtype.INVALID_STATE_EP_RESERVED,
                expect(DatReturnType.INVALID_STATE, b.ep()::free));
            Connecting.connect(f, a, 77, null);
            final ConnectionRequest cr = request(crEvd).crArrival.crHandle;
            assertEquals(EpState.PASSIVE_CONNECTION_PENDING, state(b.ep()));
            assertSubtype(DatReturnSubtype.INVALID_STATE_EP_PASSCONNPENDING,
                expect(DatReturnType.INVALID_STATE, b.ep()::free));
            // rejecting hands the endpoint back: now it can go
            cr.reject();
            assertEquals(EpState.UNCONNECTED, state(b.ep()));
            b.ep().free();
            rsp.free();
        }
    }

    @Test
    void free_invalidState_whenTentativeConnectionPending()
    {
        try (Fixture f = new Fixture(Fixture.loopbackWith("")))
        {
            final EventDispatcher crEvd = f.evd(4, EvdFlags.CR_FLAG);
            f.ia.pspCreate(78, crEvd, PspFlags.PROVIDER_FLAG);
            final Fixture.Ep a = f.ep(null);
            Connecting.connect(f, a, 78, null);
            final ConnectionRequest cr = request(crEvd).crArrival.crHandle;
            final CrParam cp = new CrParam();
            cr.query(CrParam.FIELD_LOCAL_EP_HANDLE, cp);
            final Endpoint tentative = cp.localEpHandle;
            assertEquals(EpState.TENTATIVE_CONNECTION_PENDING, state(tentative));
            assertSubtype(DatReturnSubtype.INVALID_STATE_EP_TENTCONNPENDING,
                expect(DatReturnType.INVALID_STATE, tentative::free));
            cr.reject();
            connection(a, EventNumber.CONNECTION_EVENT_PEER_REJECTED);
        }
    }

    // ------------------------------------------------------------------ dat_ep_get_status

    @Test
    void getStatus_success_reportsStateAndWhetherTheQueuesAreIdle()
    {
        try (Fixture f = new Fixture(); StalledDelivery s = new StalledDelivery(f))
        {
            final Fixture.Ep a = f.ep(null);
            final Fixture.Ep b = ep(f, s.recvEvd(f), null);
            final EpStatus st = new EpStatus();
            a.ep().getStatus(st);
            assertEquals(EpState.UNCONNECTED, st.epState);
            assertTrue(st.recvIdle);
            assertTrue(st.requestIdle);
            final Lmr lmr = f.lmr(2 * LEN);
            b.ep().postRecv(1, iov(lmr, 0, LEN), 100, 0);
            b.ep().getStatus(st);
            assertFalse(st.recvIdle);
            connect(f, a, b);
            s.stall(() -> a.ep().postSend(1, iov(lmr, LEN, 8), 1, 0));
            a.ep().getStatus(st);
            assertEquals(EpState.CONNECTED, st.epState);
            assertTrue(st.recvIdle);
            assertFalse(st.requestIdle);
            s.release();
            dto(a.req(), 1, DtoStatus.SUCCESS);
            a.ep().getStatus(st);
            assertTrue(st.requestIdle);
            b.ep().getStatus(st);
            assertTrue(st.recvIdle);
            // null means "not wanted"
            a.ep().getStatus(null);
        }
    }

    @Test
    void getStatus_invalidHandle_freedEndpoint()
    {
        try (Fixture f = new Fixture())
        {
            final Endpoint ep = f.ia.epCreate(f.pz, null, null, null, null);
            ep.free();
            assertSubtype(DatReturnSubtype.INVALID_HANDLE_EP,
                expect(DatReturnType.INVALID_HANDLE, () -> ep.getStatus(new EpStatus())));
        }
    }

    // ------------------------------------------------------------------ dat_ep_modify

    @Test
    void modify_success_changesOnlyTheMaskedParameters()
    {
        try (Fixture f = new Fixture())
        {
            final Fixture.Ep a = f.ep(null);
            final Fixture.Ep b = f.ep(null);
            final EventDispatcher newReq = f.evd(16, EvdFlags.DTO_FLAG);
            final EpParam set = new EpParam();
            set.requestEvdHandle = newReq;
            set.epAttr.maxRecvDtos = 3;
            set.epAttr.maxRequestDtos = 999;
            a.ep().modify(EpParam.FIELD_REQUEST_EVD_HANDLE | EpParam.FIELD_EP_ATTR_MAX_RECV_DTOS, set);
            final EpParam p = new EpParam();
            a.ep().query(EpParam.FIELD_ALL, p);
            assertSame(newReq, p.requestEvdHandle);
            assertSame(a.recv(), p.recvEvdHandle);
            assertEquals(3, p.epAttr.maxRecvDtos);
            assertEquals(new EpAttr().maxRequestDtos, p.epAttr.maxRequestDtos);
            // the old request EVD was let go, the new one takes the completions
            a.req().free();
            connect(f, a, b);
            final Lmr lmr = f.lmr(2 * LEN);
            b.ep().postRecv(1, iov(lmr, 0, LEN), 1, 0);
            a.ep().postSend(1, iov(lmr, LEN, 8), 2, 0);
            dto(newReq, 2, DtoStatus.SUCCESS);
            // three receives fit, a fourth does not
            for (int i = 0; i < 3; i++)
            {
                a.ep().postRecv(1, iov(lmr, 0, 8), 10 + i, 0);
            }
            expect(DatReturnType.INSUFFICIENT_RESOURCES, () -> a.ep().postRecv(1, iov(lmr, 0, 8), 13, 0));
        }
    }

    @Test
    void modify_success_pzWhileUnconnectedAndEvdsWhileReserved()
    {
        try (Fixture f = new Fixture(Fixture.loopbackWith("")))
        {
            final Fixture.Ep a = f.ep(null);
            final ProtectionZone pz2 = f.ia.pzCreate();
            final EpParam set = new EpParam();
            set.pzHandle = pz2;
            a.ep().modify(EpParam.FIELD_PZ_HANDLE, set);
            final EpParam p = new EpParam();
            a.ep().query(EpParam.FIELD_PZ_HANDLE, p);
            assertSame(pz2, p.pzHandle);
            // the old PZ is free to go, the new one is held
            f.pz.free();
            expect(DatReturnType.INVALID_STATE, pz2::free);
            final ReservedServicePoint rsp = f.ia.rspCreate(4713, a.ep(), f.evd(4, EvdFlags.CR_FLAG));
            final EventDispatcher conn = f.evd(4, EvdFlags.CONNECTION_FLAG);
            set.connectEvdHandle = conn;
            a.ep().modify(EpParam.FIELD_CONNECT_EVD_HANDLE, set);
            a.ep().query(EpParam.FIELD_CONNECT_EVD_HANDLE, p);
            assertSame(conn, p.connectEvdHandle);
            rsp.free();
        }
    }

    @Test
    void modify_newPz_receivePostedInTheOldPzCompletesWithLocalProtection()
    {
        // digest §2.8 dat_ep_modify: posted receives that do not match the new PZ fail
        try (Fixture f = new Fixture())
        {
            final Fixture.Ep a = f.ep(null);
            final Fixture.Ep b = f.ep(null);
            final Lmr lmr = f.lmr(2 * LEN);
            b.ep().postRecv(1, iov(lmr, 0, LEN), 5, 0);
            final EpParam set = new EpParam();
            set.pzHandle = f.ia.pzCreate();
            b.ep().modify(EpParam.FIELD_PZ_HANDLE, set);
            connect(f, a, b);
            a.ep().postSend(1, iov(lmr, LEN, 8), 1, 0);
            dto(b.recv(), 5, DtoStatus.ERR_LOCAL_PROTECTION);
            connection(b, EventNumber.CONNECTION_EVENT_BROKEN);
            connection(a, EventNumber.CONNECTION_EVENT_BROKEN);
            assertNotEquals(DtoStatus.SUCCESS, Connecting.event(a.req(), EventNumber.DTO_COMPLETION_EVENT).dto.status);
        }
    }

    @Test
    void modify_invalidHandle_freedEndpointOrFreedHandleInTheParameters()
    {
        try (Fixture f = new Fixture())
        {
            final Fixture.Ep a = f.ep(null);
            final EventDispatcher freed = f.evd(4, EvdFlags.DTO_FLAG);
            freed.free();
            final EpParam set = new EpParam();
            set.recvEvdHandle = freed;
            assertSubtype(DatReturnSubtype.INVALID_HANDLE_EVD_RECV, expect(DatReturnType.INVALID_HANDLE,
                () -> a.ep().modify(EpParam.FIELD_RECV_EVD_HANDLE, set)));
            final ProtectionZone freedPz = f.ia.pzCreate();
            freedPz.free();
            set.pzHandle = freedPz;
            assertSubtype(DatReturnSubtype.INVALID_HANDLE_PZ, expect(DatReturnType.INVALID_HANDLE,
                () -> a.ep().modify(EpParam.FIELD_PZ_HANDLE, set)));
            final EpParam p = new EpParam();
            a.ep().query(EpParam.FIELD_ALL, p);
            assertSame(a.recv(), p.recvEvdHandle);
            assertSame(f.pz, p.pzHandle);
            a.ep().free();
            assertSubtype(DatReturnSubtype.INVALID_HANDLE_EP, expect(DatReturnType.INVALID_HANDLE,
                () -> a.ep().modify(EpParam.FIELD_EP_ATTR_MAX_RECV_DTOS, new EpParam())));
        }
    }

    @Test
    void modify_invalidParameter_maskValueOrFieldThatNeverChanges()
    {
        try (Fixture f = new Fixture())
        {
            final Fixture.Ep a = f.ep(null);
            final EpParam set = new EpParam();
            set.epAttr.maxRecvDtos = 2;
            for (final long never : new long[] {EpParam.FIELD_IA_HANDLE, EpParam.FIELD_EP_STATE,
                EpParam.FIELD_LOCAL_IA_ADDRESS_PTR, EpParam.FIELD_LOCAL_PORT_QUAL, EpParam.FIELD_REMOTE_IA_ADDRESS_PTR,
                EpParam.FIELD_REMOTE_PORT_QUAL, EpParam.FIELD_SRQ_HANDLE, 0x800L, 1L << 40})
            {
                expect(DatReturnType.INVALID_PARAMETER,
                    () -> a.ep().modify(EpParam.FIELD_EP_ATTR_MAX_RECV_DTOS | never, set));
            }
            expect(DatReturnType.INVALID_PARAMETER, () -> a.ep().modify(EpParam.FIELD_EP_ATTR_MAX_RECV_DTOS, null));
            // a bad value makes the whole call fail: all or nothing
            set.epAttr.maxRequestIov = 1_000;
            expect(DatReturnType.INVALID_PARAMETER, () -> a.ep().modify(
                EpParam.FIELD_EP_ATTR_MAX_RECV_DTOS | EpParam.FIELD_EP_ATTR_MAX_REQUEST_IOV, set));
            set.epAttr.maxRequestIov = 1;
            set.epAttr.recvCompletionFlags = CompletionFlags.SUPPRESS_FLAG;
            expect(DatReturnType.INVALID_PARAMETER, () -> a.ep().modify(
                EpParam.FIELD_EP_ATTR_MAX_RECV_DTOS | EpParam.FIELD_EP_ATTR_RECV_COMPLETION_FLAGS, set));
            final EpParam p = new EpParam();
            a.ep().query(EpParam.FIELD_ALL, p);
            assertEquals(new EpAttr().maxRecvDtos, p.epAttr.maxRecvDtos);
            assertEquals(new EpAttr().maxRequestIov, p.epAttr.maxRequestIov);
            assertEquals(CompletionFlags.EVD_THRESHOLD_FLAG, p.epAttr.recvCompletionFlags);
        }
    }

    @Test
    void createAndModify_invalidParameter_anEvdWithMismatchedStreamsNamesItsArgument()
    {
        try (Fixture f = new Fixture(Fixture.loopbackWith("")))
        {
            final EventDispatcher solicited = f.evd(16, EvdFlags.DTO_FLAG | EvdFlags.CONNECTION_FLAG);
            f.ia.epCreate(f.pz, solicited, null, null,
                attr(x -> x.recvCompletionFlags = CompletionFlags.SOLICITED_WAIT_FLAG));
            // dat_ep_create(ia, pz, recv_evd, request_evd, connect_evd, ep_attributes, ep)
            assertSubtype(DatReturnSubtype.INVALID_ARG3, expect(DatReturnType.INVALID_PARAMETER,
                () -> f.ia.epCreate(f.pz, solicited, null, null, null)));
            assertSubtype(DatReturnSubtype.INVALID_ARG4, expect(DatReturnType.INVALID_PARAMETER,
                () -> f.ia.epCreate(f.pz, null, solicited, null, null)));
            assertSubtype(DatReturnSubtype.INVALID_ARG5, expect(DatReturnType.INVALID_PARAMETER,
                () -> f.ia.epCreate(f.pz, null, null, solicited, null)));
            // dat_ep_modify(ep, ep_param_mask, ep_param): the EVDs are fields of its third argument
            final Fixture.Ep a = f.ep(null);
            final ReservedServicePoint rsp = f.ia.rspCreate(4714, a.ep(), f.evd(4, EvdFlags.CR_FLAG));
            final EpParam set = new EpParam();
            set.requestEvdHandle = solicited;
            assertSubtype(DatReturnSubtype.INVALID_ARG3, expect(DatReturnType.INVALID_PARAMETER,
                () -> a.ep().modify(EpParam.FIELD_REQUEST_EVD_HANDLE, set)));
            set.connectEvdHandle = solicited;
            assertSubtype(DatReturnSubtype.INVALID_ARG3, expect(DatReturnType.INVALID_PARAMETER,
                () -> a.ep().modify(EpParam.FIELD_CONNECT_EVD_HANDLE, set)));
            rsp.free();
        }
    }

    @Test
    void modify_invalidState_whenConnectedOrTheFieldIsFixedInThisState()
    {
        try (Fixture f = new Fixture(Fixture.loopbackWith("")))
        {
            final Fixture.Ep[] p = f.connectedPair(null);
            final EpParam set = new EpParam();
            set.epAttr.maxRecvDtos = 2;
            assertSubtype(DatReturnSubtype.INVALID_STATE_EP_CONNECTED, expect(DatReturnType.INVALID_STATE,
                () -> p[0].ep().modify(EpParam.FIELD_EP_ATTR_MAX_RECV_DTOS, set)));
            // the PZ only while quiescent, not while RESERVED
            final Fixture.Ep c = f.ep(null);
            final ReservedServicePoint rsp = f.ia.rspCreate(4714, c.ep(), f.evd(4, EvdFlags.CR_FLAG));
            set.pzHandle = f.pz;
            assertSubtype(DatReturnSubtype.INVALID_STATE_EP_RESERVED, expect(DatReturnType.INVALID_STATE,
                () -> c.ep().modify(EpParam.FIELD_PZ_HANDLE, set)));
            rsp.free();
            // recv_completion_flags only before the first receive was posted
            c.ep().postRecv(1, iov(f.lmr(LEN), 0, LEN), 1, 0);
            set.epAttr.recvCompletionFlags = CompletionFlags.SOLICITED_WAIT_FLAG;
            expect(DatReturnType.INVALID_STATE, () -> c.ep().modify(EpParam.FIELD_EP_ATTR_RECV_COMPLETION_FLAGS, set));
            final EpParam q = new EpParam();
            c.ep().query(EpParam.FIELD_ALL, q);
            assertEquals(CompletionFlags.EVD_THRESHOLD_FLAG, q.epAttr.recvCompletionFlags);
        }
    }

    // ------------------------------------------------------------------ dat_ep_post_send

    @Test
    void postSend_success_gathersTheSegmentsInOrderAndCompletesBothSides()
    {
        try (Fixture f = new Fixture())
        {
            final Fixture.Ep[] p = f.connectedPair(null);
            final Lmr src = f.lmr(256);
            final Lmr dst = f.lmr(256);
            pattern(src.memory(), 1);
            dst.memory().fill((byte) 0xEE);
            p[1].ep().postRecv(1, iov(dst, 0, 100), 7, 0);
            final LmrTriplet[] gather = {LmrTriplet.of(src, 0, 10), LmrTriplet.of(src, 50, 20),
                LmrTriplet.of(src, 200, 30)};
            p[0].ep().postSend(3, gather, 9, CompletionFlags.DEFAULT_FLAG);
            // the iov array is the consumer's again on return
            gather[0].segmentLength = 0;
            final DatEvent sent = dto(p[0].req(), 9, DtoStatus.SUCCESS);
            assertSame(p[0].ep(), sent.dto.epHandle);
            assertSame(p[0].req(), sent.evdHandle);
            assertEquals(60, sent.dto.transferredLength);
            final DatEvent got = dto(p[1].recv(), 7, DtoStatus.SUCCESS);
            assertSame(p[1].ep(), got.dto.epHandle);
            assertEquals(60, got.dto.transferredLength);
            assertArrayEquals(bytes(src, 0, 10), bytes(dst, 0, 10));
            assertArrayEquals(bytes(src, 50, 20), bytes(dst, 10, 20));
            assertArrayEquals(bytes(src, 200, 30), bytes(dst, 30, 30));
            assertArrayEquals(filled(196, 0xEE), bytes(dst, 60, 196));
        }
    }

    @Test
    void postSend_success_zeroLengthMessage()
    {
        try (Fixture f = new Fixture())
        {
            final Fixture.Ep[] p = f.connectedPair(null);
            p[1].ep().postRecv(1, iov(f.lmr(LEN), 0, LEN), 1, 0);
            p[0].ep().postSend(0, null, 2, 0);
            assertEquals(0, dto(p[0].req(), 2, DtoStatus.SUCCESS).dto.transferredLength);
            assertEquals(0, dto(p[1].recv(), 1, DtoStatus.SUCCESS).dto.transferredLength);
            // zero-length segments are not looked at (trap T-30)
            p[1].ep().postRecv(0, null, 3, 0);
            p[0].ep().postSend(1, new LmrTriplet[] {new LmrTriplet(0xDEAD, 12, 0)}, 4, 0);
            dto(p[0].req(), 4, DtoStatus.SUCCESS);
            dto(p[1].recv(), 3, DtoStatus.SUCCESS);
        }
    }

    @Test
    void postSend_success_flushedAtOnceWhenDisconnected()
    {
        try (Fixture f = new Fixture())
        {
            final Fixture.Ep[] p = disconnectedPair(f);
            p[0].ep().postSend(1, iov(f.lmr(LEN), 0, 8), 5, CompletionFlags.SUPPRESS_FLAG);
            // flushed completions are reported even when suppressed (trap T-9)
            dto(p[0].req(), 5, DtoStatus.ERR_FLUSHED);
        }
    }

    @Test
    void postSend_success_suppressedCompletionHasNoEvent()
    {
        try (Fixture f = new Fixture())
        {
            final Fixture.Ep[] p = f.connectedPair(null);
            final Lmr lmr = f.lmr(4 * LEN);
            p[1].ep().postRecv(1, iov(lmr, 0, LEN), 1, 0);
            p[1].ep().postRecv(1, iov(lmr, LEN, LEN), 2, 0);
            p[0].ep().postSend(1, iov(lmr, 2 * LEN, 8), 10, CompletionFlags.SUPPRESS_FLAG);
            p[0].ep().postSend(1, iov(lmr, 2 * LEN, 8), 11, 0);
            dto(p[0].req(), 11, DtoStatus.SUCCESS);
            assertEmpty(p[0].req());
            // the receiver is not affected
            dto(p[1].recv(), 1, DtoStatus.SUCCESS);
            dto(p[1].recv(), 2, DtoStatus.SUCCESS);
        }
    }

    @Test
    void postSend_success_unsignalledCompletionIsQueuedButDoesNotNotify()
    {
        try (Fixture f = new Fixture())
        {
            final Fixture.Ep a = f.ep(attr(x -> x.requestCompletionFlags = CompletionFlags.UNSIGNALLED_FLAG));
            final Fixture.Ep b = f.ep(null);
            connect(f, a, b);
            final Lmr lmr = f.lmr(4 * LEN);
            b.ep().postRecv(1, iov(lmr, 0, LEN), 1, 0);
            b.ep().postRecv(1, iov(lmr, LEN, LEN), 2, 0);
            a.ep().postSend(1, iov(lmr, 2 * LEN, 8), 10, CompletionFlags.UNSIGNALLED_FLAG);
            dto(b.recv(), 1, DtoStatus.SUCCESS);
            assertNoNotification(a.req(), 1);
            // a default post on an unsignalled EP notifies, and the waiter gets the oldest event first
            a.ep().postSend(1, iov(lmr, 2 * LEN, 8), 11, 0);
            dto(a.req(), 10, DtoStatus.SUCCESS);
            final DatEvent ev = new DatEvent();
            assertEquals(DatStatus.SUCCESS, a.req().dequeue(ev));
            assertEquals(11, ev.dto.userCookie);
        }
    }

    @Test
    void postSend_success_errorCompletionOfAnUnsignalledPostNotifies()
    {
        // trap T-9: only successful completions are suppressed or unsignalled
        try (Fixture f = new Fixture())
        {
            final Fixture.Ep a = f.ep(attr(x -> x.requestCompletionFlags = CompletionFlags.UNSIGNALLED_FLAG));
            final Fixture.Ep b = f.ep(null);
            connect(f, a, b);
            // no receive at the peer
            a.ep().postSend(1, iov(f.lmr(LEN), 0, 8), 10,
                CompletionFlags.UNSIGNALLED_FLAG | CompletionFlags.SUPPRESS_FLAG);
            dto(a.req(), 10, DtoStatus.ERR_RECEIVER_NOT_READY);
        }
    }

    @Test
    void postSend_success_solicitedWaitNotifiesAReceiverThatWaitsForSolicitedEvents()
    {
        try (Fixture f = new Fixture())
        {
            final Fixture.Ep a = f.ep(null);
            final Fixture.Ep b = f.ep(attr(x -> x.recvCompletionFlags = CompletionFlags.SOLICITED_WAIT_FLAG));
            connect(f, a, b);
            final Lmr lmr = f.lmr(4 * LEN);
            b.ep().postRecv(1, iov(lmr, 0, LEN), 1, 0);
            b.ep().postRecv(1, iov(lmr, LEN, LEN), 2, 0);
            a.ep().postSend(1, iov(lmr, 2 * LEN, 8), 10, 0);
            dto(a.req(), 10, DtoStatus.SUCCESS);
            // an unsolicited receive is queued but wakes nobody
            assertNoNotification(b.recv(), 1);
            a.ep().postSend(1, iov(lmr, 2 * LEN, 8), 11, CompletionFlags.SOLICITED_WAIT_FLAG);
            dto(a.req(), 11, DtoStatus.SUCCESS);
            dto(b.recv(), 1, DtoStatus.SUCCESS);
            final DatEvent ev = new DatEvent();
            assertEquals(DatStatus.SUCCESS, b.recv().dequeue(ev));
            assertEquals(2, ev.dto.userCookie);
        }
    }

    @Test
    void postSend_success_dtoErrReceiverNotReadyWhenThePeerHasNoReceive()
    {
        try (Fixture f = new Fixture())
        {
            final Fixture.Ep[] p = f.connectedPair(null);
            final Lmr lmr = f.lmr(LEN);
            p[0].ep().postSend(1, iov(lmr, 0, 8), 1, 0);
            dto(p[0].req(), 1, DtoStatus.ERR_RECEIVER_NOT_READY);
            connection(p[0], EventNumber.CONNECTION_EVENT_BROKEN);
            connection(p[1], EventNumber.CONNECTION_EVENT_BROKEN);
            // what is posted later is flushed
            p[0].ep().postSend(1, iov(lmr, 0, 8), 2, 0);
            dto(p[0].req(), 2, DtoStatus.ERR_FLUSHED);
        }
    }

    @Test
    void postSend_invalidHandle_freedEndpoint()
    {
        try (Fixture f = new Fixture())
        {
            final Fixture.Ep[] p = f.connectedPair(null);
            final Lmr lmr = f.lmr(LEN);
            p[0].ep().free();
            assertSubtype(DatReturnSubtype.INVALID_HANDLE_EP, expect(DatReturnType.INVALID_HANDLE,
                () -> p[0].ep().postSend(1, iov(lmr, 0, 8), 1, 0)));
        }
    }

    @Test
    void postSend_invalidState_whenUnconnected()
    {
        try (Fixture f = new Fixture())
        {
            final Fixture.Ep a = f.ep(null);
            final Lmr lmr = f.lmr(LEN);
            assertSubtype(DatReturnSubtype.INVALID_STATE_EP_UNCONNECTED, expect(DatReturnType.INVALID_STATE,
                () -> a.ep().postSend(1, iov(lmr, 0, 8), 1, 0)));
            assertEmpty(a.req());
        }
    }

    @Test
    void postSend_invalidState_whenConnectionPending()
    {
        try (Fixture f = new Fixture())
        {
            final Fixture.Ep a = f.ep(null);
            final EventDispatcher crEvd = f.evd(8, EvdFlags.CR_FLAG);
            final PublicServicePoint psp = f.ia.pspCreateAny(crEvd, PspFlags.CONSUMER_FLAG);
            Connecting.connect(f, a, psp.connQual(), null);
            final Lmr lmr = f.lmr(LEN);
            assertSubtype(DatReturnSubtype.INVALID_STATE_EP_ACTCONNPENDING, expect(DatReturnType.INVALID_STATE,
                () -> a.ep().postSend(1, iov(lmr, 0, 8), 1, 0)));
        }
    }

    @Test
    void postSend_invalidParameter_flagsSegmentsOrSize()
    {
        try (Fixture f = new Fixture())
        {
            final Fixture.Ep[] p = f.connectedPair(attr(a ->
            {
                a.maxMessageSize = 32;
                a.maxRequestIov = 2;
            }));
            final Endpoint ep = p[0].ep();
            final Lmr lmr = f.lmr(LEN);
            expect(DatReturnType.INVALID_PARAMETER, () -> ep.postSend(1, iov(lmr, 0, 8), 1, 0x100));
            expect(DatReturnType.INVALID_PARAMETER,
                () -> ep.postSend(1, iov(lmr, 0, 8), 1, CompletionFlags.EVD_THRESHOLD_FLAG));
            // UNSIGNALLED needs request_completion_flags UNSIGNALLED
            expect(DatReturnType.INVALID_PARAMETER,
                () -> ep.postSend(1, iov(lmr, 0, 8), 1, CompletionFlags.UNSIGNALLED_FLAG));
            final LmrTriplet[] three = {LmrTriplet.of(lmr, 0, 1), LmrTriplet.of(lmr, 1, 1), LmrTriplet.of(lmr, 2, 1)};
            expect(DatReturnType.INVALID_PARAMETER, () -> ep.postSend(3, three, 1, 0));
            expect(DatReturnType.INVALID_PARAMETER, () -> ep.postSend(-1, three, 1, 0));
            expect(DatReturnType.INVALID_PARAMETER, () -> ep.postSend(2, iov(lmr, 0, 8), 1, 0));
            expect(DatReturnType.INVALID_PARAMETER, () -> ep.postSend(1, null, 1, 0));
            // a segment outside its LMR
            expect(DatReturnType.INVALID_PARAMETER, () -> ep.postSend(1, iov(lmr, LEN - 4, 8), 1, 0));
            // above max_message_size
            expect(DatReturnType.INVALID_PARAMETER, () -> ep.postSend(1, iov(lmr, 0, 33), 1, 0));
            assertEmpty(p[0].req());
            assertEquals(EpState.CONNECTED, state(ep));
        }
    }

    @Test
    void postSend_insufficientResources_whenMaxRequestDtosAreOutstanding()
    {
        try (Fixture f = new Fixture(); StalledDelivery s = new StalledDelivery(f))
        {
            final Fixture.Ep a = f.ep(attr(x -> x.maxRequestDtos = 2));
            final Fixture.Ep b = ep(f, s.recvEvd(f), null);
            connect(f, a, b);
            final Lmr lmr = f.lmr(4 * LEN);
            for (int i = 0; i < 3; i++)
            {
                b.ep().postRecv(1, iov(lmr, (long) i * LEN, LEN), 100 + i, 0);
            }
            s.stall(() -> a.ep().postSend(1, iov(lmr, 3 * LEN, 8), 1, 0));
            a.ep().postSend(1, iov(lmr, 3 * LEN, 8), 2, 0);
            assertSubtype(DatReturnSubtype.RESOURCE_TEP, expect(DatReturnType.INSUFFICIENT_RESOURCES,
                () -> a.ep().postSend(1, iov(lmr, 3 * LEN, 8), 3, 0)));
            s.release();
            dto(a.req(), 1, DtoStatus.SUCCESS);
            dto(a.req(), 2, DtoStatus.SUCCESS);
            // room again
            a.ep().postSend(1, iov(lmr, 3 * LEN, 8), 4, 0);
            dto(a.req(), 4, DtoStatus.SUCCESS);
        }
    }

    @Test
    void postSend_protectionViolation_lmrOfAnotherPz()
    {
        try (Fixture f = new Fixture())
        {
            final Fixture.Ep[] p = f.connectedPair(null);
            final ProtectionZone other = f.ia.pzCreate();
            final Lmr foreign = f.ia.lmrCreate(io.jdat.MemType.VIRTUAL,
                io.jdat.RegionDescription.forVa(f.memory(LEN)), LEN, other, MemPriv.ALL_FLAG);
            expect(DatReturnType.PROTECTION_VIOLATION, () -> p[0].ep().postSend(1, iov(foreign, 0, 8), 1, 0));
            assertEmpty(p[0].req());
        }
    }

    @Test
    void postSend_privilegesViolation_lmrContextThatNamesNoLmr()
    {
        try (Fixture f = new Fixture())
        {
            final Fixture.Ep[] p = f.connectedPair(null);
            final Lmr gone = f.lmr(LEN);
            final LmrTriplet[] stale = iov(gone, 0, 8);
            gone.free();
            expect(DatReturnType.PRIVILEGES_VIOLATION, () -> p[0].ep().postSend(1, stale, 1, 0));
            assertEmpty(p[0].req());
        }
    }

    // ------------------------------------------------------------------ dat_ep_post_recv

    @Test
    void postRecv_success_fillsLeadingSegmentsFirstAndLeavesTheRestUntouched()
    {
        try (Fixture f = new Fixture())
        {
            final Fixture.Ep[] p = f.connectedPair(null);
            final Lmr src = f.lmr(LEN);
            final Lmr dst = f.lmr(256);
            pattern(src.memory(), 3);
            dst.memory().fill((byte) 0xEE);
            final LmrTriplet[] scatter = {LmrTriplet.of(dst, 0, 20), LmrTriplet.of(dst, 100, 30),
                LmrTriplet.of(dst, 200, 30)};
            p[1].ep().postRecv(3, scatter, 4, 0);
            p[0].ep().postSend(1, iov(src, 0, 40), 1, 0);
            assertEquals(40, dto(p[1].recv(), 4, DtoStatus.SUCCESS).dto.transferredLength);
            assertArrayEquals(bytes(src, 0, 20), bytes(dst, 0, 20));
            assertArrayEquals(bytes(src, 20, 20), bytes(dst, 100, 20));
            assertArrayEquals(filled(80, 0xEE), bytes(dst, 20, 80));
            assertArrayEquals(filled(136, 0xEE), bytes(dst, 120, 136));
        }
    }

    @Test
    void postRecv_success_prePostedBeforeConnectingReceivesTheFirstMessage()
    {
        try (Fixture f = new Fixture())
        {
            final Fixture.Ep a = f.ep(null);
            final Fixture.Ep b = f.ep(null);
            final Lmr lmr = f.lmr(2 * LEN);
            b.ep().postRecv(1, iov(lmr, 0, LEN), 1, 0);
            connect(f, a, b);
            a.ep().postSend(1, iov(lmr, LEN, 8), 2, 0);
            dto(b.recv(), 1, DtoStatus.SUCCESS);
        }
    }

    @Test
    void postRecv_success_flushedAtOnceWhenDisconnected()
    {
        try (Fixture f = new Fixture())
        {
            final Fixture.Ep[] p = disconnectedPair(f);
            p[1].ep().postRecv(1, iov(f.lmr(LEN), 0, LEN), 6, 0);
            dto(p[1].recv(), 6, DtoStatus.ERR_FLUSHED);
        }
    }

    @Test
    void postRecv_success_unsignalledIsQueuedButDoesNotNotify()
    {
        // trap T-17: the software provider accepts unsignalled receives
        try (Fixture f = new Fixture())
        {
            final Fixture.Ep a = f.ep(null);
            final Fixture.Ep b = f.ep(attr(x -> x.recvCompletionFlags = CompletionFlags.UNSIGNALLED_FLAG));
            connect(f, a, b);
            final Lmr lmr = f.lmr(4 * LEN);
            b.ep().postRecv(1, iov(lmr, 0, LEN), 1, CompletionFlags.UNSIGNALLED_FLAG);
            b.ep().postRecv(1, iov(lmr, LEN, LEN), 2, CompletionFlags.DEFAULT_FLAG);
            a.ep().postSend(1, iov(lmr, 2 * LEN, 8), 10, 0);
            dto(a.req(), 10, DtoStatus.SUCCESS);
            assertNoNotification(b.recv(), 1);
            a.ep().postSend(1, iov(lmr, 2 * LEN, 8), 11, 0);
            dto(b.recv(), 1, DtoStatus.SUCCESS);
            final DatEvent ev = new DatEvent();
            assertEquals(DatStatus.SUCCESS, b.recv().dequeue(ev));
            assertEquals(2, ev.dto.userCookie);
        }
    }

    @Test
    void postRecv_invalidHandle_freedEndpoint()
    {
        try (Fixture f = new Fixture())
        {
            final Endpoint ep = f.ia.epCreate(f.pz, null, null, null, null);
            final Lmr lmr = f.lmr(LEN);
            ep.free();
            assertSubtype(DatReturnSubtype.INVALID_HANDLE_EP,
                expect(DatReturnType.INVALID_HANDLE, () -> ep.postRecv(1, iov(lmr, 0, LEN), 1, 0)));
        }
    }

    @Test
    void postRecv_invalidParameter_flagsOrSegments()
    {
        try (Fixture f = new Fixture())
        {
            final Fixture.Ep a = f.ep(attr(x -> x.maxRecvIov = 2));
            final Lmr lmr = f.lmr(LEN);
            // only UNSIGNALLED may be given, and only to an unsignalled receive queue
            for (final int flags : new int[] {CompletionFlags.SUPPRESS_FLAG, CompletionFlags.SOLICITED_WAIT_FLAG,
                CompletionFlags.BARRIER_FENCE_FLAG, CompletionFlags.UNSIGNALLED_FLAG})
            {
                expect(DatReturnType.INVALID_PARAMETER, () -> a.ep().postRecv(1, iov(lmr, 0, LEN), 1, flags));
            }
            final LmrTriplet[] three = {LmrTriplet.of(lmr, 0, 1), LmrTriplet.of(lmr, 1, 1), LmrTriplet.of(lmr, 2, 1)};
            expect(DatReturnType.INVALID_PARAMETER, () -> a.ep().postRecv(3, three, 1, 0));
            expect(DatReturnType.INVALID_PARAMETER, () -> a.ep().postRecv(1, iov(lmr, 1, LEN), 1, 0));
            expect(DatReturnType.INVALID_PARAMETER, () -> a.ep().postRecv(1, null, 1, 0));
            final DatCount n = new DatCount();
            a.ep().recvQuery(n, null);
            assertEquals(0, n.value);
        }
    }

    @Test
    void postRecv_insufficientResources_whenMaxRecvDtosArePosted()
    {
        try (Fixture f = new Fixture())
        {
            final Fixture.Ep a = f.ep(attr(x -> x.maxRecvDtos = 2));
            final Lmr lmr = f.lmr(LEN);
            a.ep().postRecv(1, iov(lmr, 0, 8), 1, 0);
            a.ep().postRecv(1, iov(lmr, 8, 8), 2, 0);
            assertSubtype(DatReturnSubtype.RESOURCE_TEP, expect(DatReturnType.INSUFFICIENT_RESOURCES,
                () -> a.ep().postRecv(1, iov(lmr, 16, 8), 3, 0)));
        }
    }

    @Test
    void postRecv_protectionViolation_lmrOfAnotherPz()
    {
        try (Fixture f = new Fixture())
        {
            final Fixture.Ep a = f.ep(null);
            final Lmr foreign = f.ia.lmrCreate(io.jdat.MemType.VIRTUAL,
                io.jdat.RegionDescription.forVa(f.memory(LEN)), LEN, f.ia.pzCreate(), MemPriv.ALL_FLAG);
            assertSubtype(DatReturnSubtype.PROTECTION_WRITE, expect(DatReturnType.PROTECTION_VIOLATION,
                () -> a.ep().postRecv(1, iov(foreign, 0, LEN), 1, 0)));
        }
    }

    @Test
    void postRecv_privilegesViolation_lmrWithoutLocalWriteOrUnknown()
    {
        // trap T-31: a receive writes memory, so it needs local write
        try (Fixture f = new Fixture())
        {
            final Fixture.Ep a = f.ep(null);
            final Lmr readOnly = f.lmr(f.memory(LEN), MemPriv.LOCAL_READ_FLAG | MemPriv.REMOTE_READ_FLAG);
            assertSubtype(DatReturnSubtype.PRIVILEGES_WRITE, expect(DatReturnType.PRIVILEGES_VIOLATION,
                () -> a.ep().postRecv(1, iov(readOnly, 0, LEN), 1, 0)));
            final LmrTriplet[] bogus = {new LmrTriplet(0, readOnly.registeredAddress(), 8)};
            expect(DatReturnType.PRIVILEGES_VIOLATION, () -> a.ep().postRecv(1, bogus, 1, 0));
        }
    }

    @Test
    void postRecv_invalidState_onSrqEndpoint()
    {
        try (Fixture f = new Fixture())
        {
            final SharedReceiveQueue srq = f.ia.srqCreate(f.pz, new SrqAttr(4, 1));
            final Fixture.Ep a = srqEp(f, f.pz, srq, new EpAttr());
            expect(DatReturnType.INVALID_STATE, () -> a.ep().postRecv(1, iov(f.lmr(LEN), 0, LEN), 1, 0));
        }
    }

    @Test
    void postRecv_dtoErrLocalLength_whenTheMessageIsLongerThanTheBuffer()
    {
        try (Fixture f = new Fixture())
        {
            final Fixture.Ep[] p = f.connectedPair(null);
            final Lmr lmr = f.lmr(4 * LEN);
            p[1].ep().postRecv(1, iov(lmr, 0, 16), 1, 0);
            p[1].ep().postRecv(1, iov(lmr, LEN, LEN), 2, 0);
            p[0].ep().postSend(1, iov(lmr, 2 * LEN, 17), 10, 0);
            dto(p[1].recv(), 1, DtoStatus.ERR_LOCAL_LENGTH);
            dto(p[1].recv(), 2, DtoStatus.ERR_FLUSHED);
            connection(p[1], EventNumber.CONNECTION_EVENT_BROKEN);
            connection(p[0], EventNumber.CONNECTION_EVENT_BROKEN);
            dto(p[0].req(), 10, DtoStatus.ERR_REMOTE_RESPONDER);
        }
    }

    @Test
    void postRecv_dtoErrLocalProtection_whenTheLmrWasFreedAfterPosting()
    {
        try (Fixture f = new Fixture())
        {
            final Fixture.Ep[] p = f.connectedPair(null);
            final Lmr buffer = f.lmr(LEN);
            final Lmr src = f.lmr(LEN);
            p[1].ep().postRecv(1, iov(buffer, 0, LEN), 1, 0);
            buffer.free();
            p[0].ep().postSend(1, iov(src, 0, 8), 10, 0);
            dto(p[1].recv(), 1, DtoStatus.ERR_LOCAL_PROTECTION);
            connection(p[1], EventNumber.CONNECTION_EVENT_BROKEN);
            connection(p[0], EventNumber.CONNECTION_EVENT_BROKEN);
            assertNotEquals(DtoStatus.SUCCESS,
                Connecting.event(p[0].req(), EventNumber.DTO_COMPLETION_EVENT).dto.status);
        }
    }

    // ------------------------------------------------------------------ dat_ep_post_rdma_write

    @Test
    void postRdmaWrite_success_placesTheBytesWithoutAnEventAtTheTarget()
    {
        try (Fixture f = new Fixture())
        {
            final Fixture.Ep[] p = f.connectedPair(null);
            final Lmr src = f.lmr(256);
            final Lmr dst = f.lmr(256);
            pattern(src.memory(), 5);
            dst.memory().fill((byte) 0xEE);
            p[0].ep().postRdmaWrite(2, new LmrTriplet[] {LmrTriplet.of(src, 0, 30), LmrTriplet.of(src, 100, 20)}, 1,
                remote(dst, 16, 60), 0);
            assertEquals(50, dto(p[0].req(), 1, DtoStatus.SUCCESS).dto.transferredLength);
            assertArrayEquals(bytes(src, 0, 30), bytes(dst, 16, 30));
            assertArrayEquals(bytes(src, 100, 20), bytes(dst, 46, 20));
            assertArrayEquals(filled(16, 0xEE), bytes(dst, 0, 16));
            assertArrayEquals(filled(190, 0xEE), bytes(dst, 66, 190));
            assertEmpty(p[1].recv());
            // a later Send's receive sees the written bytes (trap T-7)
            p[1].ep().postRecv(1, iov(dst, 200, 8), 2, 0);
            p[0].ep().postRdmaWrite(1, iov(src, 200, 8), 3, remote(dst, 100, 8), CompletionFlags.SUPPRESS_FLAG);
            p[0].ep().postSend(0, null, 4, 0);
            dto(p[0].req(), 4, DtoStatus.SUCCESS);
            dto(p[1].recv(), 2, DtoStatus.SUCCESS);
            assertArrayEquals(bytes(src, 200, 8), bytes(dst, 100, 8));
        }
    }

    @Test
    void postRdmaWrite_success_flushedAtOnceWhenDisconnected()
    {
        try (Fixture f = new Fixture())
        {
            final Fixture.Ep[] p = disconnectedPair(f);
            final Lmr lmr = f.lmr(2 * LEN);
            p[0].ep().postRdmaWrite(1, iov(lmr, 0, 8), 5, remote(lmr, LEN, 8), 0);
            dto(p[0].req(), 5, DtoStatus.ERR_FLUSHED);
        }
    }

    @Test
    void postRdmaWrite_invalidHandle_freedEndpoint()
    {
        try (Fixture f = new Fixture())
        {
            final Fixture.Ep[] p = f.connectedPair(null);
            final Lmr lmr = f.lmr(2 * LEN);
            p[0].ep().free();
            assertSubtype(DatReturnSubtype.INVALID_HANDLE_EP, expect(DatReturnType.INVALID_HANDLE,
                () -> p[0].ep().postRdmaWrite(1, iov(lmr, 0, 8), 1, remote(lmr, LEN, 8), 0)));
        }
    }

    @Test
    void postRdmaWrite_invalidState_whenUnconnected()
    {
        try (Fixture f = new Fixture())
        {
            final Fixture.Ep a = f.ep(null);
            final Lmr lmr = f.lmr(2 * LEN);
            assertSubtype(DatReturnSubtype.INVALID_STATE_EP_UNCONNECTED, expect(DatReturnType.INVALID_STATE,
                () -> a.ep().postRdmaWrite(1, iov(lmr, 0, 8), 1, remote(lmr, LEN, 8), 0)));
        }
    }

    @Test
    void postRdmaWrite_invalidParameter_remoteBufferSegmentsFlagsOrSize()
    {
        try (Fixture f = new Fixture())
        {
            final Fixture.Ep[] p = f.connectedPair(attr(a ->
            {
                a.maxRdmaWriteIov = 1;
                a.maxRdmaSize = 32;
            }));
            final Endpoint ep = p[0].ep();
            final Lmr lmr = f.lmr(4 * LEN);
            final RmrTriplet there = remote(lmr, 2 * LEN, LEN);
            expect(DatReturnType.INVALID_PARAMETER, () -> ep.postRdmaWrite(1, iov(lmr, 0, 8), 1, null, 0));
            expect(DatReturnType.INVALID_PARAMETER, () -> ep.postRdmaWrite(2,
                new LmrTriplet[] {LmrTriplet.of(lmr, 0, 4), LmrTriplet.of(lmr, 4, 4)}, 1, there, 0));
            expect(DatReturnType.INVALID_PARAMETER, () -> ep.postRdmaWrite(1, iov(lmr, 0, 8), 1, there, 0x20));
            expect(DatReturnType.INVALID_PARAMETER,
                () -> ep.postRdmaWrite(1, iov(lmr, 0, 8), 1, there, CompletionFlags.UNSIGNALLED_FLAG));
            expect(DatReturnType.INVALID_PARAMETER, () -> ep.postRdmaWrite(1, iov(lmr, 4 * LEN - 4, 8), 1, there, 0));
            // above max_rdma_size
            expect(DatReturnType.INVALID_PARAMETER, () -> ep.postRdmaWrite(1, iov(lmr, 0, 33), 1, there, 0));
            assertEmpty(p[0].req());
        }
    }

    @Test
    void postRdmaWrite_lengthError_whenTheRemoteBufferIsTooSmall()
    {
        try (Fixture f = new Fixture())
        {
            final Fixture.Ep[] p = f.connectedPair(null);
            final Lmr lmr = f.lmr(2 * LEN);
            expect(DatReturnType.LENGTH_ERROR,
                () -> p[0].ep().postRdmaWrite(1, iov(lmr, 0, 9), 1, remote(lmr, LEN, 8), 0));
            assertEmpty(p[0].req());
        }
    }

    @Test
    void postRdmaWrite_insufficientResources_whenMaxRequestDtosAreOutstanding()
    {
        try (Fixture f = new Fixture(); StalledDelivery s = new StalledDelivery(f))
        {
            final Fixture.Ep a = f.ep(attr(x -> x.maxRequestDtos = 2));
            final Fixture.Ep b = ep(f, s.recvEvd(f), null);
            connect(f, a, b);
            final Lmr lmr = f.lmr(4 * LEN);
            b.ep().postRecv(1, iov(lmr, 0, LEN), 100, 0);
            s.stall(() -> a.ep().postSend(1, iov(lmr, 3 * LEN, 8), 1, 0));
            a.ep().postRdmaWrite(1, iov(lmr, 3 * LEN, 8), 2, remote(lmr, 2 * LEN, 8), 0);
            expect(DatReturnType.INSUFFICIENT_RESOURCES,
                () -> a.ep().postRdmaWrite(1, iov(lmr, 3 * LEN, 8), 3, remote(lmr, 2 * LEN, 8), 0));
            s.release();
            dto(a.req(), 1, DtoStatus.SUCCESS);
            dto(a.req(), 2, DtoStatus.SUCCESS);
        }
    }

    @Test
    void postRdmaWrite_protectionViolation_lmrOfAnotherPz()
    {
        try (Fixture f = new Fixture())
        {
            final Fixture.Ep[] p = f.connectedPair(null);
            final Lmr lmr = f.lmr(LEN);
            final Lmr foreign = f.ia.lmrCreate(io.jdat.MemType.VIRTUAL,
                io.jdat.RegionDescription.forVa(f.memory(LEN)), LEN, f.ia.pzCreate(), MemPriv.ALL_FLAG);
            expect(DatReturnType.PROTECTION_VIOLATION,
                () -> p[0].ep().postRdmaWrite(1, iov(foreign, 0, 8), 1, remote(lmr, 0, 8), 0));
        }
    }

    @Test
    void postRdmaWrite_privilegesViolation_lmrContextThatNamesNoLmr()
    {
        try (Fixture f = new Fixture())
        {
            final Fixture.Ep[] p = f.connectedPair(null);
            final Lmr lmr = f.lmr(LEN);
            final LmrTriplet[] bogus = {new LmrTriplet(0, lmr.registeredAddress(), 8)};
            expect(DatReturnType.PRIVILEGES_VIOLATION,
                () -> p[0].ep().postRdmaWrite(1, bogus, 1, remote(lmr, 0, 8), 0));
        }
    }

    @Test
    void postRdmaWrite_dtoErrRemoteAccess_whenTheTargetLacksRemoteWrite()
    {
        try (Fixture f = new Fixture())
        {
            final Fixture.Ep[] p = f.connectedPair(null);
            final Lmr src = f.lmr(LEN);
            final Lmr target = f.lmr(f.memory(LEN), MemPriv.LOCAL_WRITE_FLAG | MemPriv.REMOTE_READ_FLAG);
            pattern(src.memory(), 1);
            p[0].ep().postRdmaWrite(1, iov(src, 0, 8), 1, remote(target, 0, 8), 0);
            dto(p[0].req(), 1, DtoStatus.ERR_REMOTE_ACCESS);
            connection(p[0], EventNumber.CONNECTION_EVENT_BROKEN);
            connection(p[1], EventNumber.CONNECTION_EVENT_BROKEN);
            assertArrayEquals(new byte[LEN], bytes(target, 0, LEN));
        }
    }

    @Test
    void postRdmaWrite_dtoErrRemoteAccess_whenTheTargetRangeLeavesTheRegion()
    {
        try (Fixture f = new Fixture())
        {
            final Fixture.Ep[] p = f.connectedPair(null);
            final Lmr src = f.lmr(LEN);
            final Lmr target = f.lmr(LEN);
            pattern(src.memory(), 1);
            p[0].ep().postRdmaWrite(1, iov(src, 0, 16), 1, remote(target, LEN - 8, 16), 0);
            p[0].ep().postRdmaWrite(1, iov(src, 0, 16), 2, remote(target, 0, 16), 0);
            dto(p[0].req(), 1, DtoStatus.ERR_REMOTE_ACCESS);
            dto(p[0].req(), 2, DtoStatus.ERR_FLUSHED);
            connection(p[1], EventNumber.CONNECTION_EVENT_BROKEN);
            // nothing was written, not even the part inside the region
            assertArrayEquals(new byte[LEN], bytes(target, 0, LEN));
        }
    }

    // ------------------------------------------------------------------ dat_ep_post_rdma_read

    @Test
    void postRdmaRead_success_fillsLocalSegmentsInOrder()
    {
        try (Fixture f = new Fixture())
        {
            final Fixture.Ep[] p = f.connectedPair(null);
            final Lmr sink = f.lmr(256);
            final Lmr source = f.lmr(256);
            pattern(source.memory(), 7);
            sink.memory().fill((byte) 0xEE);
            final LmrTriplet[] scatter = {LmrTriplet.of(sink, 0, 40), LmrTriplet.of(sink, 64, 40),
                LmrTriplet.of(sink, 128, 40), LmrTriplet.of(sink, 192, 40)};
            p[0].ep().postRdmaRead(4, scatter, 1, remote(source, 10, 100), 0);
            assertEquals(100, dto(p[0].req(), 1, DtoStatus.SUCCESS).dto.transferredLength);
            assertArrayEquals(bytes(source, 10, 40), bytes(sink, 0, 40));
            assertArrayEquals(bytes(source, 50, 40), bytes(sink, 64, 40));
            assertArrayEquals(bytes(source, 90, 20), bytes(sink, 128, 20));
            assertArrayEquals(filled(20, 0xEE), bytes(sink, 148, 20));
            assertArrayEquals(filled(40, 0xEE), bytes(sink, 192, 40));
            assertEmpty(p[1].recv());
            assertEmpty(p[1].req());
        }
    }

    @Test
    void postRdmaRead_success_moreReadsThanCreditsWaitTheirTurn()
    {
        // trap T-34: reads beyond the negotiated credits are queued locally, never sent early
        try (Fixture f = new Fixture())
        {
            final Fixture.Ep[] p = f.connectedPair(attr(a ->
            {
                a.maxRdmaReadIn = 1;
                a.maxRdmaReadOut = 1;
            }));
            final Lmr sink = f.lmr(256);
            final Lmr source = f.lmr(256);
            pattern(source.memory(), 11);
            // one read into three segments, then two more reads: one credit serves them all in turn
            p[0].ep().postRdmaRead(3, new LmrTriplet[] {LmrTriplet.of(sink, 0, 10), LmrTriplet.of(sink, 10, 10),
                LmrTriplet.of(sink, 20, 12)}, 1, remote(source, 0, 32), 0);
            p[0].ep().postRdmaRead(1, iov(sink, 32, 32), 2, remote(source, 32, 32), 0);
            dto(p[0].req(), 1, DtoStatus.SUCCESS);
            dto(p[0].req(), 2, DtoStatus.SUCCESS);
            assertArrayEquals(bytes(source, 0, 64), bytes(sink, 0, 64));
            assertEquals(EpState.CONNECTED, state(p[0].ep()));
            assertEmpty(p[0].conn());
        }
    }

    @Test
    void postRdmaRead_success_flushedAtOnceWhenDisconnected()
    {
        try (Fixture f = new Fixture())
        {
            final Fixture.Ep[] p = disconnectedPair(f);
            final Lmr lmr = f.lmr(2 * LEN);
            p[0].ep().postRdmaRead(1, iov(lmr, 0, 8), 5, remote(lmr, LEN, 8), 0);
            dto(p[0].req(), 5, DtoStatus.ERR_FLUSHED);
        }
    }

    @Test
    void postRdmaRead_invalidHandle_freedEndpoint()
    {
        try (Fixture f = new Fixture())
        {
            final Fixture.Ep[] p = f.connectedPair(null);
            final Lmr lmr = f.lmr(2 * LEN);
            p[0].ep().free();
            assertSubtype(DatReturnSubtype.INVALID_HANDLE_EP, expect(DatReturnType.INVALID_HANDLE,
                () -> p[0].ep().postRdmaRead(1, iov(lmr, 0, 8), 1, remote(lmr, LEN, 8), 0)));
        }
    }

    @Test
    void postRdmaRead_invalidState_whenUnconnected()
    {
        try (Fixture f = new Fixture())
        {
            final Fixture.Ep a = f.ep(null);
            final Lmr lmr = f.lmr(2 * LEN);
            assertSubtype(DatReturnSubtype.INVALID_STATE_EP_UNCONNECTED, expect(DatReturnType.INVALID_STATE,
                () -> a.ep().postRdmaRead(1, iov(lmr, 0, 8), 1, remote(lmr, LEN, 8), 0)));
        }
    }

    @Test
    void postRdmaRead_invalidParameter_remoteBufferSegmentsFlagsOrSize()
    {
        try (Fixture f = new Fixture())
        {
            final Fixture.Ep[] p = f.connectedPair(attr(a ->
            {
                a.maxRdmaReadIov = 1;
                a.maxRdmaSize = 32;
            }));
            final Endpoint ep = p[0].ep();
            final Lmr lmr = f.lmr(4 * LEN);
            final RmrTriplet there = remote(lmr, 2 * LEN, 8);
            expect(DatReturnType.INVALID_PARAMETER, () -> ep.postRdmaRead(1, iov(lmr, 0, 8), 1, null, 0));
            expect(DatReturnType.INVALID_PARAMETER, () -> ep.postRdmaRead(2,
                new LmrTriplet[] {LmrTriplet.of(lmr, 0, 4), LmrTriplet.of(lmr, 4, 4)}, 1, there, 0));
            expect(DatReturnType.INVALID_PARAMETER, () -> ep.postRdmaRead(1, iov(lmr, 0, 8), 1, there, 0x80));
            expect(DatReturnType.INVALID_PARAMETER,
                () -> ep.postRdmaRead(1, iov(lmr, 0, 8), 1, there, CompletionFlags.UNSIGNALLED_FLAG));
            expect(DatReturnType.INVALID_PARAMETER, () -> ep.postRdmaRead(1, iov(lmr, 4 * LEN - 4, 8), 1, there, 0));
            expect(DatReturnType.INVALID_PARAMETER,
                () -> ep.postRdmaRead(1, iov(lmr, 0, LEN), 1, remote(lmr, 2 * LEN, 33), 0));
            assertEmpty(p[0].req());
        }
    }

    @Test
    void postRdmaRead_lengthError_whenTheLocalIovIsSmallerThanTheRemoteBuffer()
    {
        try (Fixture f = new Fixture())
        {
            final Fixture.Ep[] p = f.connectedPair(null);
            final Lmr lmr = f.lmr(2 * LEN);
            expect(DatReturnType.LENGTH_ERROR,
                () -> p[0].ep().postRdmaRead(1, iov(lmr, 0, 8), 1, remote(lmr, LEN, 9), 0));
            assertEmpty(p[0].req());
        }
    }

    @Test
    void postRdmaRead_insufficientResources_whenTheConnectionAllowsNoReads()
    {
        try (Fixture f = new Fixture())
        {
            final Fixture.Ep[] p = f.connectedPair(attr(a -> a.maxRdmaReadOut = 0));
            final Lmr lmr = f.lmr(2 * LEN);
            assertSubtype(DatReturnSubtype.RESOURCE_CREDITS, expect(DatReturnType.INSUFFICIENT_RESOURCES,
                () -> p[0].ep().postRdmaRead(1, iov(lmr, 0, 8), 1, remote(lmr, LEN, 8), 0)));
        }
    }

    @Test
    void postRdmaRead_insufficientResources_whenMaxRequestDtosAreOutstanding()
    {
        try (Fixture f = new Fixture(); StalledDelivery s = new StalledDelivery(f))
        {
            final Fixture.Ep a = f.ep(attr(x -> x.maxRequestDtos = 2));
            final Fixture.Ep b = ep(f, s.recvEvd(f), null);
            connect(f, a, b);
            final Lmr lmr = f.lmr(4 * LEN);
            pattern(lmr.memory().asSlice(2 * LEN, LEN), 3);
            b.ep().postRecv(1, iov(lmr, 0, LEN), 100, 0);
            s.stall(() -> a.ep().postSend(1, iov(lmr, 3 * LEN, 8), 1, 0));
            a.ep().postRdmaRead(1, iov(lmr, LEN, 8), 2, remote(lmr, 2 * LEN, 8), 0);
            expect(DatReturnType.INSUFFICIENT_RESOURCES,
                () -> a.ep().postRdmaRead(1, iov(lmr, LEN, 8), 3, remote(lmr, 2 * LEN, 8), 0));
            s.release();
            dto(a.req(), 1, DtoStatus.SUCCESS);
            dto(a.req(), 2, DtoStatus.SUCCESS);
            assertArrayEquals(bytes(lmr, 2 * LEN, 8), bytes(lmr, LEN, 8));
        }
    }

    @Test
    void postRdmaRead_insufficientResources_aFullQueueIsReportedBeforeTheMissingReadCredits()
    {
        try (Fixture f = new Fixture(); StalledDelivery s = new StalledDelivery(f))
        {
            final Fixture.Ep a = f.ep(attr(x ->
            {
                x.maxRequestDtos = 1;
                x.maxRdmaReadOut = 0;
            }));
            final Fixture.Ep b = ep(f, s.recvEvd(f), null);
            connect(f, a, b);
            final Lmr lmr = f.lmr(4 * LEN);
            b.ep().postRecv(1, iov(lmr, 0, LEN), 100, 0);
            s.stall(() -> a.ep().postSend(1, iov(lmr, 3 * LEN, 8), 1, 0));
            assertSubtype(DatReturnSubtype.RESOURCE_TEP, expect(DatReturnType.INSUFFICIENT_RESOURCES,
                () -> a.ep().postRdmaRead(1, iov(lmr, LEN, 8), 2, remote(lmr, 2 * LEN, 8), 0)));
            s.release();
            dto(a.req(), 1, DtoStatus.SUCCESS);
            // the queue has room again: now the connection's lack of Read credits is the refusal
            assertSubtype(DatReturnSubtype.RESOURCE_CREDITS, expect(DatReturnType.INSUFFICIENT_RESOURCES,
                () -> a.ep().postRdmaRead(1, iov(lmr, LEN, 8), 3, remote(lmr, 2 * LEN, 8), 0)));
        }
    }

    @Test
    void postRdma_invalidParameter_namesTheFlagsBeforeAMissingRemoteBuffer()
    {
        try (Fixture f = new Fixture())
        {
            final Fixture.Ep[] signalled = f.connectedPair(null);
            final Fixture.Ep[] unsignalled = f.connectedPair(
                attr(a -> a.requestCompletionFlags = CompletionFlags.UNSIGNALLED_FLAG));
            final Lmr lmr = f.lmr(2 * LEN);
            final DatReturnSubtype flagsOfWrite = DatReturnSubtype.invalidArg(6);
            final DatReturnSubtype flagsOfSend = DatReturnSubtype.invalidArg(5);
            final DatReturnSubtype remoteBuffer = DatReturnSubtype.invalidArg(DatArg.POST_RDMA_REMOTE_IOV);
            // unknown flags come first, whatever else is wrong
            assertSubtype(flagsOfWrite, expect(DatReturnType.INVALID_PARAMETER,
                () -> signalled[0].ep().postRdmaWrite(1, iov(lmr, 0, 8), 1, null, 0x20)));
            assertSubtype(flagsOfSend, expect(DatReturnType.INVALID_PARAMETER,
                () -> signalled[0].ep().postSend(1, iov(lmr, 0, 8), 1, 0x20)));
            // UNSIGNALLED where the EP does not allow it, then the missing remote buffer
            assertSubtype(flagsOfWrite, expect(DatReturnType.INVALID_PARAMETER,
                () -> signalled[0].ep().postRdmaRead(1, iov(lmr, 0, 8), 1, null, CompletionFlags.UNSIGNALLED_FLAG)));
            assertSubtype(remoteBuffer, expect(DatReturnType.INVALID_PARAMETER,
                () -> signalled[0].ep().postRdmaWrite(1, iov(lmr, 0, 8), 1, null, 0)));
            // where the EP allows UNSIGNALLED, the flag is fine and the missing buffer is named
            assertSubtype(remoteBuffer, expect(DatReturnType.INVALID_PARAMETER,
                () -> unsignalled[0].ep().postRdmaWrite(1, iov(lmr, 0, 8), 1, null, CompletionFlags.UNSIGNALLED_FLAG)));
            assertSubtype(remoteBuffer, expect(DatReturnType.INVALID_PARAMETER,
                () -> unsignalled[0].ep().postRdmaRead(1, iov(lmr, 0, 8), 1, null, CompletionFlags.UNSIGNALLED_FLAG)));
            assertEmpty(signalled[0].req());
            assertEmpty(unsignalled[0].req());
        }
    }

    @Test
    void postRdmaRead_protectionViolation_lmrOfAnotherPz()
    {
        try (Fixture f = new Fixture())
        {
            final Fixture.Ep[] p = f.connectedPair(null);
            final Lmr lmr = f.lmr(LEN);
            final Lmr foreign = f.ia.lmrCreate(io.jdat.MemType.VIRTUAL,
                io.jdat.RegionDescription.forVa(f.memory(LEN)), LEN, f.ia.pzCreate(), MemPriv.ALL_FLAG);
            assertSubtype(DatReturnSubtype.PROTECTION_WRITE, expect(DatReturnType.PROTECTION_VIOLATION,
                () -> p[0].ep().postRdmaRead(1, iov(foreign, 0, 8), 1, remote(lmr, 0, 8), 0)));
        }
    }

    @Test
    void postRdmaRead_privilegesViolation_sinkWithoutLocalWrite()
    {
        try (Fixture f = new Fixture())
        {
            final Fixture.Ep[] p = f.connectedPair(null);
            final Lmr source = f.lmr(LEN);
            final Lmr sink = f.lmr(f.memory(LEN), MemPriv.LOCAL_READ_FLAG);
            assertSubtype(DatReturnSubtype.PRIVILEGES_WRITE, expect(DatReturnType.PRIVILEGES_VIOLATION,
                () -> p[0].ep().postRdmaRead(1, iov(sink, 0, 8), 1, remote(source, 0, 8), 0)));
        }
    }

    @Test
    void postRdmaRead_dtoErrRemoteAccess_whenTheSourceLacksRemoteRead()
    {
        try (Fixture f = new Fixture())
        {
            final Fixture.Ep[] p = f.connectedPair(null);
            final Lmr sink = f.lmr(LEN);
            final Lmr source = f.lmr(f.memory(LEN), MemPriv.LOCAL_WRITE_FLAG | MemPriv.REMOTE_WRITE_FLAG);
            pattern(source.memory(), 1);
            p[0].ep().postRdmaRead(1, iov(sink, 0, 8), 1, remote(source, 0, 8), 0);
            dto(p[0].req(), 1, DtoStatus.ERR_REMOTE_ACCESS);
            connection(p[0], EventNumber.CONNECTION_EVENT_BROKEN);
            connection(p[1], EventNumber.CONNECTION_EVENT_BROKEN);
            assertArrayEquals(new byte[LEN], bytes(sink, 0, LEN));
        }
    }

    @Test
    void postRdmaRead_dtoErrLocalProtection_whenTheSinkWasFreedBeforeTheResponse()
    {
        try (Fixture f = new Fixture(); StalledDelivery s = new StalledDelivery(f))
        {
            final Fixture.Ep a = f.ep(null);
            final Fixture.Ep b = ep(f, s.recvEvd(f), null);
            connect(f, a, b);
            final Lmr lmr = f.lmr(4 * LEN);
            final Lmr sink = f.lmr(LEN);
            b.ep().postRecv(1, iov(lmr, 0, LEN), 100, 0);
            // the read waits behind a stalled Send; its sink goes away meanwhile
            s.stall(() -> a.ep().postSend(1, iov(lmr, 3 * LEN, 8), 1, 0));
            a.ep().postRdmaRead(1, iov(sink, 0, 8), 2, remote(lmr, 2 * LEN, 8), 0);
            sink.free();
            s.release();
            dto(a.req(), 1, DtoStatus.SUCCESS);
            dto(a.req(), 2, DtoStatus.ERR_LOCAL_PROTECTION);
            connection(a, EventNumber.CONNECTION_EVENT_BROKEN);
        }
    }

    // ------------------------------------------------------------------ dat_ep_query

    @Test
    void query_success_connectedEndpointReportsBothEnds()
    {
        try (Fixture f = new Fixture())
        {
            final Fixture.Ep[] p = f.connectedPair(null);
            final EpParam a = new EpParam();
            final EpParam b = new EpParam();
            p[0].ep().query(EpParam.FIELD_ALL, a);
            p[1].ep().query(EpParam.FIELD_ALL, b);
            assertEquals(EpState.CONNECTED, a.epState);
            assertEquals(EpState.CONNECTED, b.epState);
            assertEquals(f.address, a.localIaAddress);
            assertEquals(f.address, a.remoteIaAddress);
            assertEquals(f.address, b.remoteIaAddress);
            // each side's remote port qualifier is the other side's local one
            assertEquals(a.localPortQual, b.remotePortQual);
            assertEquals(b.localPortQual, a.remotePortQual);
            // a zero mask asks for nothing and needs no structure
            p[0].ep().query(0, null);
        }
    }

    @Test
    void query_invalidHandle_freedEndpoint()
    {
        try (Fixture f = new Fixture())
        {
            final Endpoint ep = f.ia.epCreate(f.pz, null, null, null, null);
            ep.free();
            assertSubtype(DatReturnSubtype.INVALID_HANDLE_EP,
                expect(DatReturnType.INVALID_HANDLE, () -> ep.query(EpParam.FIELD_ALL, new EpParam())));
        }
    }

    @Test
    void query_invalidParameter_undefinedMaskBitsOrNullParam()
    {
        try (Fixture f = new Fixture())
        {
            final Endpoint ep = f.ia.epCreate(f.pz, null, null, null, null);
            // 0x800 is the one bit DAT_EP_FIELD_ALL leaves out
            expect(DatReturnType.INVALID_PARAMETER, () -> ep.query(0x800L, new EpParam()));
            expect(DatReturnType.INVALID_PARAMETER, () -> ep.query(1L << 31, new EpParam()));
            expect(DatReturnType.INVALID_PARAMETER, () -> ep.query(EpParam.FIELD_EP_STATE, null));
        }
    }

    // ------------------------------------------------------------------ dat_ep_recv_query

    @Test
    void recvQuery_success_countsTheBuffersTheEndpointHolds()
    {
        try (Fixture f = new Fixture())
        {
            final Fixture.Ep[] p = f.connectedPair(null);
            final DatCount n = new DatCount(-1);
            final DatCount span = new DatCount(-1);
            p[1].ep().recvQuery(n, span);
            assertEquals(0, n.value);
            assertEquals(0, span.value);
            final Lmr lmr = f.lmr(4 * LEN);
            for (int i = 0; i < 3; i++)
            {
                p[1].ep().postRecv(1, iov(lmr, (long) i * LEN, LEN), i, 0);
            }
            p[1].ep().recvQuery(n, span);
            assertEquals(3, n.value);
            assertTrue(span.value >= n.value, "a span is never smaller than the count");
            p[0].ep().postSend(1, iov(lmr, 3 * LEN, 8), 9, 0);
            dto(p[1].recv(), 0, DtoStatus.SUCCESS);
            p[1].ep().recvQuery(n, span);
            assertEquals(2, n.value);
            assertEquals(2, span.value);
            // either output may be left out
            p[1].ep().recvQuery(null, span);
            p[1].ep().recvQuery(n, null);
            p[1].ep().recvQuery(null, null);
            assertEquals(2, n.value);
        }
    }

    @Test
    void recvQuery_success_srqEndpointHoldsNoBufferBetweenMessages()
    {
        try (Fixture f = new Fixture())
        {
            final SharedReceiveQueue srq = f.ia.srqCreate(f.pz, new SrqAttr(4, 1));
            final Fixture.Ep server = srqEp(f, f.pz, srq, new EpAttr());
            final Lmr lmr = f.lmr(4 * LEN);
            srq.postRecv(1, iov(lmr, 0, LEN), 1);
            srq.postRecv(1, iov(lmr, LEN, LEN), 2);
            final DatCount n = new DatCount(-1);
            final DatCount span = new DatCount(-1);
            server.ep().recvQuery(n, span);
            // buffers on the SRQ are not allocated to the endpoint yet
            assertEquals(0, n.value);
            assertEquals(0, span.value);
        }
    }

    @Test
    void recvQuery_invalidHandle_freedEndpoint()
    {
        try (Fixture f = new Fixture())
        {
            final Endpoint ep = f.ia.epCreate(f.pz, null, null, null, null);
            ep.free();
            assertSubtype(DatReturnSubtype.INVALID_HANDLE_EP,
                expect(DatReturnType.INVALID_HANDLE, () -> ep.recvQuery(new DatCount(), new DatCount())));
        }
    }

    // ------------------------------------------------------------------ dat_ep_reset

    @Test
    void reset_success_disconnectedBecomesUnconnectedAndConnectsAgain()
    {
        try (Fixture f = new Fixture())
        {
            final Fixture.Ep[] p = disconnectedPair(f);
            p[0].ep().reset();
            p[1].ep().reset();
            assertEquals(EpState.UNCONNECTED, state(p[0].ep()));
            final EpParam q = new EpParam();
            p[0].ep().query(EpParam.FIELD_ALL, q);
            assertNull(q.remoteIaAddress);
            connect(f, p[0], p[1]);
            final Lmr lmr = f.lmr(2 * LEN);
            p[1].ep().postRecv(1, iov(lmr, 0, LEN), 1, 0);
            p[0].ep().postSend(1, iov(lmr, LEN, 8), 2, 0);
            dto(p[0].req(), 2, DtoStatus.SUCCESS);
            dto(p[1].recv(), 1, DtoStatus.SUCCESS);
        }
    }

    @Test
    void reset_success_noOpWhenUnconnectedKeepsPostedReceives()
    {
        // dapltest limit "rpost": post receives on an UNCONNECTED EP, then reset
        try (Fixture f = new Fixture())
        {
            final Fixture.Ep a = f.ep(null);
            final Fixture.Ep b = f.ep(null);
            final Lmr lmr = f.lmr(2 * LEN);
            b.ep().postRecv(1, iov(lmr, 0, LEN), 1, 0);
            b.ep().reset();
            assertEquals(EpState.UNCONNECTED, state(b.ep()));
            assertEmpty(b.recv());
            connect(f, a, b);
            a.ep().postSend(1, iov(lmr, LEN, 8), 2, 0);
            dto(b.recv(), 1, DtoStatus.SUCCESS);
        }
    }

    @Test
    void reset_invalidHandle_freedEndpoint()
    {
        try (Fixture f = new Fixture())
        {
            final Endpoint ep = f.ia.epCreate(f.pz, null, null, null, null);
            ep.free();
            assertSubtype(DatReturnSubtype.INVALID_HANDLE_EP, expect(DatReturnType.INVALID_HANDLE, ep::reset));
        }
    }

    @Test
    void reset_invalidState_whenConnectedPendingOrReserved()
    {
        try (Fixture f = new Fixture(Fixture.loopbackWith("")))
        {
            final Fixture.Ep[] p = f.connectedPair(null);
            assertSubtype(DatReturnSubtype.INVALID_STATE_EP_CONNECTED,
                expect(DatReturnType.INVALID_STATE, p[0].ep()::reset));
            final Fixture.Ep c = f.ep(null);
            final EventDispatcher crEvd = f.evd(8, EvdFlags.CR_FLAG);
            final PublicServicePoint psp = f.ia.pspCreateAny(crEvd, PspFlags.CONSUMER_FLAG);
            Connecting.connect(f, c, psp.connQual(), null);
            assertSubtype(DatReturnSubtype.INVALID_STATE_EP_ACTCONNPENDING,
                expect(DatReturnType.INVALID_STATE, c.ep()::reset));
            final Fixture.Ep d = f.ep(null);
            final ReservedServicePoint rsp = f.ia.rspCreate(4715, d.ep(), f.evd(4, EvdFlags.CR_FLAG));
            assertSubtype(DatReturnSubtype.INVALID_STATE_EP_RESERVED,
                expect(DatReturnType.INVALID_STATE, d.ep()::reset));
            rsp.free();
            assertEquals(EpState.CONNECTED, state(p[0].ep()));
        }
    }

    // ------------------------------------------------------------------ dat_ep_set_watermark

    @Test
    void setWatermark_success_softWatermarkFiresOncePerSetting()
    {
        try (Fixture f = new Fixture())
        {
            final Fixture.Ep a = f.ep(null);
            final Lmr lmr = f.lmr(8 * LEN);
            for (int i = 0; i < 3; i++)
            {
                a.ep().postRecv(1, iov(lmr, (long) i * LEN, LEN), i, 0);
            }
            // checked during the call: 3 buffers exceed 2 at once
            a.ep().setWatermark(2, Dat.WATERMARK_INFINITE);
            final DatEvent ev = Connecting.event(f.asyncEvd, EventNumber.JDAT_ASYNC_EP_SOFT_HIGH_WATERMARK);
            assertSame(a.ep(), ev.asyncError.datHandle);
            assertEquals(AsyncErrorReason.SRQ_SOFT_HIGH_WATERMARK_EVENT, ev.asyncError.reason);
            // once per setting
            a.ep().postRecv(1, iov(lmr, 3 * LEN, LEN), 3, 0);
            assertEmpty(f.asyncEvd);
            // re-armed by calling again
            a.ep().setWatermark(2, Dat.WATERMARK_INFINITE);
            Connecting.event(f.asyncEvd, EventNumber.JDAT_ASYNC_EP_SOFT_HIGH_WATERMARK);
            // not exceeded: no event until a buffer more is taken
            a.ep().setWatermark(5, Dat.WATERMARK_INFINITE);
            a.ep().postRecv(1, iov(lmr, 4 * LEN, LEN), 4, 0);
            assertEmpty(f.asyncEvd);
            a.ep().postRecv(1, iov(lmr, 5 * LEN, LEN), 5, 0);
            Connecting.event(f.asyncEvd, EventNumber.JDAT_ASYNC_EP_SOFT_HIGH_WATERMARK);
            // DAT_WATERMARK_INFINITE: no event
            a.ep().setWatermark(Dat.WATERMARK_INFINITE, Dat.WATERMARK_INFINITE);
            a.ep().postRecv(1, iov(lmr, 6 * LEN, LEN), 6, 0);
            assertEmpty(f.asyncEvd);
        }
    }

    @Test
    void setWatermark_success_hardWatermarkBreaksTheConnection()
    {
        try (Fixture f = new Fixture())
        {
            final Fixture.Ep[] p = f.connectedPair(null);
            final Lmr lmr = f.lmr(4 * LEN);
            p[1].ep().setWatermark(Dat.WATERMARK_INFINITE, 1);
            p[1].ep().postRecv(1, iov(lmr, 0, LEN), 1, 0);
            assertEmpty(p[1].conn());
            p[1].ep().postRecv(1, iov(lmr, LEN, LEN), 2, 0);
            connection(p[1], EventNumber.CONNECTION_EVENT_BROKEN);
            connection(p[0], EventNumber.CONNECTION_EVENT_BROKEN);
            assertEquals(EpState.DISCONNECTED, state(p[1].ep()));
            dto(p[1].recv(), 1, DtoStatus.ERR_FLUSHED);
            dto(p[1].recv(), 2, DtoStatus.ERR_FLUSHED);
            assertEmpty(f.asyncEvd);
        }
    }

    @Test
    void setWatermark_success_hardWatermarkIsArmedWhenTheConnectionIsEstablished()
    {
        // trap T-25
        try (Fixture f = new Fixture())
        {
            final Fixture.Ep a = f.ep(null);
            final Fixture.Ep b = f.ep(null);
            final Lmr lmr = f.lmr(4 * LEN);
            b.ep().postRecv(1, iov(lmr, 0, LEN), 1, 0);
            b.ep().postRecv(1, iov(lmr, LEN, LEN), 2, 0);
            b.ep().setWatermark(Dat.WATERMARK_INFINITE, 1);
            assertEquals(EpState.UNCONNECTED, state(b.ep()));
            assertEmpty(b.conn());
            final EventDispatcher crEvd = f.evd(8, EvdFlags.CR_FLAG);
            final PublicServicePoint psp = f.ia.pspCreateAny(crEvd, PspFlags.CONSUMER_FLAG);
            Connecting.connect(f, a, psp.connQual(), null);
            request(crEvd).crArrival.crHandle.accept(b.ep(), null);
            connection(b, EventNumber.CONNECTION_EVENT_ESTABLISHED);
            connection(b, EventNumber.CONNECTION_EVENT_BROKEN);
            dto(b.recv(), 1, DtoStatus.ERR_FLUSHED);
        }
    }

    @Test
    void setWatermark_invalidHandle_freedEndpoint()
    {
        try (Fixture f = new Fixture())
        {
            final Endpoint ep = f.ia.epCreate(f.pz, null, null, null, null);
            ep.free();
            assertSubtype(DatReturnSubtype.INVALID_HANDLE_EP,
                expect(DatReturnType.INVALID_HANDLE, () -> ep.setWatermark(1, 1)));
        }
    }

    @Test
    void setWatermark_invalidParameter_belowInfinite()
    {
        try (Fixture f = new Fixture())
        {
            final Endpoint ep = f.ia.epCreate(f.pz, null, null, null, null);
            expect(DatReturnType.INVALID_PARAMETER, () -> ep.setWatermark(-2, Dat.WATERMARK_INFINITE));
            expect(DatReturnType.INVALID_PARAMETER, () -> ep.setWatermark(Dat.WATERMARK_INFINITE, Integer.MIN_VALUE));
            // the failed call armed nothing
            ep.postRecv(1, iov(f.lmr(LEN), 0, LEN), 1, 0);
            assertEmpty(f.asyncEvd);
        }
    }
}

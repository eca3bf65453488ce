package io.jdat.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.CloseFlags;
import io.jdat.CompletionFlags;
import io.jdat.ConnectFlags;
import io.jdat.Dat;
import io.jdat.DatCount;
import io.jdat.DatEvent;
import io.jdat.DatStatus;
import io.jdat.DtoStatus;
import io.jdat.Endpoint;
import io.jdat.EventDispatcher;
import io.jdat.EventNumber;
import io.jdat.EvdFlags;
import io.jdat.IaAttr;
import io.jdat.InterfaceAdapter;
import io.jdat.Lmr;
import io.jdat.LmrTriplet;
import io.jdat.MemPriv;
import io.jdat.MemType;
import io.jdat.ProtectionZone;
import io.jdat.PspFlags;
import io.jdat.PublicServicePoint;
import io.jdat.Qos;
import io.jdat.RegionDescription;
import io.jdat.RmrTriplet;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A consumer on virtual threads: the server side and the client side of a connection each run in
 * a virtual thread and block in dat_evd_wait (a park, or on tcp a select, underneath), on every
 * provider. Connect, accept, Sends both ways, an RDMA Write and an RDMA Read, every byte checked,
 * then a graceful disconnect; the whole exchange many times over, so that waits really block and
 * threads really unmount.
 */
class VirtualThreadsTest
{
    private static final long SECOND = 1_000_000L;
    private static final int SIZE = 64 << 10;
    private static final int ROUNDS = 20;

    @ParameterizedTest
    @ValueSource(strings = {"loopback", "tcp", "shm"})
    void aConnectionServedAndUsedFromVirtualThreads(final String provider) throws Exception
    {
        final InterfaceAdapter ia = Dat.iaOpen(provider, 64, null);
        try (Arena arena = Arena.ofShared(); ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor())
        {
            final ProtectionZone pz = ia.pzCreate();
            final MemorySegment serverMemory = arena.allocate(2 * SIZE);
            final MemorySegment clientMemory = arena.allocate(2 * SIZE);
            final Lmr server = ia.lmrCreate(MemType.VIRTUAL, RegionDescription.forVa(serverMemory), 2 * SIZE, pz,
                MemPriv.ALL_FLAG);
            final Lmr client = ia.lmrCreate(MemType.VIRTUAL, RegionDescription.forVa(clientMemory), 2 * SIZE, pz,
                MemPriv.ALL_FLAG);
            final EventDispatcher crEvd = ia.evdCreate(8, null, EvdFlags.CR_FLAG);
            final PublicServicePoint psp = ia.pspCreateAny(crEvd, PspFlags.CONSUMER_FLAG);
            final IaAttr attr = new IaAttr();
            ia.query(IaAttr.FIELD_IA_ADDRESS_PTR, attr, 0, null);

            for (int round = 0; round < ROUNDS; round++)
            {
                final int seed = round;
                final CompletableFuture<Void> serverSide = CompletableFuture.runAsync(() ->
                    serve(ia, pz, crEvd, server, seed), threads);
                final CompletableFuture<Void> clientSide = CompletableFuture.runAsync(() ->
                    use(ia, pz, attr, psp.connQual(), client, server, seed), threads);
                clientSide.get(30, TimeUnit.SECONDS);
                serverSide.get(30, TimeUnit.SECONDS);
            }
        }
        finally
        {
            ia.close(CloseFlags.ABRUPT_FLAG);
        }
    }

    /** Accepts one connection, receives a Send, answers with a Send, waits for the client to disconnect. */
    private static void serve(final InterfaceAdapter ia, final ProtectionZone pz, final EventDispatcher crEvd,
        final Lmr memory, final int seed)
    {
        assertTrue(Thread.currentThread().isVirtual());
        final EventDispatcher dto = ia.evdCreate(16, null, EvdFlags.DTO_FLAG);
        final EventDispatcher conn = ia.evdCreate(4, null, EvdFlags.CONNECTION_FLAG);
        final Endpoint ep = ia.epCreate(pz, dto, dto, conn, null);
        ep.postRecv(1, new LmrTriplet[] {LmrTriplet.of(memory, 0, SIZE)}, 1, CompletionFlags.DEFAULT_FLAG);
        next(crEvd, EventNumber.CONNECTION_REQUEST_EVENT).crArrival.crHandle.accept(ep, null);
        next(conn, EventNumber.CONNECTION_EVENT_ESTABLISHED);
        final DatEvent recv = next(dto, EventNumber.DTO_COMPLETION_EVENT);
        assertEquals(SIZE, recv.dto.transferredLength);
        assertEquals(-1, mismatch(memory.memory(), 0, seed), "the client's Send");
        fill(memory.memory(), SIZE, seed + 1000);
        ep.postSend(1, new LmrTriplet[] {LmrTriplet.of(memory, SIZE, SIZE)}, 2, CompletionFlags.DEFAULT_FLAG);
        next(dto, EventNumber.DTO_COMPLETION_EVENT);
        next(conn, EventNumber.CONNECTION_EVENT_DISCONNECTED);
        ep.free();
        conn.free();
        dto.free();
    }

    /** Connects, Sends, receives the answer, RDMA-Writes and RDMA-Reads the server's memory, disconnects. */
    private static void use(final InterfaceAdapter ia, final ProtectionZone pz, final IaAttr attr, final long qual,
        final Lmr memory, final Lmr remote, final int seed)
    {
        assertTrue(Thread.currentThread().isVirtual());
        final EventDispatcher dto = ia.evdCreate(16, null, EvdFlags.DTO_FLAG);
        final EventDispatcher conn = ia.evdCreate(4, null, EvdFlags.CONNECTION_FLAG);
        final Endpoint ep = ia.epCreate(pz, dto, dto, conn, null);
        ep.postRecv(1, new LmrTriplet[] {LmrTriplet.of(memory, SIZE, SIZE)}, 1, CompletionFlags.DEFAULT_FLAG);
        ep.connect(attr.iaAddress, qual, 10 * SECOND, null, Qos.BEST_EFFORT, ConnectFlags.DEFAULT_FLAG);
        next(conn, EventNumber.CONNECTION_EVENT_ESTABLISHED);
        fill(memory.memory(), 0, seed);
        ep.postSend(1, new LmrTriplet[] {LmrTriplet.of(memory, 0, SIZE)}, 2, CompletionFlags.DEFAULT_FLAG);
        // the Send's completion and the answer, in either order
        next(dto, EventNumber.DTO_COMPLETION_EVENT);
        next(dto, EventNumber.DTO_COMPLETION_EVENT);
        assertEquals(-1, mismatch(memory.memory(), SIZE, seed + 1000), "the server's answer");

        // RDMA Write the server's second half, then read it back over the first half of ours
        fill(memory.memory(), 0, seed + 2000);
        ep.postRdmaWrite(1, new LmrTriplet[] {LmrTriplet.of(memory, 0, SIZE)}, 3,
            new RmrTriplet(remote.rmrContext(), remote.registeredAddress() + SIZE, SIZE), CompletionFlags.DEFAULT_FLAG);
        next(dto, EventNumber.DTO_COMPLETION_EVENT);
        memory.memory().asSlice(SIZE, SIZE).fill((byte) 0);
        ep.postRdmaRead(1, new LmrTriplet[] {LmrTriplet.of(memory, SIZE, SIZE)}, 4,
            new RmrTriplet(remote.rmrContext(), remote.registeredAddress() + SIZE, SIZE), CompletionFlags.DEFAULT_FLAG);
        next(dto, EventNumber.DTO_COMPLETION_EVENT);
        assertEquals(-1, mismatch(memory.memory(), SIZE, seed + 2000), "the RDMA Write read back");

        ep.disconnect(CloseFlags.GRACEFUL_FLAG);
        next(conn, EventNumber.CONNECTION_EVENT_DISCONNECTED);
        ep.free();
        conn.free();
        dto.free();
    }

    private static DatEvent next(final EventDispatcher evd, final EventNumber expected)
    {
        final DatEvent ev = new DatEvent();
        assertEquals(DatStatus.SUCCESS, evd.wait(10 * SECOND, 1, ev, new DatCount()), "no " + expected);
        assertTrue(ev.is(expected), "expected " + expected + ", got " + ev);
        if (ev.is(EventNumber.DTO_COMPLETION_EVENT))
        {
            assertEquals(DtoStatus.SUCCESS, ev.dto.status, ev.toString());
        }
        return ev;
    }

    private static void fill(final MemorySegment m, final long at, final int seed)
    {
        for (int i = 0; i < SIZE; i++)
        {
            m.set(java.lang.foreign.ValueLayout.JAVA_BYTE, at + i, (byte) (i * 31 + seed));
        }
    }

    private static long mismatch(final MemorySegment m, final long at, final int seed)
    {
        for (int i = 0; i < SIZE; i++)
        {
            if (m.get(java.lang.foreign.ValueLayout.JAVA_BYTE, at + i) != (byte) (i * 31 + seed))
            {
                return i;
            }
        }
        return -1;
    }
}

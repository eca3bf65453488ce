package io.jdat.example.consumer;

import io.jdat.CloseFlags;
import io.jdat.CompletionFlags;
import io.jdat.Dat;
import io.jdat.DatCount;
import io.jdat.DatEvent;
import io.jdat.DatException;
import io.jdat.DatOut;
import io.jdat.DatStatus;
import io.jdat.DtoStatus;
import io.jdat.Endpoint;
import io.jdat.EvdFlags;
import io.jdat.EventDispatcher;
import io.jdat.EventNumber;
import io.jdat.IaAttr;
import io.jdat.InterfaceAdapter;
import io.jdat.Lmr;
import io.jdat.LmrTriplet;
import io.jdat.MemPriv;
import io.jdat.MemType;
import io.jdat.ProtectionZone;
import io.jdat.ProviderInfo;
import io.jdat.PspFlags;
import io.jdat.PublicServicePoint;
import io.jdat.Qos;
import io.jdat.RegionDescription;
import io.jdat.RmrTriplet;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Lists the IA names registered at run time ({@code dat_registry_list_providers}) and, on each,
 * runs one connection between two endpoints of one IA: connect through a PSP, a Send into a
 * posted receive, an RDMA Write into the peer's exposed LMR, a graceful disconnect; every byte that
 * arrived is checked. Prints one line per IA name: {@code ok NAME ...} or {@code FAIL NAME ...}
 * ({@code skip NAME ...} for an IA that cannot open on this host, such as RDMA hardware that is
 * not there). The arguments name the IAs that must pass; the exit code is 0 only if they all did.
 */
public final class Consumer
{
    private static final long SECOND = 1_000_000L;
    private static final int SIZE = 4096;

    private Consumer()
    {
    }

    public static void main(final String[] args)
    {
        final String where = Consumer.class.getModule().isNamed() ? "module path" : "class path";
        final Module api = Dat.class.getModule();
        System.out.println("consumer on the " + where + "; jdat-api is " + (api.isNamed() ? api.getName() : "unnamed")
            + (api.isNamed() ? ", io.jdat.registry exported to this consumer: "
                + api.isExported("io.jdat.registry", Consumer.class.getModule()) : ""));
        final Set<String> names = registered();
        System.out.println("providers found: " + names);
        final Set<String> passed = new LinkedHashSet<>();
        for (final String name : names)
        {
            final InterfaceAdapter ia;
            try
            {
                ia = Dat.iaOpen(name, 8, new DatOut<EventDispatcher>());
            }
            catch (final DatException e)
            {
                System.out.println("skip " + name + ": dat_ia_open: " + e.status());
                continue;
            }
            try
            {
                System.out.println("ok   " + name + ": " + connection(ia));
                passed.add(name);
            }
            catch (final RuntimeException | AssertionError e)
            {
                System.out.println("FAIL " + name + ": " + e);
            }
            finally
            {
                ia.close(CloseFlags.ABRUPT_FLAG);
            }
        }
        final List<String> missing = Arrays.stream(args).filter(n -> !passed.contains(n)).toList();
        if (!missing.isEmpty())
        {
            System.out.println("FAIL required and not passed: " + missing);
            System.exit(1);
        }
        System.out.println("consumer: passed " + passed);
    }

    /** The distinct IA names of the registry, in its order. */
    private static Set<String> registered()
    {
        final DatCount count = new DatCount();
        try
        {
            Dat.registryListProviders(0, count, new ProviderInfo[0]);
        }
        catch (final DatException e)
        {
            // as in C: a list too small says how many entries there are
        }
        final ProviderInfo[] list = new ProviderInfo[count.value];
        Dat.registryListProviders(list.length, count, list);
        final Set<String> names = new LinkedHashSet<>();
        for (int i = 0; i < count.value; i++)
        {
            names.add(list[i].iaName());
        }
        return names;
    }

    /** One connection between two endpoints of {@code ia}; what it moved. */
    private static String connection(final InterfaceAdapter ia)
    {
        final IaAttr attr = new IaAttr();
        ia.query(IaAttr.FIELD_IA_ADDRESS_PTR, attr, 0, null);
        final ProtectionZone pz = ia.pzCreate();
        final EventDispatcher crEvd = ia.evdCreate(4, null, EvdFlags.CR_FLAG);
        try (Arena arena = Arena.ofShared())
        {
            final Side server = new Side(ia, pz, arena);
            final Side client = new Side(ia, pz, arena);
            final PublicServicePoint psp = ia.pspCreateAny(crEvd, PspFlags.CONSUMER_FLAG);

            // the server posts a receive and exposes its LMR (context and address) in its accept data
            server.ep.postRecv(1, new LmrTriplet[] {LmrTriplet.of(server.lmr, 0, SIZE)}, 1,
                CompletionFlags.DEFAULT_FLAG);
            client.ep.connect(attr.iaAddress, psp.connQual(), 10 * SECOND, null, Qos.BEST_EFFORT, 0);
            final DatEvent request = next(crEvd, EventNumber.CONNECTION_REQUEST_EVENT);
            final byte[] exposed = ByteBuffer.allocate(12).putInt(server.lmr.rmrContext())
                .putLong(server.lmr.registeredAddress()).array();
            request.crArrival.crHandle.accept(server.ep, exposed);
            next(server.conn, EventNumber.CONNECTION_EVENT_ESTABLISHED);
            final DatEvent up = next(client.conn, EventNumber.CONNECTION_EVENT_ESTABLISHED);
            final ByteBuffer remote = ByteBuffer.wrap(up.connection.privateData, 0, up.connection.privateDataSize);
            final RmrTriplet target = new RmrTriplet(remote.getInt(), remote.getLong(), SIZE);

            // Send: the client's bytes arrive in the server's posted receive
            client.fill(1);
            client.ep.postSend(1, new LmrTriplet[] {LmrTriplet.of(client.lmr, 0, SIZE)}, 2,
                CompletionFlags.DEFAULT_FLAG);
            completed(client.req, 2, SIZE);
            completed(server.recv, 1, SIZE);
            client.sameBytesAs(server, "Send/Recv");

            // RDMA Write: other bytes land in the server's LMR; a Send behind it says they are there
            client.fill(2);
            server.ep.postRecv(0, new LmrTriplet[0], 3,
                CompletionFlags.DEFAULT_FLAG);
            client.ep.postRdmaWrite(1, new LmrTriplet[] {LmrTriplet.of(client.lmr, 0, SIZE)}, 4, target,
                CompletionFlags.DEFAULT_FLAG);
            client.ep.postSend(0, new LmrTriplet[0], 5, CompletionFlags.DEFAULT_FLAG);
            completed(client.req, 4, SIZE);
            completed(client.req, 5, 0);
            completed(server.recv, 3, 0);
            client.sameBytesAs(server, "RDMA Write");

            client.ep.disconnect(CloseFlags.GRACEFUL_FLAG);
            next(client.conn, EventNumber.CONNECTION_EVENT_DISCONNECTED);
            next(server.conn, EventNumber.CONNECTION_EVENT_DISCONNECTED);
            psp.free();
            client.free();
            server.free();
            crEvd.free();
            pz.free();
            return "connected to " + attr.iaAddress + ", Send " + SIZE + " B and RDMA Write " + SIZE
                + " B arrived intact, disconnected";
        }
    }

    /** The next event of {@code evd} within 10 s, which must be {@code expected}. */
    private static DatEvent next(final EventDispatcher evd, final EventNumber expected)
    {
        final DatEvent ev = new DatEvent();
        final DatStatus s = evd.wait(10 * SECOND, 1, ev, new DatCount());
        if (s != DatStatus.SUCCESS || !ev.is(expected))
        {
            throw new AssertionError("expected " + expected + ", got " + (s == DatStatus.SUCCESS ? ev : s));
        }
        return ev;
    }

    private static void completed(final EventDispatcher evd, final long cookie, final long length)
    {
        final DatEvent ev = next(evd, EventNumber.DTO_COMPLETION_EVENT);
        if (ev.dto.userCookie != cookie || ev.dto.status != DtoStatus.SUCCESS || ev.dto.transferredLength != length)
        {
            throw new AssertionError("expected cookie " + cookie + " SUCCESS " + length + " B, got " + ev);
        }
    }

    /** One endpoint with its EVDs and an LMR of {@link #SIZE} bytes (all rights). */
    private static final class Side
    {
        final EventDispatcher recv;
        final EventDispatcher req;
        final EventDispatcher conn;
        final Endpoint ep;
        final MemorySegment memory;
        final Lmr lmr;

        Side(final InterfaceAdapter ia, final ProtectionZone pz, final Arena arena)
        {
            recv = ia.evdCreate(8, null, EvdFlags.DTO_FLAG);
            req = ia.evdCreate(8, null, EvdFlags.DTO_FLAG);
            conn = ia.evdCreate(8, null, EvdFlags.CONNECTION_FLAG);
            ep = ia.epCreate(pz, recv, req, conn, null);
            memory = arena.allocate(SIZE, 4096);
            lmr = ia.lmrCreate(MemType.VIRTUAL, RegionDescription.forVa(memory), SIZE, pz, MemPriv.ALL_FLAG);
        }

        /** A pattern that differs by {@code round}, so that stale bytes show. */
        void fill(final int round)
        {
            for (int i = 0; i < SIZE; i++)
            {
                memory.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 31 + round * 7));
            }
        }

        void sameBytesAs(final Side other, final String what)
        {
            final long at = memory.mismatch(other.memory);
            if (at != -1)
            {
                throw new AssertionError(what + ": the bytes differ from offset " + at);
            }
        }

        void free()
        {
            ep.free();
            lmr.free();
            recv.free();
            req.free();
            conn.free();
        }
    }
}

package io.jdat.tcp.channel;

import static io.jdat.tcp.channel.TcpNode.SECOND;
import static io.jdat.tcp.channel.TcpNode.next;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.ConnectionRequest;
import io.jdat.CrParam;
import io.jdat.DatEvent;
import io.jdat.DatException;
import io.jdat.DatReturnSubtype;
import io.jdat.DatReturnType;
import io.jdat.EpParam;
import io.jdat.EpState;
import io.jdat.EventDispatcher;
import io.jdat.EventNumber;
import io.jdat.EvdFlags;
import io.jdat.IaAddress;
import io.jdat.IaAttr;
import io.jdat.ProviderAttr;
import io.jdat.PspFlags;
import io.jdat.PublicServicePoint;
import io.jdat.Qos;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * Connection setup over real TCP sockets in one JVM: private data both ways, the qualifier as a
 * TCP port, consumer and provider rejections, nobody listening, a connect timeout, and the
 * attributes and thread an IA instance shows.
 */
class TcpConnectionTest
{
    private static final byte[] HELLO = "hello over tcp".getBytes(StandardCharsets.UTF_8);
    private static final byte[] WELCOME = "welcome back".getBytes(StandardCharsets.UTF_8);

    /** A connected pair: the server's PSP on a free port, the client's EP connected to it. */
    record Pair(TcpNode.Ep client, TcpNode.Ep server, PublicServicePoint psp)
    {
    }

    static Pair connect(final TcpNode clientNode, final TcpNode serverNode, final byte[] hello, final byte[] welcome)
    {
        final EventDispatcher crEvd = serverNode.evd(8, EvdFlags.CR_FLAG);
        final PublicServicePoint psp = serverNode.ia.pspCreateAny(crEvd, PspFlags.CONSUMER_FLAG);
        final TcpNode.Ep client = clientNode.ep(null);
        final TcpNode.Ep server = serverNode.ep(null);
        client.ep().connect(serverNode.address, psp.connQual(), 5 * SECOND, hello, Qos.BEST_EFFORT, 0);
        final DatEvent cr = next(crEvd, EventNumber.CONNECTION_REQUEST_EVENT);
        cr.crArrival.crHandle.accept(server.ep(), welcome);
        next(server.conn(), EventNumber.CONNECTION_EVENT_ESTABLISHED);
        next(client.conn(), EventNumber.CONNECTION_EVENT_ESTABLISHED);
        return new Pair(client, server, psp);
    }

    @Test
    void privateDataTravelsBothWaysAndTheQualifierIsATcpPort() throws Exception
    {
        try (TcpNode s = TcpNode.open(); TcpNode c = TcpNode.open())
        {
            assertEquals(IaAddress.parse("127.0.0.1"), s.address);
            final EventDispatcher crEvd = s.evd(8, EvdFlags.CR_FLAG);
            final PublicServicePoint psp = s.ia.pspCreateAny(crEvd, PspFlags.CONSUMER_FLAG);
            final long port = psp.connQual();
            assertTrue(port > 0 && port <= 65535, "a TCP port: " + port);
            // something really listens on that TCP port
            try (Socket probe = new Socket())
            {
                probe.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), (int) port), 2000);
            }
            final TcpNode.Ep client = c.ep(null);
            final TcpNode.Ep server = s.ep(null);
            final byte[] most = new byte[252];
            Arrays.fill(most, (byte) 0x5A);
            System.arraycopy(HELLO, 0, most, 0, HELLO.length);
            client.ep().connect(s.address, port, 5 * SECOND, most, Qos.BEST_EFFORT, 0);

            // the probe above closed without a Request: the next request is the client's
            final DatEvent ev = next(crEvd, EventNumber.CONNECTION_REQUEST_EVENT);
            assertEquals(port, ev.crArrival.connQual);
            final ConnectionRequest cr = ev.crArrival.crHandle;
            final CrParam p = new CrParam();
            cr.query(CrParam.FIELD_ALL, p);
            assertArrayEquals(most, Arrays.copyOf(p.privateData, p.privateDataSize));
            assertEquals(IaAddress.parse("127.0.0.1"), p.remoteIaAddress);
            final EpParam clientParam = new EpParam();
            client.ep().query(EpParam.FIELD_ALL, clientParam);
            assertEquals(clientParam.localPortQual, p.remotePortQual, "the request names the client's TCP port");
            assertNotEquals(0, p.remotePortQual);

            cr.accept(server.ep(), WELCOME);
            next(server.conn(), EventNumber.CONNECTION_EVENT_ESTABLISHED);
            final DatEvent up = next(client.conn(), EventNumber.CONNECTION_EVENT_ESTABLISHED);
            assertArrayEquals(WELCOME, Arrays.copyOf(up.connection.privateData, up.connection.privateDataSize));

            client.ep().query(EpParam.FIELD_ALL, clientParam);
            assertEquals(EpState.CONNECTED, clientParam.epState);
            assertEquals(s.address, clientParam.remoteIaAddress);
            assertEquals(port, clientParam.remotePortQual);
        }
    }

    @Test
    void privateDataLongerThanMpaCarriesIsRefusedAtTheCall()
    {
        try (TcpNode c = TcpNode.open())
        {
            final ProviderAttr pa = new ProviderAttr();
            c.ia.query(0, null, ProviderAttr.FIELD_ALL, pa);
            assertEquals(252, pa.maxPrivateDataSize, "what Linux iWARP peers carry beside the IRD/ORD word");
            final TcpNode.Ep client = c.ep(null);
            final DatException e = assertThrows(DatException.class, () -> client.ep().connect(c.address, 4000,
                SECOND, new byte[253], Qos.BEST_EFFORT, 0));
            assertEquals(DatReturnType.INVALID_PARAMETER, e.status().type());
        }
    }

    @Test
    void aConsumerRejectIsAPeerRejection()
    {
        try (TcpNode s = TcpNode.open(); TcpNode c = TcpNode.open())
        {
            final EventDispatcher crEvd = s.evd(8, EvdFlags.CR_FLAG);
            final PublicServicePoint psp = s.ia.pspCreateAny(crEvd, PspFlags.CONSUMER_FLAG);
            final TcpNode.Ep client = c.ep(null);
            client.ep().connect(s.address, psp.connQual(), 5 * SECOND, HELLO, Qos.BEST_EFFORT, 0);
            next(crEvd, EventNumber.CONNECTION_REQUEST_EVENT).crArrival.crHandle.reject();
            next(client.conn(), EventNumber.CONNECTION_EVENT_PEER_REJECTED);
            final EpParam p = new EpParam();
            client.ep().query(EpParam.FIELD_ALL, p);
            assertEquals(EpState.DISCONNECTED, p.epState);
        }
    }

    @Test
    void nobodyListeningIsANonPeerRejection() throws Exception
    {
        final int port;
        try (ServerSocket gone = new ServerSocket(0, 1, InetAddress.getLoopbackAddress()))
        {
            port = gone.getLocalPort();
        }
        try (TcpNode c = TcpNode.open())
        {
            final TcpNode.Ep client = c.ep(null);
            client.ep().connect(c.address, port, 5 * SECOND, HELLO, Qos.BEST_EFFORT, 0);
            next(client.conn(), EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED);
        }
    }

    @Test
    void aFreedPspRefusesLikeNobodyListening()
    {
        try (TcpNode s = TcpNode.open(); TcpNode c = TcpNode.open())
        {
            final EventDispatcher crEvd = s.evd(8, EvdFlags.CR_FLAG);
            final PublicServicePoint psp = s.ia.pspCreateAny(crEvd, PspFlags.CONSUMER_FLAG);
            final long port = psp.connQual();
            psp.free();
            final TcpNode.Ep client = c.ep(null);
            client.ep().connect(s.address, port, 5 * SECOND, HELLO, Qos.BEST_EFFORT, 0);
            next(client.conn(), EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED);
        }
    }

    @Test
    void aPeerThatNeverRepliesTimesOut() throws Exception
    {
        // a TCP listener that accepts and reads the MPA Request but never answers it
        try (ServerSocket silent = new ServerSocket(0, 4, InetAddress.getLoopbackAddress());
            TcpNode c = TcpNode.open())
        {
            final Thread reader = Thread.ofPlatform().daemon().start(() ->
            {
                try (Socket s = silent.accept(); InputStream in = s.getInputStream())
                {
                    while (in.read() >= 0)
                    {
                        // swallow the Request, answer nothing
                    }
                }
                catch (final java.io.IOException e)
                {
                    // the test ended
                }
            });
            final TcpNode.Ep client = c.ep(null);
            final long start = System.nanoTime();
            client.ep().connect(c.address, silent.getLocalPort(), 300_000, HELLO, Qos.BEST_EFFORT, 0);
            next(client.conn(), EventNumber.CONNECTION_EVENT_TIMED_OUT);
            final long ms = (System.nanoTime() - start) / 1_000_000;
            assertTrue(ms >= 250 && ms < 3000, "timed out after " + ms + " ms");
            // the attempt's socket is closed: the silent peer sees the end of the stream
            reader.join(3000);
            assertFalse(reader.isAlive(), "the abandoned TCP connection was not closed");
        }
    }

    @Test
    void aQualifierInUseIsRefusedAndAnUnusableOneIsAnInvalidParameter() throws Exception
    {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
            TcpNode s = TcpNode.open())
        {
            final EventDispatcher crEvd = s.evd(8, EvdFlags.CR_FLAG);
            DatException e = assertThrows(DatException.class,
                () -> s.ia.pspCreate(taken.getLocalPort(), crEvd, PspFlags.CONSUMER_FLAG));
            assertEquals(DatReturnType.CONN_QUAL_IN_USE, e.status().type());
            e = assertThrows(DatException.class, () -> s.ia.pspCreate(70000, crEvd, PspFlags.CONSUMER_FLAG));
            assertEquals(DatReturnType.INVALID_PARAMETER, e.status().type());
            final PublicServicePoint psp = s.ia.pspCreateAny(crEvd, PspFlags.CONSUMER_FLAG);
            e = assertThrows(DatException.class, () -> s.ia.pspCreate(psp.connQual(), crEvd, PspFlags.CONSUMER_FLAG));
            assertEquals(DatReturnType.CONN_QUAL_IN_USE, e.status().type());
        }
    }

    @Test
    void namesAreNotTcpAddresses()
    {
        try (TcpNode c = TcpNode.open())
        {
            final TcpNode.Ep client = c.ep(null);
            final DatException e = assertThrows(DatException.class, () -> client.ep().connect(IaAddress.named("srv"),
                4000, SECOND, null, Qos.BEST_EFFORT, 0));
            assertEquals(DatReturnType.INVALID_ADDRESS, e.status().type());
            assertEquals(DatReturnSubtype.INVALID_ADDRESS_UNSUPPORTED, e.status().subtype());
        }
    }

    @Test
    void aGracefulDisconnectReachesBothSides()
    {
        try (TcpNode s = TcpNode.open(); TcpNode c = TcpNode.open())
        {
            final Pair pair = connect(c, s, HELLO, WELCOME);
            pair.client().ep().disconnect(io.jdat.CloseFlags.GRACEFUL_FLAG);
            next(pair.client().conn(), EventNumber.CONNECTION_EVENT_DISCONNECTED);
            next(pair.server().conn(), EventNumber.CONNECTION_EVENT_DISCONNECTED);
        }
    }

    @Test
    void anAbruptDisconnectReachesThePeer()
    {
        try (TcpNode s = TcpNode.open(); TcpNode c = TcpNode.open())
        {
            final Pair pair = connect(c, s, HELLO, WELCOME);
            pair.server().ep().disconnect(io.jdat.CloseFlags.ABRUPT_FLAG);
            next(pair.server().conn(), EventNumber.CONNECTION_EVENT_DISCONNECTED);
            final DatEvent ev = next(pair.client().conn());
            assertTrue(ev.is(EventNumber.CONNECTION_EVENT_DISCONNECTED) || ev.is(EventNumber.CONNECTION_EVENT_BROKEN),
                ev.toString());
        }
    }

    @Test
    void aWildcardIaAcceptsOnEveryAddressAndSeesTheRealPeer()
    {
        try (TcpNode s = TcpNode.open("address=0.0.0.0"); TcpNode c = TcpNode.open())
        {
            assertEquals(IaAddress.parse("0.0.0.0"), s.address);
            final EventDispatcher crEvd = s.evd(8, EvdFlags.CR_FLAG);
            final PublicServicePoint psp = s.ia.pspCreateAny(crEvd, PspFlags.CONSUMER_FLAG);
            final TcpNode.Ep client = c.ep(null);
            client.ep().connect(IaAddress.parse("127.0.0.1"), psp.connQual(), 5 * SECOND, HELLO, Qos.BEST_EFFORT, 0);
            final DatEvent ev = next(crEvd, EventNumber.CONNECTION_REQUEST_EVENT);
            final CrParam p = new CrParam();
            ev.crArrival.crHandle.query(CrParam.FIELD_ALL, p);
            assertEquals(IaAddress.parse("127.0.0.1"), p.remoteIaAddress);
            ev.crArrival.crHandle.accept(s.ep(null).ep(), null);
            next(client.conn(), EventNumber.CONNECTION_EVENT_ESTABLISHED);
        }
    }

    @Test
    void ipv6Works() throws Exception
    {
        final InetAddress v6 = InetAddress.getByName("::1");
        org.junit.jupiter.api.Assumptions.assumeTrue(java.net.NetworkInterface.getByInetAddress(v6) != null,
            "this host has no ::1");
        try (TcpNode s = TcpNode.open("address=::1"); TcpNode c = TcpNode.open("address=::1"))
        {
            assertEquals(IaAddress.of(v6), s.address);
            final Pair pair = connect(c, s, HELLO, WELCOME);
            final EpParam p = new EpParam();
            pair.server().ep().query(EpParam.FIELD_ALL, p);
            assertEquals(IaAddress.of(v6), p.remoteIaAddress);
            // an IPv6 IA cannot reach an IPv4 address
            final DatException e = assertThrows(DatException.class, () -> c.ep(null).ep().connect(
                IaAddress.parse("127.0.0.1"), 4000, SECOND, null, Qos.BEST_EFFORT, 0));
            assertEquals(DatReturnSubtype.INVALID_ADDRESS_UNREACHABLE, e.status().subtype());
        }
    }

    @Test
    void anAddressOfAnotherHostCannotBeOpened()
    {
        final DatException e = assertThrows(DatException.class, () -> TcpNode.open("address=192.0.2.7"));
        assertEquals(DatReturnType.INSUFFICIENT_RESOURCES, e.status().type());
    }

    @Test
    void aRequestHandedOffToAnotherPspOfTheIaIsAcceptedThere()
    {
        try (TcpNode s = TcpNode.open(); TcpNode c = TcpNode.open())
        {
            final EventDispatcher first = s.evd(8, EvdFlags.CR_FLAG);
            final EventDispatcher second = s.evd(8, EvdFlags.CR_FLAG);
            final PublicServicePoint a = s.ia.pspCreateAny(first, PspFlags.CONSUMER_FLAG);
            final PublicServicePoint b = s.ia.pspCreateAny(second, PspFlags.CONSUMER_FLAG);
            final TcpNode.Ep client = c.ep(null);
            client.ep().connect(s.address, a.connQual(), 5 * SECOND, HELLO, Qos.BEST_EFFORT, 0);
            next(first, EventNumber.CONNECTION_REQUEST_EVENT).crArrival.crHandle.handoff(b.connQual());
            final DatEvent ev = next(second, EventNumber.CONNECTION_REQUEST_EVENT);
            assertEquals(b.connQual(), ev.crArrival.connQual);
            final CrParam p = new CrParam();
            ev.crArrival.crHandle.query(CrParam.FIELD_ALL, p);
            assertArrayEquals(HELLO, Arrays.copyOf(p.privateData, p.privateDataSize));
            ev.crArrival.crHandle.accept(s.ep(null).ep(), WELCOME);
            next(client.conn(), EventNumber.CONNECTION_EVENT_ESTABLISHED);
            // nothing listens on a qualifier that was never created
            final DatException e = assertThrows(DatException.class, () ->
            {
                final TcpNode.Ep other = c.ep(null);
                other.ep().connect(s.address, a.connQual(), 5 * SECOND, HELLO, Qos.BEST_EFFORT, 0);
                next(first, EventNumber.CONNECTION_REQUEST_EVENT).crArrival.crHandle.handoff(65535);
            });
            assertEquals(DatReturnType.INVALID_PARAMETER, e.status().type());
        }
    }

    @Test
    void closingAnIaEndsItsConnectionsAtThePeer()
    {
        try (TcpNode c = TcpNode.open())
        {
            final TcpNode s = TcpNode.open();
            final Pair pair;
            try
            {
                pair = connect(c, s, HELLO, WELCOME);
            }
            finally
            {
                s.close();
            }
            final DatEvent ev = next(pair.client().conn());
            assertTrue(ev.is(EventNumber.CONNECTION_EVENT_DISCONNECTED) || ev.is(EventNumber.CONNECTION_EVENT_BROKEN),
                ev.toString());
        }
    }

    private static java.util.List<Thread> ioThreads(final TcpNode n)
    {
        return n.provider().liveThreads().stream().filter(t -> t.getName().startsWith("jdat-tcp-")
            && t.getName().endsWith("-io")).toList();
    }

    @Test
    void theIaShowsItsLivenessBoundAndOneNamedIoThreadThatCloseEnds() throws Exception
    {
        final TcpNode n = TcpNode.open("liveness_ms=3000 crc=true");
        final Thread io;
        try
        {
            final IaAttr a = n.query();
            assertEquals("3000", a.transportAttr("jdat.tcp.liveness_ms"));
            assertEquals("true", a.transportAttr("jdat.tcp.crc"));
            final java.util.List<Thread> tcp = ioThreads(n);
            assertEquals(1, tcp.size(), n.provider().liveThreads().toString());
            io = tcp.getFirst();
            assertEquals("jdat-tcp-" + n.name + "-" + io.getName().split("-")[io.getName().split("-").length - 2]
                + "-io", io.getName());
            connect(n, n, HELLO, WELCOME);
            assertEquals(1, ioThreads(n).size(), "connections add no thread: " + n.provider().liveThreads());
        }
        finally
        {
            n.close();
        }
        io.join(5000);
        assertFalse(io.isAlive(), "the I/O thread outlived the IA");
        try (TcpNode d = TcpNode.open())
        {
            assertEquals("5000", d.query().transportAttr("jdat.tcp.liveness_ms"), "the default bound is 5 s");
        }
    }
}

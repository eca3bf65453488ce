package io.jdat.tools.perf;

import io.jdat.ConnectionRequest;
import io.jdat.CrParam;
import io.jdat.DatCount;
import io.jdat.DatEvent;
import io.jdat.DatStatus;
import io.jdat.EpAttr;
import io.jdat.EventDispatcher;
import io.jdat.EventNumber;
import io.jdat.IaAddress;
import io.jdat.IaAttr;
import io.jdat.Lmr;
import io.jdat.MemPriv;
import io.jdat.tools.kit.CheckFailed;
import io.jdat.tools.kit.Completion;
import io.jdat.tools.kit.ControlChannel;
import io.jdat.tools.kit.HostPort;
import io.jdat.tools.kit.Link;
import io.jdat.tools.kit.Message;
import io.jdat.tools.kit.Node;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * One side of a {@code jdat perf} session: three connections to the peer (control messages;
 * {@code fwd}, where the client initiates; {@code rev}, where the server streams Sends in a
 * bidirectional test), one data LMR (source half, destination half) and its twin at the peer.
 */
final class PerfSide
{
    private static final String MAGIC = "jdat-perf 1";
    /** Bytes of the credit LMR: 16 receive slots and 16 send slots of 8 bytes. */
    static final int CREDIT_SLOTS = 16;

    final Node node;
    final Settings settings;
    final ControlChannel ctrl;
    final Link fwd;
    final Link rev;
    final Lmr data;
    final Lmr credits;
    final MemorySegment memory;
    /** Outstanding RDMA Reads per endpoint, as negotiated. */
    final int readDepth;
    /** The server's IA address (on the client; null on the server). */
    IaAddress peerAddress;
    int remoteContext;
    long remoteAddress;

    /**
     * What both sides must agree on before their endpoints exist; the client sends it as the
     * private data of its first connection.
     *
     * @param maxSize       the largest message
     * @param depth         outstanding requests per stream (perftest's tx depth) and receive credits
     * @param poll          whether latency tests poll completions instead of waiting
     * @param timeoutMicros how long any single wait may take
     * @param shared        shm: the data memory of both sides is the provider's shared memory
     */
    record Settings(long maxSize, int depth, boolean poll, long timeoutMicros, boolean shared)
    {
        byte[] privateData()
        {
            return (MAGIC + " ctrl max=" + maxSize + " depth=" + depth + " poll=" + (poll ? 1 : 0) + " timeout="
                + timeoutMicros + " shared=" + (shared ? 1 : 0)).getBytes(StandardCharsets.US_ASCII);
        }

        static Settings parse(final byte[] privateData)
        {
            final String text = new String(privateData, StandardCharsets.US_ASCII).strip();
            if (!text.startsWith(MAGIC + " ctrl "))
            {
                throw new CheckFailed("connection request with unexpected private data: '" + text + "'");
            }
            final Message m = Message.parse(text.substring(MAGIC.length() + 1));
            return new Settings(m.getLong("max"), m.getInt("depth"), m.getFlag("poll"), m.getLong("timeout"),
                m.getFlag("shared"));
        }
    }

    private PerfSide(final Node node, final Settings settings, final String role)
    {
        this.node = node;
        this.settings = settings;
        final IaAttr ia = node.attributes();
        this.readDepth = Math.max(1, Math.min(16, Math.min(ia.maxRdmaReadPerEpOut, ia.maxRdmaReadPerEpIn)));
        final EpAttr attr = new EpAttr();
        attr.maxRecvDtos = settings.depth + 2 * CREDIT_SLOTS;
        attr.maxRequestDtos = settings.depth + 2 * CREDIT_SLOTS;
        attr.maxRdmaReadOut = readDepth;
        attr.maxRdmaReadIn = readDepth;
        attr.maxMessageSize = Math.max(attr.maxMessageSize, settings.maxSize);
        attr.maxRdmaSize = Math.max(attr.maxRdmaSize, settings.maxSize);
        final Completion mode = settings.poll ? Completion.POLL : Completion.WAIT;
        this.ctrl = new ControlChannel(node, node.link(role + " control", null, Completion.WAIT,
            settings.timeoutMicros * 10));
        this.fwd = node.link(role + " fwd", attr, mode, settings.timeoutMicros);
        this.rev = node.link(role + " rev", attr, mode, settings.timeoutMicros);
        this.data = settings.shared ? node.registerShared(2 * settings.maxSize, MemPriv.ALL_FLAG)
            : node.register(2 * settings.maxSize, MemPriv.ALL_FLAG);
        this.credits = node.register(2 * CREDIT_SLOTS * 8, MemPriv.LOCAL_READ_FLAG | MemPriv.LOCAL_WRITE_FLAG);
        this.memory = data.memory();
    }

    /** The client: opens its side and connects the three connections to {@code server}. */
    static PerfSide connect(final Node node, final HostPort server, final Settings settings)
    {
        final PerfSide s = new PerfSide(node, settings, "client");
        s.peerAddress = server.address();
        s.ctrl.link.connect(server.address(), server.port(), settings.privateData());
        s.fwd.connect(server.address(), server.port(), (MAGIC + " fwd").getBytes(StandardCharsets.US_ASCII));
        s.rev.connect(server.address(), server.port(), (MAGIC + " rev").getBytes(StandardCharsets.US_ASCII));
        final Message reply = s.ctrl.call(s.setup());
        s.learn(reply.expect("SETUP"));
        return s;
    }

    /** The server: waits for a client's three connections on {@code crEvd} and accepts them. */
    static PerfSide accept(final Node node, final EventDispatcher crEvd, final long waitMicros)
    {
        final ConnectionRequest first = request(crEvd, waitMicros);
        final PerfSide s = new PerfSide(node, Settings.parse(privateData(first)), "server");
        s.ctrl.link.accept(first, null);
        for (final Link link : new Link[] {s.fwd, s.rev})
        {
            final ConnectionRequest cr = request(crEvd, s.settings.timeoutMicros);
            final String expected = MAGIC + " " + (link == s.fwd ? "fwd" : "rev");
            if (!Arrays.equals(expected.getBytes(StandardCharsets.US_ASCII), privateData(cr)))
            {
                cr.reject();
                throw new CheckFailed("expected the client's '" + expected + "' connection, got private data '"
                    + new String(privateData(cr), StandardCharsets.US_ASCII) + "'");
            }
            link.accept(cr, null);
        }
        s.learn(s.ctrl.receive().expect("SETUP"));
        s.ctrl.send(s.setup());
        return s;
    }

    private static ConnectionRequest request(final EventDispatcher crEvd, final long waitMicros)
    {
        final DatEvent ev = new DatEvent();
        final DatStatus s = crEvd.wait(waitMicros, 1, ev, new DatCount());
        if (s != DatStatus.SUCCESS || !ev.is(EventNumber.CONNECTION_REQUEST_EVENT))
        {
            throw new CheckFailed("waiting for a connection request: " + (s == DatStatus.SUCCESS ? ev : s));
        }
        return ev.crArrival.crHandle;
    }

    private static byte[] privateData(final ConnectionRequest cr)
    {
        final CrParam p = new CrParam();
        cr.query(CrParam.FIELD_PRIVATE_DATA | CrParam.FIELD_PRIVATE_DATA_SIZE, p);
        return p.privateData == null ? new byte[0] : Arrays.copyOf(p.privateData, p.privateDataSize);
    }

    private Message setup()
    {
        return Message.of("SETUP").with("rmr", data.rmrContext()).with("addr", data.registeredAddress()).build();
    }

    private void learn(final Message m)
    {
        remoteContext = (int) m.getLong("rmr");
        remoteAddress = m.getLong("addr");
    }

    /** Offset of the source half of the data LMR. */
    long src()
    {
        return 0;
    }

    /** Offset of the destination half of the data LMR. */
    long dst()
    {
        return settings.maxSize;
    }

    /** Ends the session's connections (the client says goodbye first). */
    void disconnect()
    {
        for (final Link l : new Link[] {fwd, rev, ctrl.link})
        {
            l.disconnect();
        }
    }
}

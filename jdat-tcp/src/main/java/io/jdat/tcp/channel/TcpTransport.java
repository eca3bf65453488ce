package io.jdat.tcp.channel;

import io.jdat.IaAddress;
import io.jdat.engine.EngineConfig;
import io.jdat.engine.channel.Transport;
import io.jdat.engine.channel.TransportContext;
import io.jdat.engine.channel.TransportPort;
import io.jdat.tcp.Fpdu;
import io.jdat.tcp.Mpa;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * DAT over TCP in the iWARP wire format. The IA address is the IP address the IA binds (instance
 * data {@code address=IP}, default {@code 127.0.0.1}; {@code 0.0.0.0} and IPv6 addresses work
 * too); a connection qualifier is a TCP port. Options (instance data):
 * <ul>
 *   <li>{@code crc}: ask for MPA CRC32C (default false; CRC is used when either side asks)</li>
 *   <li>{@code mpa_revision}: the Request this side sends, 2 (RFC 6581 enhanced, with the
 *       IRD/ORD word; the default) or 1 (RFC 5044, no IRD/ORD)</li>
 *   <li>{@code p2p}: propose RFC 6581 peer-to-peer mode with a zero-length RDMA Write as the
 *       ready-to-receive message (default true), so the responder may send first; ignored with
 *       revision 1</li>
 *   <li>{@code responder_wait_ms}: how long a responder without peer-to-peer mode holds its first
 *       FPDU for the initiator's (RFC 5044's startup rule) before it sends anyway (default 1000;
 *       0 sends right after the Reply, as does {@code responder_waits=false})</li>
 *   <li>{@code rev1_ird_ord}: the RDMA Reads a Rev 1 peer, which cannot say, is taken to serve and
 *       to issue at once (default 1)</li>
 *   <li>{@code mss}: the most bytes one FPDU takes on the wire, {@value Fpdu#MIN_MAX_FPDU_LENGTH}
 *       to 65536; default {@code auto}: the MTU of the connection's local interface less the IP
 *       and TCP headers (1448 on Ethernet, 65484 on Linux loopback)</li>
 *   <li>{@code max_private_data}: at most {@value Mpa#MAX_ENHANCED_CONSUMER_PRIVATE_DATA_LENGTH}
 *       (the default), what Linux peers carry</li>
 *   <li>{@code liveness_ms}: the bound on noticing a dead peer (default 5000, at least 2000): TCP
 *       keepalive probes an idle connection, and a connection whose sending made no progress for
 *       that long, or whose bytes in flight a silent peer did not acknowledge for that long, is
 *       broken</li>
 *   <li>{@code mpa_timeout_ms}: how long an accepted TCP connection may take to send its MPA
 *       Request before it is closed (default 10000)</li>
 *   <li>{@code max_half_open}: how many accepted TCP connections of an IA may be waiting for their
 *       MPA Request at once (default 1024); one more closes the one that has waited longest, so
 *       a flood of silent or half-sent connections holds a bounded number of descriptors and
 *       buffers while an honest initiator, whose Request follows its connect at once, is served.
 *       The bound counts connections accepted but not yet read, so it must stay above the
 *       largest burst of honest connects: 256 turned away a wave of 500 on a loaded host</li>
 *   <li>{@code close_timeout_ms}: how long a graceful close or a Terminate waits for the peer to
 *       close its side (default 2000)</li>
 *   <li>{@code rx_buffer}, {@code tx_buffer}: bytes of a read and of a write: the IA's shared
 *       receive and send buffers, and a connection's own while it holds part of an FPDU or bytes
 *       the kernel did not take yet (defaults 256 KiB and 1 MiB; never less than one FPDU)</li>
 *   <li>{@code backlog}: the listen backlog of a qualifier (default 1024, as many as may be half
 *       open; the kernel caps it at {@code net.core.somaxconn})</li>
 * </ul>
 */
final class TcpTransport implements Transport
{
    static final int MIN_LIVENESS_MS = 2000;

    final IaAddress address;
    final boolean crc;
    final int mpaRevision;
    final boolean peerToPeer;
    /**
     * RFC 5044's startup rule on the responder: without peer-to-peer mode it sends nothing until
     * the initiator's first FPDU has arrived, so that the initiator is in FPDU mode before any
     * FPDU reaches it. An initiator that never speaks first (siw's, under OFED dapltest's
     * performance test, whose server Sends first) would wait forever: after this long the
     * initiator has long taken the Reply, and the responder sends anyway. 0: right after the Reply.
     */
    final long responderWaitNanos;
    final int rev1IrdOrd;
    /** Bytes of one FPDU at most; 0 for auto. */
    final int mss;
    final int maxPrivateData;
    final long livenessMillis;
    final long mpaTimeoutNanos;
    final int maxHalfOpen;
    final long closeTimeoutNanos;
    final int rxBuffer;
    final int txBuffer;
    final int backlog;
    private final Map<InetAddress, Integer> autoMss = new ConcurrentHashMap<>();

    TcpTransport(final EngineConfig config)
    {
        final String a = config.get("address");
        final String text = a == null || a.isEmpty() ? "127.0.0.1" : a;
        final IaAddress parsed = IaAddress.parse(text);
        if (!parsed.isInet())
        {
            throw new IllegalArgumentException("tcp address '" + text + "' is not an IP address literal");
        }
        this.address = parsed;
        this.crc = config.flag("crc", false);
        this.mpaRevision = (int) config.bounded("mpa_revision", Mpa.REVISION_2, Mpa.REVISION_1, Mpa.REVISION_2);
        this.peerToPeer = config.flag("p2p", true) && mpaRevision == Mpa.REVISION_2;
        this.responderWaitNanos = config.flag("responder_waits", true)
            ? config.bounded("responder_wait_ms", 1000, 0, 3_600_000) * 1_000_000L : 0;
        this.rev1IrdOrd = (int) config.bounded("rev1_ird_ord", 1, 0, Mpa.IrdOrd.VALUE_MASK);
        final String m = config.get("mss");
        this.mss = m == null || m.isEmpty() || m.equalsIgnoreCase("auto") ? 0
            : (int) config.bounded("mss", 0, Fpdu.MIN_MAX_FPDU_LENGTH, Fpdu.DEFAULT_MAX_FPDU_LENGTH);
        this.maxPrivateData = (int) config.bounded("max_private_data", Mpa.MAX_ENHANCED_CONSUMER_PRIVATE_DATA_LENGTH,
            0, Mpa.MAX_ENHANCED_CONSUMER_PRIVATE_DATA_LENGTH);
        this.livenessMillis = config.bounded("liveness_ms", 5000, MIN_LIVENESS_MS, 3_600_000);
        this.mpaTimeoutNanos = config.bounded("mpa_timeout_ms", 10_000, 1, 3_600_000) * 1_000_000L;
        this.maxHalfOpen = (int) config.bounded("max_half_open", 1024, 1, 1 << 20);
        this.closeTimeoutNanos = config.bounded("close_timeout_ms", 2000, 1, 3_600_000) * 1_000_000L;
        this.rxBuffer = (int) config.bounded("rx_buffer", 256 << 10, 0, 1 << 30);
        // large sends leave in writes of up to this many bytes: 1 MiB gave 20-30 % more bandwidth
        // at 1 MiB messages than 256 KiB (docs/perf.md); a larger receive buffer gave nothing
        this.txBuffer = (int) config.bounded("tx_buffer", 1 << 20, 0, 1 << 30);
        this.backlog = (int) config.bounded("backlog", 1024, 1, 65535);
    }

    /**
     * The FPDU bound of a connection whose local end is {@code local}: the option, or the
     * interface's MTU less 40 (IPv4) or 60 (IPv6) bytes of IP and TCP headers and 12 of TCP
     * timestamps, within what one FPDU can be.
     */
    int maxFpdu(final InetAddress local)
    {
        if (mss != 0)
        {
            return mss;
        }
        return autoMss.computeIfAbsent(local, l ->
        {
            int mtu = -1;
            try
            {
                final NetworkInterface nif = NetworkInterface.getByInetAddress(l);
                mtu = nif == null ? -1 : nif.getMTU();
            }
            catch (final SocketException e)
            {
                // unknown: Ethernet's
            }
            if (mtu <= 0)
            {
                mtu = 1500;
            }
            final int headers = (l instanceof Inet6Address ? 60 : 40) + 12;
            return Math.max(Fpdu.MIN_MAX_FPDU_LENGTH, Math.min(Fpdu.DEFAULT_MAX_FPDU_LENGTH, mtu - headers));
        });
    }

    @Override
    public String name()
    {
        return TcpLibrary.NAME;
    }

    @Override
    public TransportPort open(final TransportContext context)
    {
        return new TcpPort(this, context);
    }
}

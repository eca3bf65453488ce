package io.jdat.tcp.channel;

import io.jdat.engine.channel.OutboundMessage;
import io.jdat.tcp.DdpRdmap;
import io.jdat.tcp.Fpdu;
import io.jdat.tcp.FpduEncoder;
import io.jdat.tcp.Mpa;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.function.Consumer;
import java.util.zip.CRC32C;

/**
 * The other end of a jdat tcp connection written by hand with the wire codecs: it sends and
 * reads MPA frames and FPDUs byte for byte, so tests can check what jdat puts on the wire and
 * feed it what a broken or hostile peer would. Every read times out after 5 s.
 */
final class RawPeer implements AutoCloseable
{
    final Socket socket;
    private final DataInputStream in;
    private final OutputStream out;
    private boolean crc;

    RawPeer(final Socket socket) throws IOException
    {
        this.socket = socket;
        socket.setSoTimeout(5000);
        socket.setTcpNoDelay(true);
        this.in = new DataInputStream(socket.getInputStream());
        this.out = socket.getOutputStream();
    }

    static RawPeer connect(final long port) throws IOException
    {
        final Socket s = new Socket();
        s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), (int) port), 5000);
        return new RawPeer(s);
    }

    /** The FPDUs from now on carry a CRC (the handshake agreed on it). */
    void crc(final boolean on)
    {
        this.crc = on;
    }

    void write(final byte[] bytes) throws IOException
    {
        out.write(bytes);
        out.flush();
    }

    /** An MPA frame with exactly these header fields. */
    static byte[] frame(final boolean request, final int flags, final int revision, final Mpa.IrdOrd word,
        final byte[] privateData)
    {
        final ByteBuffer b = ByteBuffer.allocate(Mpa.MAX_FRAME_LENGTH);
        final int n = Mpa.encode(b, request, flags, revision, word, privateData);
        return Arrays.copyOf(b.array(), n);
    }

    /** Reads one MPA Request or Reply. */
    Mpa.Frame readFrame(final boolean request) throws IOException
    {
        final byte[] header = new byte[Mpa.HEADER_LENGTH];
        in.readFully(header);
        final int pd = ((header[Mpa.PD_LENGTH_OFFSET] & 0xFF) << 8) | (header[Mpa.PD_LENGTH_OFFSET + 1] & 0xFF);
        final byte[] all = Arrays.copyOf(header, Mpa.HEADER_LENGTH + pd);
        in.readFully(all, Mpa.HEADER_LENGTH, pd);
        final Mpa.Result r = Mpa.decode(ByteBuffer.wrap(all), request);
        if (r.status() != Mpa.Status.FRAME)
        {
            throw new IOException("not an MPA " + (request ? "Request" : "Reply") + ": " + r.status());
        }
        return r.frame();
    }

    /** The FPDUs of {@code m}, each CRC'd per the agreed setting, then changed by {@code damage}. */
    byte[] fpdus(final OutboundMessage m, final Consumer<ByteBuffer> damage)
    {
        final FpduEncoder e = new FpduEncoder(crc);
        final ByteBuffer b = ByteBuffer.allocate(1 << 20);
        e.begin(m);
        if (!e.encode(b))
        {
            throw new IllegalStateException("message too large for the test buffer");
        }
        b.flip();
        damage.accept(b);
        return Arrays.copyOf(b.array(), b.limit());
    }

    /** Recomputes the CRC of the (single) FPDU at 0 after its bytes were changed. */
    void recrc(final ByteBuffer fpdu)
    {
        final int ulpdu = Fpdu.ulpduLength(fpdu, 0);
        Fpdu.putCrc(fpdu, 0, ulpdu, crc ? Fpdu.computeCrc(new CRC32C(), fpdu.duplicate(), 0, ulpdu) : 0);
    }

    void send(final OutboundMessage m) throws IOException
    {
        write(fpdus(m, b ->
        {
        }));
    }

    /** Reads one FPDU whole; its segment starts at {@link Fpdu#ULPDU_OFFSET}. */
    ByteBuffer readFpdu() throws IOException
    {
        final int ulpdu = in.readUnsignedShort();
        final byte[] all = new byte[Fpdu.fpduLength(ulpdu)];
        all[0] = (byte) (ulpdu >>> 8);
        all[1] = (byte) ulpdu;
        in.readFully(all, 2, all.length - 2);
        return ByteBuffer.wrap(all);
    }

    /** Whether the FPDU's CRC field is right for the agreed setting (zero without CRC). */
    boolean crcValid(final ByteBuffer fpdu)
    {
        final int ulpdu = Fpdu.ulpduLength(fpdu, 0);
        final int expected = crc ? Fpdu.computeCrc(new CRC32C(), fpdu.duplicate(), 0, ulpdu) : 0;
        return Fpdu.getCrc(fpdu, 0, ulpdu) == expected;
    }

    static int opcode(final ByteBuffer fpdu)
    {
        return DdpRdmap.opcode(fpdu, Fpdu.ULPDU_OFFSET);
    }

    /** Whether the peer closed its side: the next read ends the stream (within 5 s). */
    boolean endOfStream() throws IOException
    {
        try
        {
            return in.read() < 0;
        }
        catch (final java.net.SocketException e)
        {
            // a reset ends it too
            return true;
        }
    }

    @Override
    public void close() throws IOException
    {
        socket.close();
    }
}

package io.jdat.tools.rping;

import io.jdat.IaAddress;
import io.jdat.Lmr;
import io.jdat.MemPriv;
import io.jdat.tools.kit.CheckFailed;
import io.jdat.tools.kit.Node;
import java.io.PrintWriter;

/**
 * The client half of rdma-core's rping, per ping: fill the start buffer with the ping's text and
 * advertise it; after the server's "go on", advertise the (cleared) RDMA buffer; after "done",
 * compare the two buffers byte by byte.
 */
final class RpingClient extends RpingEnd
{
    private final int size;
    private final Lmr startBuf;
    private final Lmr rdmaBuf;

    RpingClient(final Node node, final PrintWriter out, final boolean verbose, final long timeoutMicros,
        final int size)
    {
        super(node, out, verbose, timeoutMicros);
        this.size = size;
        this.startBuf = node.register(size,
            MemPriv.LOCAL_READ_FLAG | MemPriv.LOCAL_WRITE_FLAG | MemPriv.REMOTE_READ_FLAG);
        this.rdmaBuf = node.register(size,
            MemPriv.LOCAL_READ_FLAG | MemPriv.LOCAL_WRITE_FLAG | MemPriv.REMOTE_WRITE_FLAG);
    }

    /** Connects and runs {@code count} pings (0: until stopped); returns the pings verified. */
    long run(final IaAddress address, final long port, final long count)
    {
        postRecv();
        // its message names the address and port ("nobody is listening at ...")
        link.connect(address, port, null);
        int start = RpingData.first();
        long verified = 0;
        for (ping = 0; count == 0 || ping < count; ping++)
        {
            RpingData.fill(startBuf.memory(), size, ping, start);
            start = RpingData.next(start);
            rdmaBuf.memory().fill((byte) 0);
            send(RpingInfo.of(startBuf, size), "Send of the start buffer");
            if (ping == 0)
            {
                // the first message on the connection: a siw server may not have read it yet
                recvNudging("wait for the server's go-ahead");
            }
            else
            {
                recv("wait for the server's go-ahead");
            }
            send(RpingInfo.of(rdmaBuf, size), "Send of the RDMA buffer");
            recv("wait for the server's write-done");
            final long at = startBuf.memory().mismatch(rdmaBuf.memory());
            if (at >= 0)
            {
                throw new CheckFailed("data mismatch in ping " + ping + " at byte " + at + " of " + size);
            }
            if (verbose)
            {
                out.println("ping data: " + RpingData.text(rdmaBuf.memory(), size));
            }
            verified++;
        }
        link.disconnect();
        return verified;
    }
}

package io.jdat.tools.rping;

import io.jdat.DatEvent;
import io.jdat.DatCount;
import io.jdat.DatStatus;
import io.jdat.EventDispatcher;
import io.jdat.EventNumber;
import io.jdat.EvdFlags;
import io.jdat.Lmr;
import io.jdat.MemPriv;
import io.jdat.PspFlags;
import io.jdat.PublicServicePoint;
import io.jdat.tools.kit.CheckFailed;
import io.jdat.tools.kit.Node;
import java.io.PrintWriter;
import java.lang.foreign.ValueLayout;

/**
 * The server half of rdma-core's rping, per ping: wait for the client's advertisement of its
 * start buffer, RDMA Read it into this side's buffer, Send "go on"; wait for the advertisement of
 * the client's RDMA buffer, RDMA Write the data back into it, Send "done".
 */
final class RpingServer extends RpingEnd
{
    private final int size;
    private final Lmr rdmaBuf;

    RpingServer(final Node node, final PrintWriter out, final boolean verbose, final long timeoutMicros,
        final int size)
    {
        super(node, out, verbose, timeoutMicros);
        this.size = size;
        // the Read's sink takes a tagged placement (an RDMA Read Response): remote write too
        this.rdmaBuf = node.register(size, MemPriv.ALL_FLAG);
    }

    /**
     * Listens on {@code port} (0: a free one, {@code dat_psp_create_any}), accepts one client and
     * serves {@code count} pings (0: until the client disconnects). Returns the pings served.
     *
     * @param corruptPing test only: the ping whose echo gets one byte changed, or -1
     */
    int run(final long port, final long count, final long timeoutMicros, final long corruptPing)
    {
        final EventDispatcher crEvd = node.evd(4, null, EvdFlags.CR_FLAG);
        final PublicServicePoint psp = port == 0 ? node.ia.pspCreateAny(crEvd, PspFlags.CONSUMER_FLAG)
            : node.ia.pspCreate(port, crEvd, PspFlags.CONSUMER_FLAG);
        out.println("rping server: listening on " + node.address + " port " + psp.connQual());
        out.flush();
        postRecv();
        final DatEvent cr = new DatEvent();
        if (crEvd.wait(timeoutMicros, 1, cr, new DatCount()) != DatStatus.SUCCESS
            || !cr.is(EventNumber.CONNECTION_REQUEST_EVENT))
        {
            throw new CheckFailed("no client connected within " + timeoutMicros / 1_000_000 + " s");
        }
        link.accept(cr.crArrival.crHandle, null);
        psp.free();
        int served = 0;
        for (ping = 0; count == 0 || ping < count; ping++)
        {
            final RpingInfo start;
            try
            {
                start = recv("wait for the client's start buffer");
            }
            catch (final Ended e)
            {
                if (count == 0 && e.byPeer())
                {
                    // the client is done
                    return served;
                }
                throw e;
            }
            if (start.size() < 1 || start.size() > size)
            {
                throw new CheckFailed("ping " + ping + ": the client's buffer of " + start.size()
                    + " bytes does not fit this side's " + size);
            }
            read(rdmaBuf, start, start.size(), "RDMA Read of the client's start buffer");
            if (verbose)
            {
                out.println("server ping data: " + RpingData.text(rdmaBuf.memory(), start.size()));
            }
            send(new RpingInfo(0, 0, 0), "Send of go-ahead");
            final RpingInfo sink = recv("wait for the client's RDMA buffer");
            final int length = Math.min(RpingData.length(rdmaBuf.memory(), start.size()), sink.size());
            if (ping == corruptPing)
            {
                rdmaBuf.memory().set(ValueLayout.JAVA_BYTE, length / 2,
                    (byte) (rdmaBuf.memory().get(ValueLayout.JAVA_BYTE, length / 2) ^ 0x20));
            }
            write(rdmaBuf, sink, length, "RDMA Write of the echo");
            try
            {
                send(new RpingInfo(0, 0, 0), "Send of write-done");
            }
            catch (final Ended e)
            {
                // a client that got the last one may disconnect before its Send completes here
                if (!e.byPeer() || ping + 1 != count)
                {
                    throw e;
                }
                return served + 1;
            }
            served++;
        }
        link.disconnect();
        return served;
    }
}

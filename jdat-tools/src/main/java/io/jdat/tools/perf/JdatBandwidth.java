package io.jdat.tools.perf;

import io.jdat.CompletionFlags;
import io.jdat.DatEvent;
import io.jdat.DatStatus;
import io.jdat.DtoStatus;
import io.jdat.EventDispatcher;
import io.jdat.EventNumber;
import io.jdat.LmrTriplet;
import io.jdat.RmrTriplet;
import io.jdat.tools.kit.CheckFailed;
import io.jdat.tools.kit.Link;
import java.lang.foreign.ValueLayout;
import java.util.List;

/**
 * jdat's bandwidth tests: streams that a thread advances in turn, polling, so one thread can
 * send and receive at once in a bidirectional test. RDMA streams keep {@code depth} requests
 * outstanding (Reads: as many as the endpoint allows), with every {@code window/4}-th one
 * signalled. A Send stream spends receive credits: the receiver posts {@code depth} receives,
 * posts each again as it completes and returns credits in 8-byte Sends, since iWARP has no
 * receiver-not-ready retry.
 */
final class JdatBandwidth
{
    private JdatBandwidth()
    {
    }

    /** One direction of traffic, advanced by {@link #step()}. */
    abstract static class Stream
    {
        final Link link;
        final DatEvent event = new DatEvent();
        long startNanos;
        long endNanos;

        Stream(final Link link)
        {
            this.link = link;
        }

        /** Does what can be done now without waiting; true if anything happened. */
        abstract boolean step();

        /** Whether this stream is finished. */
        abstract boolean done();

        /** Nanoseconds from the first measured message to the end. */
        long nanos()
        {
            return endNanos - startNanos;
        }

        /** Dequeues one event of {@code evd} and checks that it is a successful DTO completion. */
        final boolean poll(final EventDispatcher evd, final String what)
        {
            if (evd.dequeue(event) != DatStatus.SUCCESS)
            {
                return false;
            }
            if (!event.is(EventNumber.DTO_COMPLETION_EVENT) || event.dto.status != DtoStatus.SUCCESS)
            {
                throw new CheckFailed(what + " on " + link.name + ": " + event);
            }
            return true;
        }
    }

    /** Runs the streams on this thread until all are done or the time limit passes. */
    static void run(final List<Stream> streams, final long timeoutMicros)
    {
        final long limit = timeoutMicros * 1000;
        long idleSince = System.nanoTime();
        int idle = 0;
        while (true)
        {
            boolean progress = false;
            boolean done = true;
            // indexed: an iterator would be an allocation per pass wherever escape analysis does not run
            for (int i = 0; i < streams.size(); i++)
            {
                final Stream s = streams.get(i);
                if (!s.done())
                {
                    progress |= s.step();
                    done &= s.done();
                }
            }
            if (done)
            {
                return;
            }
            if (progress)
            {
                idle = 0;
                continue;
            }
            if (idle++ == 0)
            {
                idleSince = System.nanoTime();
            }
            else if ((idle & 0xFFF) == 0 && System.nanoTime() - idleSince > limit)
            {
                throw new CheckFailed("bandwidth stream on " + streams.get(0).link.name + ": no progress for "
                    + timeoutMicros / 1e6 + " s");
            }
            Thread.onSpinWait();
        }
    }

    /** RDMA Writes or Reads of {@code size} bytes, {@code window} outstanding. */
    static final class RdmaStream extends Stream
    {
        private final boolean write;
        private final LmrTriplet[] local;
        private final RmrTriplet remote;
        private final int total;
        private final int warmup;
        private final int window;
        private final int signal;
        private final long size;
        private int posted;
        private int retired;

        RdmaStream(final Link link, final boolean write, final LmrTriplet local, final RmrTriplet remote,
            final RowSpec row, final int window)
        {
            super(link);
            this.write = write;
            this.local = new LmrTriplet[] {local};
            this.remote = remote;
            this.total = row.total();
            this.warmup = row.warmup();
            this.window = window;
            this.signal = Math.max(1, window / 4);
            this.size = row.size();
        }

        @Override
        boolean step()
        {
            boolean progress = false;
            if (posted < total && posted - retired < window)
            {
                if (posted == warmup)
                {
                    startNanos = System.nanoTime();
                }
                final int flags = (posted + 1) % signal == 0 || posted == total - 1 ? CompletionFlags.DEFAULT_FLAG
                    : CompletionFlags.SUPPRESS_FLAG;
                if (write)
                {
                    link.ep.postRdmaWrite(1, local, posted, remote, flags);
                }
                else
                {
                    link.ep.postRdmaRead(1, local, posted, remote, flags);
                }
                posted++;
                progress = true;
            }
            if (poll(link.reqEvd, write ? "RDMA Write stream" : "RDMA Read stream"))
            {
                if (event.dto.transferredLength != size)
                {
                    throw new CheckFailed("RDMA stream on " + link.name + ": " + event.dto.transferredLength
                        + " bytes transferred, expected " + size);
                }
                retired = (int) event.dto.userCookie + 1;
                if (retired == total)
                {
                    endNanos = System.nanoTime();
                }
                progress = true;
            }
            return progress;
        }

        @Override
        boolean done()
        {
            return retired == total;
        }
    }

    /** How many credit messages a receiver of {@code total} messages returns. */
    static int creditMessages(final int total, final int batch)
    {
        return (total + batch - 1) / batch;
    }

    /** Receive credits are returned after this many receives. */
    static int batch(final int credits)
    {
        return Math.max(1, credits / 4);
    }

    /** Sends of {@code size} bytes, spending the receiver's credits, {@code window} outstanding. */
    static final class SendStream extends Stream
    {
        private final LmrTriplet[] local;
        private final LmrTriplet[] creditRecv = {new LmrTriplet()};
        private final PerfSide side;
        private final int total;
        private final int warmup;
        private final int window;
        private final int credits;
        private final int signal;
        private final int creditMessages;
        private final long size;
        private int posted;
        private int retired;
        private long credited;
        private int creditsSeen;
        private int creditRecvsPosted;

        SendStream(final PerfSide side, final Link link, final LmrTriplet local, final RowSpec row, final int window)
        {
            super(link);
            this.side = side;
            this.local = new LmrTriplet[] {local};
            this.total = row.total();
            this.warmup = row.warmup();
            this.window = window;
            this.credits = Math.min(window, total);
            this.signal = Math.max(1, window / 4);
            this.size = row.size();
            this.creditMessages = creditMessages(total, batch(credits));
            final int initial = Math.min(creditMessages, PerfSide.CREDIT_SLOTS);
            for (int i = 0; i < initial; i++)
            {
                postCreditRecv();
            }
        }

        private void postCreditRecv()
        {
            final int slot = creditRecvsPosted % PerfSide.CREDIT_SLOTS;
            creditRecv[0].set(side.credits, slot * 8L, 8);
            link.ep.postRecv(1, creditRecv, slot, CompletionFlags.DEFAULT_FLAG);
            creditRecvsPosted++;
        }

        @Override
        boolean step()
        {
            if (posted < total && posted - retired < window && posted < credits + credited)
            {
                if (posted == warmup)
                {
                    startNanos = System.nanoTime();
                }
                final int flags = (posted + 1) % signal == 0 || posted == total - 1 ? CompletionFlags.DEFAULT_FLAG
                    : CompletionFlags.SUPPRESS_FLAG;
                link.ep.postSend(1, local, posted, flags);
                posted++;
                return true;
            }
            // out of window or credits, or all posted: only now look at the completions and the
            // credits, as the baseline's sender looks at its consumer's progress only when its
            // queue looks full. The credit receives do not run out meanwhile: the receiver returns
            // at most a window's worth of credits beyond those seen, in window / 4 messages
            boolean progress = false;
            if (poll(link.reqEvd, "Send stream"))
            {
                retired = (int) event.dto.userCookie + 1;
                progress = true;
            }
            if (poll(link.recvEvd, "credit receive"))
            {
                final long slot = event.dto.userCookie;
                credited = Math.max(credited, side.credits.memory().get(ValueLayout.JAVA_LONG_UNALIGNED, slot * 8));
                creditsSeen++;
                if (creditRecvsPosted < creditMessages)
                {
                    postCreditRecv();
                }
                if (credited == total)
                {
                    endNanos = System.nanoTime();
                }
                progress = true;
            }
            return progress;
        }

        @Override
        boolean done()
        {
            return retired == total && credited == total && creditsSeen == creditMessages;
        }
    }

    /** The receiving end of a {@link SendStream}: receives, posts again, returns credits. */
    static final class RecvStream extends Stream
    {
        private final PerfSide side;
        private final LmrTriplet[] local;
        private final LmrTriplet[] creditSend = {new LmrTriplet()};
        private final int total;
        private final int batch;
        private final int creditMessages;
        private final long size;
        private int postedRecvs;
        private int consumed;
        private int creditsSent;
        private int creditsRetired;

        /** Posts the first {@code min(window, total)} receives. */
        RecvStream(final PerfSide side, final Link link, final LmrTriplet local, final RowSpec row, final int window)
        {
            super(link);
            this.side = side;
            this.local = new LmrTriplet[] {local};
            this.total = row.total();
            this.size = row.size();
            final int credits = Math.min(window, total);
            this.batch = batch(credits);
            this.creditMessages = creditMessages(total, batch);
            for (int i = 0; i < credits; i++)
            {
                link.ep.postRecv(1, this.local, postedRecvs++, CompletionFlags.DEFAULT_FLAG);
            }
        }

        @Override
        boolean step()
        {
            boolean progress = false;
            // a credit Send's completion, only while one is outstanding
            if (creditsSent > creditsRetired && poll(link.reqEvd, "credit Send"))
            {
                creditsRetired++;
                progress = true;
            }
            if (creditsSent - creditsRetired < PerfSide.CREDIT_SLOTS && poll(link.recvEvd, "Send stream receive"))
            {
                if (event.dto.transferredLength != size || event.dto.userCookie != consumed)
                {
                    throw new CheckFailed("Send stream receive on " + link.name + ": " + event + ", expected cookie "
                        + consumed + " and " + size + " bytes");
                }
                consumed++;
                if (postedRecvs < total)
                {
                    link.ep.postRecv(1, local, postedRecvs++, CompletionFlags.DEFAULT_FLAG);
                }
                if (consumed % batch == 0 || consumed == total)
                {
                    final long at = (PerfSide.CREDIT_SLOTS + creditsSent % PerfSide.CREDIT_SLOTS) * 8L;
                    side.credits.memory().set(ValueLayout.JAVA_LONG_UNALIGNED, at, consumed);
                    creditSend[0].set(side.credits, at, 8);
                    link.ep.postSend(1, creditSend, creditsSent, CompletionFlags.DEFAULT_FLAG);
                    creditsSent++;
                }
                if (consumed == total)
                {
                    endNanos = System.nanoTime();
                }
                progress = true;
            }
            return progress;
        }

        @Override
        boolean done()
        {
            return consumed == total && creditsRetired == creditMessages;
        }
    }
}

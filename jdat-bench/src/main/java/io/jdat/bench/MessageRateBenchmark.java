package io.jdat.bench;

import io.aeron.Aeron;
import io.aeron.Publication;
import io.aeron.Subscription;
import io.aeron.driver.MediaDriver;
import io.aeron.driver.ThreadingMode;
import io.aeron.logbuffer.FragmentHandler;
import io.jdat.CompletionFlags;
import io.jdat.DatEvent;
import io.jdat.DatException;
import io.jdat.DatReturnSubtype;
import io.jdat.DatReturnType;
import io.jdat.DatStatus;
import io.jdat.DtoStatus;
import io.jdat.LmrTriplet;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.UnsafeBuffer;
import org.jctools.queues.atomic.SpscAtomicArrayQueue;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Group;
import org.openjdk.jmh.annotations.GroupThreads;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * One-way message rate of 64-byte messages between two threads, a window of 64, three ways in one
 * run: jdat Send/Recv (the receiver reaps up to 64 completions per call, as Aeron's receiver polls
 * up to 64 fragments, and reposts each receive as it reaps it; the sender keeps at most 64 Sends
 * beyond the receives reposted, so one is always posted for it; Sends unsignalled) over
 * loopback and over shm between two IAs of this process (the sender's post writes the ring, the
 * receiver's dequeue reads it), a JCTools SPSC queue of 64 with one copy per message (the
 * {@code jdat perf} baseline), and Aeron IPC ({@code aeron:ipc}, an embedded media driver with a
 * backoff idle strategy, as {@link ShmSideBySide} runs it). The figure is {@code messages}:
 * messages received per second (the sender's and receiver's own call rates are JMH's bookkeeping).
 * {@code -p window=N} posts N receives for jdat's rows instead of 64 (the receiver still reaps up
 * to 64 per call), to see what a deeper receive queue buys; issue 11's figures are at 64.
 *
 * <p>Both senders look at their receiver's progress the same way: only when their own view of it
 * says the window is full. The queue's {@code offer} does so inside JCTools (past its cached
 * limit it reads the slot a look-ahead step ahead, which the consumer empties); jdat's sender keeps
 * a cached limit over the receiver's count of reposted receives. Reading the other core's
 * counter before every message (as {@code size()} does for the queue) would move a line per
 * message that neither needs.
 *
 * <p>The receives reposted bound what the sender has in flight, not its request queue: its Sends
 * are unsignalled, and one leaves the queue (max_request_dtos, 128 here) only once the channel has
 * reported it sent, which on shm with {@code complete_written=false} is when the sender's side
 * notices that the receiver consumed it. A thread of the sender's port that holds the channel
 * while the scheduler keeps it off its core for a few hundred microseconds delays that report
 * while the receiver goes on taking and reposting, so a post may find the queue full. As with a
 * NIC's send queue, the refusal ({@code DAT_INSUFFICIENT_RESOURCES(DAT_RESOURCE_TEP)}) is back
 * pressure: the sender idles as with a full window and tries again.
 *
 * <p>JVM flags for a run go in {@code -jvmArgsPrepend} (for example
 * {@code -jvmArgsPrepend -Djdat.evd.direct=false}): a {@code -jvmArgsAppend} on JMH's command line
 * replaces the {@code @Fork} arguments below instead of adding to them, and Aeron's benchmark then
 * fails with {@code IllegalAccessError} without its {@code --add-exports}.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--sun-misc-unsafe-memory-access=allow", "--enable-native-access=ALL-UNNAMED",
    "--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED", "--add-opens", "java.base/java.nio=ALL-UNNAMED"})
public class MessageRateBenchmark
{
    private static final int SIZE = 64;
    private static final int WINDOW = 64;

    /** Messages a receiving thread took in the iteration. */
    @AuxCounters(AuxCounters.Type.OPERATIONS)
    @State(Scope.Thread)
    public static class Received
    {
        public long messages;

        @Setup(Level.Iteration)
        public void reset()
        {
            messages = 0;
        }
    }

    /**
     * How a benchmark thread waits when it has nothing to do (a full window, nothing received):
     * it spins for {@value #SPINS} calls, then yields on every call until it works again. Spinning
     * alone, two threads that the scheduler put on one core (another process holding the other of
     * this machine's two) each ran a whole time slice of the scheduler while the other, which
     * holds what it waits for, could not run: one window of 64 messages per pair of slices, about
     * 10,000 messages a second, in every row with a window of 64 (jdat on either provider and the
     * queue), while Aeron, whose sender runs a whole term ahead, hardly noticed.
     */
    @State(Scope.Thread)
    public static class Idle
    {
        static final int SPINS = 100;
        int idle;

        void idle()
        {
            if (++idle < SPINS)
            {
                Thread.onSpinWait();
            }
            else
            {
                Thread.yield();
            }
        }
    }

    /**
     * jdat: two connected endpoints, {@code window} receives posted: 64, as the queue's capacity,
     * unless {@code -p window=N} asks for a deeper receive queue (the sender then runs up to N
     * messages ahead of the receiver; Aeron's sender runs up to its term ahead).
     */
    @State(Scope.Group)
    public static class Jdat
    {
        @Param({"loopback", "shm"})
        String provider;
        /** Receives posted, so Sends in flight. */
        @Param({"64"})
        int window;
        LoopbackRig rig;
        LmrTriplet[] src;
        LmrTriplet[] dst;
        final DatEvent event = new DatEvent();
        /** Receives reposted after their message was reaped (written by the receiver). */
        final AtomicLong reposted = new AtomicLong();

        @Setup(Level.Trial)
        public void setup()
        {
            rig = new LoopbackRig(provider, !"loopback".equals(provider), 1 << 16, window);
            src = new LmrTriplet[] {LmrTriplet.of(rig.clientLmr, 0, SIZE)};
            dst = new LmrTriplet[] {LmrTriplet.of(rig.serverLmr, 4096, SIZE)};
            for (int i = 0; i < window; i++)
            {
                rig.server.postRecv(1, dst, i, 0);
            }
        }

        @TearDown(Level.Trial)
        public void tearDown()
        {
            rig.close();
        }
    }

    /**
     * The sender's own counts, in a state of the sending thread: kept in {@link Jdat}, the
     * sender's store to them per message wrote the line the receiver reads {@code rig},
     * {@code event} and {@code dst} from, a line crossing cores per message that neither needs.
     */
    @State(Scope.Thread)
    public static class Sender
    {
        /** Sends posted. */
        long posted;
        /** Sends the sender may post before it looks at {@link Jdat#reposted} again (0: look first). */
        long limit;
    }

    /** The sender: a Send if a receive is posted for it. */
    @Benchmark
    @Group("jdat")
    @GroupThreads(1)
    public void jdatSend(final Jdat s, final Sender me, final Idle i)
    {
        if (me.posted == me.limit)
        {
            // the receiver's line, only when the window this sender knew of is used up
            me.limit = s.reposted.getAcquire() + s.window;
            if (me.posted == me.limit)
            {
                i.idle();
                return;
            }
        }
        try
        {
            s.rig.client.postSend(1, s.src, 0, CompletionFlags.SUPPRESS_FLAG);
        }
        catch (final DatException e)
        {
            if (e.type() != DatReturnType.INSUFFICIENT_RESOURCES || e.subtype() != DatReturnSubtype.RESOURCE_TEP)
            {
                throw e;
            }
            // the request queue is full: Sends the receiver already took are not all reported to
            // the sender yet (the thread that reports them holds the channel and is off its core);
            // a full window, not an error
            i.idle();
            return;
        }
        i.idle = 0;
        me.posted++;
    }

    /**
     * The receiver: reaps the receive completions there are, up to {@code WINDOW} (as Aeron's
     * receiver polls up to {@code WINDOW} fragments), posting each receive again, and tells the
     * sender once per batch.
     */
    @Benchmark
    @Group("jdat")
    @GroupThreads(1)
    public void jdatReceive(final Jdat s, final Received r, final Idle i)
    {
        int n = 0;
        while (n < WINDOW && s.rig.serverRecv.dequeue(s.event) == DatStatus.SUCCESS)
        {
            if (s.event.dto.status != DtoStatus.SUCCESS)
            {
                throw new IllegalStateException("receive completed " + s.event.dto.status);
            }
            s.rig.server.postRecv(1, s.dst, 0, 0);
            n++;
        }
        if (n == 0)
        {
            i.idle();
            return;
        }
        i.idle = 0;
        s.reposted.setRelease(s.reposted.getPlain() + n);
        r.messages += n;
    }

    /** Baseline: an SPSC queue of {@code WINDOW} and one copy per message. */
    @State(Scope.Group)
    public static class Queue
    {
        private static final Object MESSAGE = new Object();
        final SpscAtomicArrayQueue<Object> queue = new SpscAtomicArrayQueue<>(WINDOW);
        MemorySegment src;
        MemorySegment dst;
        private Arena arena;

        @Setup(Level.Trial)
        public void setup()
        {
            arena = Arena.ofShared();
            src = arena.allocate(SIZE, 64);
            dst = arena.allocate(SIZE, 64);
        }

        @TearDown(Level.Trial)
        public void tearDown()
        {
            arena.close();
        }
    }

    /**
     * The baseline's sender: copies the message to the receiver's buffer and offers a token; a
     * full queue refuses it (the offer looks at the consumer's progress only past its cached limit).
     */
    @Benchmark
    @Group("queue")
    @GroupThreads(1)
    public void queueSend(final Queue s, final Idle i)
    {
        MemorySegment.copy(s.src, 0, s.dst, 0, SIZE);
        if (s.queue.offer(Queue.MESSAGE))
        {
            i.idle = 0;
        }
        else
        {
            i.idle();
        }
    }

    /** The baseline's receiver. */
    @Benchmark
    @Group("queue")
    @GroupThreads(1)
    public void queueReceive(final Queue s, final Received r, final Idle i)
    {
        if (s.queue.poll() != null)
        {
            r.messages++;
            i.idle = 0;
        }
        else
        {
            i.idle();
        }
    }

    /** Aeron IPC with an embedded media driver. */
    @State(Scope.Group)
    public static class AeronIpc
    {
        MediaDriver driver;
        Aeron aeron;
        Publication publication;
        Subscription subscription;
        final UnsafeBuffer buffer = new UnsafeBuffer(ByteBuffer.allocateDirect(SIZE));
        long fragments;
        final FragmentHandler handler = (b, o, l, h) -> fragments++;

        @Setup(Level.Trial)
        public void setup()
        {
            driver = MediaDriver.launchEmbedded(new MediaDriver.Context().threadingMode(ThreadingMode.SHARED)
                .sharedIdleStrategy(new BackoffIdleStrategy()).dirDeleteOnStart(true).dirDeleteOnShutdown(true));
            aeron = Aeron.connect(new Aeron.Context().aeronDirectoryName(driver.aeronDirectoryName()));
            publication = aeron.addPublication("aeron:ipc", 1003);
            subscription = aeron.addSubscription("aeron:ipc", 1003);
            while (!publication.isConnected())
            {
                Thread.onSpinWait();
            }
        }

        @TearDown(Level.Trial)
        public void tearDown()
        {
            aeron.close();
            driver.close();
        }
    }

    /** Aeron's sender: one offer (back pressure from the log buffer's window). */
    @Benchmark
    @Group("aeron")
    @GroupThreads(1)
    public void aeronSend(final AeronIpc s, final Idle i)
    {
        if (s.publication.offer(s.buffer, 0, SIZE) < 0)
        {
            i.idle();
        }
        else
        {
            i.idle = 0;
        }
    }

    /** Aeron's receiver: polls up to {@code WINDOW} fragments. */
    @Benchmark
    @Group("aeron")
    @GroupThreads(1)
    public void aeronReceive(final AeronIpc s, final Received r, final Idle i)
    {
        final long before = s.fragments;
        if (s.subscription.poll(s.handler, WINDOW) == 0)
        {
            i.idle();
        }
        else
        {
            i.idle = 0;
        }
        r.messages += s.fragments - before;
    }
}

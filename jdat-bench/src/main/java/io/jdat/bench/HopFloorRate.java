package io.jdat.bench;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.Arrays;
import java.util.concurrent.locks.LockSupport;
import org.jctools.queues.atomic.SpscAtomicArrayQueue;
import org.openjdk.jmh.infra.Blackhole;

/**
 * The floor of the one-way 64-byte message rate, a window of 64 as in {@code MessageRateBenchmark},
 * for each shape a software NIC can take, with no DAT in it ({@link HopFloorBenchmark} does the
 * same for the round trip): a sender posting Sends as fast as the window lets it, a receiver taking
 * up to 64 per look and giving each receive back. Each shape moves only the lines it must.
 * <ul>
 * <li>{@code queue}: the baseline of {@code jdat perf --baseline} (copy into the receiver's buffer,
 *     offer a token to a JCTools SPSC queue of 64; the receiver polls and never reads the bytes).</li>
 * <li>{@code senderPlaces}, {@code senderPlacesEvd}: loopback's shape. The sender reads the receive
 *     descriptor at the head of the receiver's receive ring (none posted: the window is full),
 *     copies into its buffer and writes the receiver's completion record, claimed by an atomic in
 *     the EVD shape; the receiver polls its completions (taking each by compare-and-set in the EVD
 *     shape) and posts each receive again.</li>
 * <li>{@code senderPlaces16Evd}: {@code senderPlacesEvd} with descriptors and completion records 16
 *     bytes apart, four to a line (the buffer's offset and room in one long; the length);
 *     {@code senderPlacesDesc16} packs only the descriptors, {@code senderPlacesRec16} only the
 *     records.</li>
 * <li>{@code receiverPulls}: the NIC's shape. The sender writes a work request (where its bytes are,
 *     how many) into its own send ring and publishes it; the receiver, polling, takes every request
 *     there is (up to 64), copies each from the sender's memory into the buffer its own head
 *     descriptor names, writes its own completion record (claimed as an EVD's), takes it, posts the
 *     receive again, and publishes once per batch how far it consumed, which the sender reads only
 *     when its own view says its send ring is full. Requests 64 bytes apart (one to a line);
 *     {@code receiverPulls16} packs four to a line (the sequence word, then where and how many
 *     bytes in one long); {@code receiverPulls16Plain} also writes and takes the receiver's own
 *     completion by plain ordered stores (one producer and one consumer: not a DAT EVD, which any
 *     endpoint may feed and any thread dequeue); {@code receiverPullsInline} has the sender copy the
 *     64 bytes into the request (128 bytes apart) for the receiver to copy from, as a NIC's inline
 *     send.</li>
 * <li>{@code descCompletes}: the completion in the descriptor's own line. The sender reads the
 *     descriptor at the head, copies, writes the length into the descriptor and flips its word to
 *     "complete"; the consumer's dequeue reads it there (an EVD with one receive queue behind it),
 *     takes it by compare-and-set and reposts into the same slot. The receive queue's head is
 *     claimed by an atomic, as a threadsafe IA's several posters need; descriptors 64 bytes
 *     apart; {@code descCompletes16} 16 apart, four to a line; {@code descCompletes16Single} with
 *     neither the atomic claim nor the compare-and-set (a nonthreadsafe IA).</li>
 * <li>{@code batched16}: batched publication. Descriptors and records 16 bytes apart with no
 *     sequence word; the receiver publishes a head word (receives posted), the sender a tail word
 *     (completions written), each read by the other only once its last view is used up; each post
 *     still publishes as it returns. {@code batched16Late16} and {@code batched16LateRoom} publish
 *     late, which DAT does not allow: the sender every 16 Sends or once it used all the room it
 *     saw (only the latter in {@code LateRoom}), the receiver once per batch it took.</li>
 * </ul>
 * Every ring is a row of slots led by a sequence word: a slot holds entry n once its word reads
 * n + 1. Every shape but the queue pays, once per Send, the fence a DAT producer owes a sleeping
 * {@code dat_evd_wait} ({@code -Dhopfloor.fence=false} leaves it out). Each shape has its own class,
 * so that the JIT compiles each loop for one shape alone.
 * {@code java -cp jdat-benchmarks.jar io.jdat.bench.HopFloorRate [rounds] [messages]} runs the shapes
 * in turn, round after round, and prints each shape's rate and its ratio to the queue's in the same
 * round.
 */
public final class HopFloorRate
{
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();
    private static final boolean FENCE = !"false".equals(System.getProperty("hopfloor.fence"));
    private static final int WINDOW = 64;
    private static final long SLOT = 64;
    /** Words of {@link Rig#words}, each on its own 128 bytes. */
    private static final long CLAIM = 0;
    private static final long TAKE = 128;
    private static final long CONSUMED = 256;
    private static final long RECEIVED = 384;
    private static final long WAITER = 512;
    /** The batched shapes' words: how many receives are posted, how many completions written. */
    private static final long HEAD = 640;
    private static final long TAIL = 768;
    /** Counter arrays: 8 longs of padding, the counters, 8 more; one thread writes each array. */
    private static final int PADDED = 24;
    private static final int POSTED = 8;
    private static final int POLLED = 9;
    private static final int PLACED = 10;
    private static final int PRODUCED = 11;
    private static final int TAKEN = 12;
    private static final int LIMIT = 13;
    /** The batched shapes' receiver: the completions' tail it last read. */
    private static final int SEEN = 14;
    /**
     * Work standing in for the engine's, in {@link Blackhole#consumeCPU} tokens per message (none by
     * default): {@code -Dhopfloor.post} on the sender's post, {@code -Dhopfloor.place} where the
     * message is placed (the sender's thread or the receiver's, by shape), {@code -Dhopfloor.reap}
     * on the receiver's take and repost. The queue has none: it is the baseline.
     */
    private static final long POST = Long.getLong("hopfloor.post", 0);
    private static final long PLACE = Long.getLong("hopfloor.place", 0);
    private static final long REAP = Long.getLong("hopfloor.reap", 0);

    private HopFloorRate()
    {
    }

    /** The stand-in work; with none asked for, the JIT folds it away. */
    static void work(final long tokens)
    {
        if (tokens > 0)
        {
            Blackhole.consumeCPU(tokens);
        }
    }

    /** One shape: its rings, a receiving thread, and the sender's loop run by the caller. */
    abstract static class Rig
    {
        final MemorySegment descriptors;
        final MemorySegment completions;
        final MemorySegment requests;
        final MemorySegment src;
        final MemorySegment dst;
        final MemorySegment words;
        final long[] rx = new long[PADDED];
        final long[] tx = new long[PADDED];
        /** The bytes from one receive descriptor to the next. */
        final long stride;
        /** The bytes from one completion record to the next. */
        final long recordStride;
        private final Thread receiver;
        volatile boolean running = true;
        volatile boolean active;

        Rig(final Arena arena, final long stride, final long recordStride)
        {
            this.stride = stride;
            this.recordStride = recordStride;
            descriptors = arena.allocate(WINDOW * SLOT, 128);
            completions = arena.allocate(WINDOW * SLOT, 128);
            requests = arena.allocate(WINDOW * 128, 128);
            src = arena.allocate(128, 128);
            dst = arena.allocate(128, 128);
            words = arena.allocate(896, 128);
            for (int i = 0; i < WINDOW; i++)
            {
                repost();
            }
            tx[LIMIT] = WINDOW;
            receiver = new Thread(this::receive, "bench-rate-receiver");
            receiver.setDaemon(true);
        }

        void start()
        {
            receiver.start();
        }

        final long at(final long n)
        {
            return (n % WINDOW) * stride;
        }

        final long record(final long n)
        {
            return (n % WINDOW) * recordStride;
        }

        /** The receiver posts the receive of position {@code rx[POSTED]}. */
        final void repost()
        {
            final long n = rx[POSTED]++;
            final long d = at(n);
            // the buffer's offset (here 0) and its room, in one long
            descriptors.set(ValueLayout.JAVA_LONG, d + 8, 0L << 32 | 64);
            LONG.setRelease(descriptors, d, n + 1);
        }

        /** After publishing: the look at a sleeping consumer, ordered after the publish. */
        final void waiterCheck()
        {
            if (FENCE)
            {
                VarHandle.fullFence();
            }
            if ((long) LONG.getOpaque(words, WAITER) != 0)
            {
                throw new IllegalStateException("nobody waits in this benchmark");
            }
        }

        /** The consumer takes its next completion: by compare-and-set as an EVD's, or plain. */
        final boolean takeCompletion(final boolean evd)
        {
            final long c = evd ? (long) LONG.getAcquire(words, TAKE) : rx[POLLED];
            final long ca = record(c);
            if ((long) LONG.getAcquire(completions, ca) != c + 1 || completions.get(ValueLayout.JAVA_LONG, ca + 8) < 0)
            {
                return false;
            }
            if (evd)
            {
                return LONG.compareAndSet(words, TAKE, c, c + 1);
            }
            rx[POLLED] = c + 1;
            return true;
        }

        /** As {@code MessageRateBenchmark.Idle}: spin 100 looks, then yield on each. */
        static int idle(final int idle)
        {
            if (idle < 100)
            {
                Thread.onSpinWait();
            }
            else
            {
                Thread.yield();
            }
            return idle + 1;
        }

        /** The receiving thread's loop (each shape its own copy, for the JIT). */
        abstract void receive();

        /** {@code count} Sends; the nanoseconds until the receiver had them all. */
        abstract long run(long count);

        final long begin()
        {
            active = true;
            LockSupport.unpark(receiver);
            return (long) LONG.getAcquire(words, RECEIVED);
        }

        final void awaitReceived(final long until)
        {
            int idle = 0;
            while ((long) LONG.getAcquire(words, RECEIVED) < until)
            {
                idle = idle(idle);
            }
            active = false;
        }

        final void received(final long total)
        {
            LONG.setRelease(words, RECEIVED, total);
        }

        void close() throws InterruptedException
        {
            running = false;
            LockSupport.unpark(receiver);
            receiver.join(1000);
        }
    }

    /** The baseline. */
    static final class Queue extends Rig
    {
        final SpscAtomicArrayQueue<Object> queue = new SpscAtomicArrayQueue<>(WINDOW);

        Queue(final Arena arena)
        {
            super(arena, SLOT, SLOT);
        }

        @Override
        void receive()
        {
            int idle = 0;
            long total = 0;
            while (running)
            {
                if (!active)
                {
                    LockSupport.park();
                    continue;
                }
                int n = 0;
                while (n < WINDOW && queue.poll() != null)
                {
                    n++;
                }
                if (n == 0)
                {
                    idle = idle(idle);
                }
                else
                {
                    idle = 0;
                    total += n;
                    received(total);
                }
            }
        }

        @Override
        long run(final long count)
        {
            final long base = begin();
            final long t0 = System.nanoTime();
            int idle = 0;
            for (long i = 0; i < count; )
            {
                MemorySegment.copy(src, 0, dst, 0, 64);
                if (queue.offer(this))
                {
                    i++;
                    idle = 0;
                }
                else
                {
                    idle = idle(idle);
                }
            }
            awaitReceived(base + count);
            return System.nanoTime() - t0;
        }
    }

    /** Loopback's shape: the sender places into the receiver's buffer and writes its completion. */
    static final class SenderPlaces extends Rig
    {
        final boolean evd;

        SenderPlaces(final Arena arena, final boolean evd)
        {
            this(arena, evd, SLOT, SLOT);
        }

        SenderPlaces(final Arena arena, final boolean evd, final long stride, final long recordStride)
        {
            super(arena, stride, recordStride);
            this.evd = evd;
        }

        @Override
        void receive()
        {
            int idle = 0;
            long total = 0;
            while (running)
            {
                if (!active)
                {
                    LockSupport.park();
                    continue;
                }
                int n = 0;
                while (n < WINDOW && takeCompletion(evd))
                {
                    work(REAP);
                    repost();
                    n++;
                }
                if (n == 0)
                {
                    idle = idle(idle);
                }
                else
                {
                    idle = 0;
                    total += n;
                    received(total);
                }
            }
        }

        private boolean place()
        {
            final long n = tx[PLACED];
            final long d = at(n);
            if ((long) LONG.getAcquire(descriptors, d) != n + 1)
            {
                return false;
            }
            work(POST);
            final long buffer = descriptors.get(ValueLayout.JAVA_LONG, d + 8);
            work(PLACE);
            MemorySegment.copy(src, 0, dst, buffer >>> 32, Math.min(buffer & 0xffff_ffffL, 64));
            final long c = evd ? (long) LONG.getAndAdd(words, CLAIM, 1L) : n;
            final long ca = record(c);
            completions.set(ValueLayout.JAVA_LONG, ca + 8, 64);
            LONG.setRelease(completions, ca, c + 1);
            tx[PLACED] = n + 1;
            waiterCheck();
            return true;
        }

        @Override
        long run(final long count)
        {
            final long base = begin();
            final long t0 = System.nanoTime();
            int idle = 0;
            for (long i = 0; i < count; )
            {
                if (place())
                {
                    i++;
                    idle = 0;
                }
                else
                {
                    idle = idle(idle);
                }
            }
            awaitReceived(base + count);
            return System.nanoTime() - t0;
        }
    }

    /** The NIC's shape: the sender queues a request, the receiver pulls it. */
    static final class ReceiverPulls extends Rig
    {
        final long wr;
        final boolean evd;
        final boolean inline;

        ReceiverPulls(final Arena arena, final long wr, final boolean evd, final boolean inline)
        {
            super(arena, SLOT, SLOT);
            this.wr = wr;
            this.evd = evd;
            this.inline = inline;
        }

        /** Every request there is, up to the window; how many. */
        private int pull()
        {
            int n = 0;
            long t = rx[TAKEN];
            while (n < WINDOW)
            {
                final long w = (t % WINDOW) * wr;
                if ((long) LONG.getAcquire(requests, w) != t + 1)
                {
                    break;
                }
                final long what = requests.get(ValueLayout.JAVA_LONG, w + 8);
                final long length = what & 0xffff_ffffL;
                final long d = at(t);
                if ((long) LONG.getAcquire(descriptors, d) != t + 1)
                {
                    throw new IllegalStateException("no receive posted");
                }
                final long buffer = descriptors.get(ValueLayout.JAVA_LONG, d + 8);
                work(PLACE);
                final long offset = buffer >>> 32;
                final long room = buffer & 0xffff_ffffL;
                if (inline)
                {
                    MemorySegment.copy(requests, w + 16, dst, offset, Math.min(room, length));
                }
                else
                {
                    MemorySegment.copy(src, what >>> 32, dst, offset, Math.min(room, length));
                }
                // its own completion record, then taken as the consumer's dequeue takes it
                final long c = evd ? (long) LONG.getAndAdd(words, CLAIM, 1L) : rx[PRODUCED]++;
                final long ca = record(c);
                completions.set(ValueLayout.JAVA_LONG, ca + 8, length);
                LONG.setRelease(completions, ca, c + 1);
                if (!takeCompletion(evd))
                {
                    throw new IllegalStateException("own completion not seen");
                }
                work(REAP);
                repost();
                t++;
                n++;
            }
            if (n > 0)
            {
                rx[TAKEN] = t;
                LONG.setRelease(words, CONSUMED, t);
            }
            return n;
        }

        @Override
        void receive()
        {
            int idle = 0;
            long total = 0;
            while (running)
            {
                if (!active)
                {
                    LockSupport.park();
                    continue;
                }
                final int n = pull();
                if (n == 0)
                {
                    idle = idle(idle);
                }
                else
                {
                    idle = 0;
                    total += n;
                    received(total);
                }
            }
        }

        private boolean post()
        {
            final long n = tx[POSTED];
            if (n == tx[LIMIT])
            {
                // the receiver's word, only when this sender's view says its ring is full
                tx[LIMIT] = (long) LONG.getAcquire(words, CONSUMED) + WINDOW;
                if (n == tx[LIMIT])
                {
                    return false;
                }
            }
            work(POST);
            final long w = (n % WINDOW) * wr;
            // where in the sender's memory (here 0) and how many bytes
            requests.set(ValueLayout.JAVA_LONG, w + 8, 0L << 32 | 64);
            if (inline)
            {
                MemorySegment.copy(src, 0, requests, w + 16, 64);
            }
            LONG.setRelease(requests, w, n + 1);
            tx[POSTED] = n + 1;
            waiterCheck();
            return true;
        }

        @Override
        long run(final long count)
        {
            final long base = begin();
            final long t0 = System.nanoTime();
            int idle = 0;
            for (long i = 0; i < count; )
            {
                if (post())
                {
                    i++;
                    idle = 0;
                }
                else
                {
                    idle = idle(idle);
                }
            }
            awaitReceived(base + count);
            return System.nanoTime() - t0;
        }
    }

    /**
     * The completion in the descriptor's own line: the sender reads the receive descriptor at the
     * head, copies, and writes the length where the buffer's offset and room were, then flips the
     * descriptor's word from "posted" (n + 1) to "complete" (-(n + 1)); the consumer's dequeue
     * reads it there and takes it by compare-and-set, and the repost writes the same slot again.
     * One line, the descriptor's, crosses each way. The event's position is its descriptor's (an
     * EVD with one receive queue behind it), so the EVD's own claim goes; {@code claim} keeps an
     * atomic claim of the receive queue's head, which several threads posting Sends to one
     * endpoint of a threadsafe IA need. Without it (and with a plain take) the shape is a
     * nonthreadsafe IA's.
     */
    static final class DescCompletes extends Rig
    {
        final boolean claim;

        DescCompletes(final Arena arena, final long stride, final boolean claim)
        {
            super(arena, stride, stride);
            this.claim = claim;
        }

        /** The consumer's dequeue: the descriptor at its take position, once complete. */
        private boolean take()
        {
            final long c = claim ? (long) LONG.getAcquire(words, TAKE) : rx[POLLED];
            final long d = at(c);
            if ((long) LONG.getAcquire(descriptors, d) != -(c + 1) || descriptors.get(ValueLayout.JAVA_LONG, d + 8) < 0)
            {
                return false;
            }
            if (claim)
            {
                return LONG.compareAndSet(words, TAKE, c, c + 1);
            }
            rx[POLLED] = c + 1;
            return true;
        }

        @Override
        void receive()
        {
            int idle = 0;
            long total = 0;
            while (running)
            {
                if (!active)
                {
                    LockSupport.park();
                    continue;
                }
                int n = 0;
                while (n < WINDOW && take())
                {
                    work(REAP);
                    repost();
                    n++;
                }
                if (n == 0)
                {
                    idle = idle(idle);
                }
                else
                {
                    idle = 0;
                    total += n;
                    received(total);
                }
            }
        }

        private boolean place()
        {
            final long n = tx[PLACED];
            final long d = at(n);
            if ((long) LONG.getAcquire(descriptors, d) != n + 1)
            {
                return false;
            }
            if (claim && (long) LONG.getAndAdd(words, CLAIM, 1L) != n)
            {
                throw new IllegalStateException("one sender claims here");
            }
            work(POST);
            final long buffer = descriptors.get(ValueLayout.JAVA_LONG, d + 8);
            work(PLACE);
            MemorySegment.copy(src, 0, dst, buffer >>> 32, Math.min(buffer & 0xffff_ffffL, 64));
            // the length (and a status of 0 above it) where the buffer was, then the owner flips
            descriptors.set(ValueLayout.JAVA_LONG, d + 8, 64);
            LONG.setRelease(descriptors, d, -(n + 1));
            tx[PLACED] = n + 1;
            waiterCheck();
            return true;
        }

        @Override
        long run(final long count)
        {
            final long base = begin();
            final long t0 = System.nanoTime();
            int idle = 0;
            for (long i = 0; i < count; )
            {
                if (place())
                {
                    i++;
                    idle = 0;
                }
                else
                {
                    idle = idle(idle);
                }
            }
            awaitReceived(base + count);
            return System.nanoTime() - t0;
        }
    }

    /**
     * Batched publication, as Agrona's and Aeron's rings: descriptors and completion records 16
     * bytes apart (four to a line) with no sequence word of their own. The receiver publishes how
     * many receives it posted (a head word) and the sender how many completions it wrote (a tail
     * word); each reads the other's word only once it has used up what it last read, so a word's
     * line crosses once per batch the reader finds, and per message nothing crosses but the bytes,
     * the descriptor's line and the record's line, each shared four to a line. The completion is
     * claimed by an atomic and taken by compare-and-set, as a DAT EVD's. With {@code batch} 0
     * every post publishes its word as it returns (release stores that stay in the writer's cache
     * until read: what DAT allows, one post per call). Otherwise publication is late: the sender
     * publishes once it placed {@code batch} Sends or every receive it saw room for, whichever
     * comes first, the receiver once per batch it took, and the sender's waiter fence comes once
     * per publication: what DAT does not allow, since a posted Send or receive stays unpublished
     * until later calls.
     */
    static final class Batched extends Rig
    {
        final boolean late;
        final long batch;

        Batched(final Arena arena, final long batch)
        {
            super(arena, 16, 16);
            this.late = batch > 0;
            this.batch = batch;
            LONG.setRelease(words, HEAD, (long) WINDOW);
        }

        private void repostBatched()
        {
            final long n = rx[POSTED]++;
            descriptors.set(ValueLayout.JAVA_LONG, at(n) + 8, 0L << 32 | 64);
            if (!late)
            {
                LONG.setRelease(words, HEAD, n + 1);
            }
        }

        private boolean take()
        {
            final long c = (long) LONG.getAcquire(words, TAKE);
            if (c == rx[SEEN])
            {
                rx[SEEN] = (long) LONG.getAcquire(words, TAIL);
                if (c == rx[SEEN])
                {
                    return false;
                }
            }
            if (completions.get(ValueLayout.JAVA_LONG, record(c)) < 0)
            {
                return false;
            }
            return LONG.compareAndSet(words, TAKE, c, c + 1);
        }

        @Override
        void receive()
        {
            int idle = 0;
            long total = 0;
            while (running)
            {
                if (!active)
                {
                    LockSupport.park();
                    continue;
                }
                int n = 0;
                while (n < WINDOW && take())
                {
                    work(REAP);
                    repostBatched();
                    n++;
                }
                if (n == 0)
                {
                    idle = idle(idle);
                }
                else
                {
                    if (late)
                    {
                        LONG.setRelease(words, HEAD, rx[POSTED]);
                    }
                    idle = 0;
                    total += n;
                    received(total);
                }
            }
        }

        private void publish(final long placed)
        {
            LONG.setRelease(words, TAIL, placed);
            waiterCheck();
        }

        private boolean place()
        {
            final long n = tx[PLACED];
            if (n == tx[LIMIT])
            {
                tx[LIMIT] = (long) LONG.getAcquire(words, HEAD);
                if (n == tx[LIMIT])
                {
                    return false;
                }
            }
            work(POST);
            final long buffer = descriptors.get(ValueLayout.JAVA_LONG, at(n) + 8);
            work(PLACE);
            MemorySegment.copy(src, 0, dst, buffer >>> 32, Math.min(buffer & 0xffff_ffffL, 64));
            final long c = (long) LONG.getAndAdd(words, CLAIM, 1L);
            completions.set(ValueLayout.JAVA_LONG, record(c), 64);
            tx[PLACED] = n + 1;
            if (!late || n + 1 == tx[LIMIT] || (n + 1) % batch == 0)
            {
                publish(c + 1);
            }
            return true;
        }

        @Override
        long run(final long count)
        {
            final long base = begin();
            final long t0 = System.nanoTime();
            int idle = 0;
            for (long i = 0; i < count; )
            {
                if (place())
                {
                    i++;
                    idle = 0;
                }
                else
                {
                    idle = idle(idle);
                }
            }
            if (late)
            {
                publish(tx[PLACED]);
            }
            awaitReceived(base + count);
            return System.nanoTime() - t0;
        }
    }

    public static void main(final String[] args) throws InterruptedException
    {
        final int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 20;
        final long messages = args.length > 1 ? Long.parseLong(args[1]) : 2_000_000L;
        final String[] shapes = {"queue", "senderPlaces", "senderPlacesEvd", "senderPlaces16Evd", "senderPlacesDesc16",
            "senderPlacesRec16", "receiverPulls",
            "receiverPulls16", "receiverPulls16Plain", "receiverPullsInline", "descCompletes", "descCompletes16",
            "descCompletes16Single", "batched16", "batched16Late16", "batched16LateRoom"};
        final double[][] rate = new double[shapes.length][rounds];
        if (POST + PLACE + REAP > 0)
        {
            for (int i = 0; i < 3; i++)
            {
                final long t0 = System.nanoTime();
                Blackhole.consumeCPU(10_000_000L);
                System.out.printf("work: %.2f ns per token%n", (System.nanoTime() - t0) / 1e7);
            }
        }
        try (Arena arena = Arena.ofShared())
        {
            final Rig[] rigs = {new Queue(arena), new SenderPlaces(arena, false), new SenderPlaces(arena, true),
                new SenderPlaces(arena, true, 16, 16), new SenderPlaces(arena, true, 16, SLOT),
                new SenderPlaces(arena, true, SLOT, 16),
                new ReceiverPulls(arena, 64, true, false), new ReceiverPulls(arena, 16, true, false),
                new ReceiverPulls(arena, 16, false, false), new ReceiverPulls(arena, 128, true, true),
                new DescCompletes(arena, SLOT, true), new DescCompletes(arena, 16, true),
                new DescCompletes(arena, 16, false), new Batched(arena, 0),
                new Batched(arena, 16), new Batched(arena, WINDOW)};
            for (final Rig r : rigs)
            {
                r.start();
            }
            for (int round = -3; round < rounds; round++)
            {
                for (int k = 0; k < rigs.length; k++)
                {
                    final long ns = rigs[k].run(messages);
                    if (round >= 0)
                    {
                        rate[k][round] = messages * 1e3 / ns;
                    }
                }
            }
            for (final Rig r : rigs)
            {
                r.close();
            }
        }
        for (int k = 0; k < shapes.length; k++)
        {
            final double[] ratio = new double[rounds];
            for (int round = 0; round < rounds; round++)
            {
                ratio[round] = rate[k][round] / rate[0][round];
            }
            System.out.printf("%-20s rate median %6.2f M msg/s (min %6.2f, max %6.2f); ratio to queue median %.2f "
                + "(min %.2f, max %.2f)%n", shapes[k], median(rate[k]), min(rate[k]), max(rate[k]), median(ratio),
                min(ratio), max(ratio));
        }
        for (int round = 0; round < rounds; round++)
        {
            final StringBuilder line = new StringBuilder("round " + round + ":");
            for (int k = 0; k < shapes.length; k++)
            {
                line.append(String.format(" %.2f", rate[k][round]));
            }
            System.out.println(line);
        }
    }

    private static double median(final double[] v)
    {
        final double[] s = v.clone();
        Arrays.sort(s);
        return s[s.length / 2];
    }

    private static double min(final double[] v)
    {
        return Arrays.stream(v).min().orElse(Double.NaN);
    }

    private static double max(final double[] v)
    {
        return Arrays.stream(v).max().orElse(Double.NaN);
    }
}

package io.jdat.bench;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.jctools.queues.atomic.SpscAtomicArrayQueue;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
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
 * The floor of a Send/Recv round trip for each shape a software NIC can take, with no DAT in it:
 * only the cache lines each shape must move between the two threads, written as plainly as
 * possible. It says how far a design could get at best, beside the queue hand-off of
 * {@code jdat perf --baseline} measured in the same run.
 * <ul>
 * <li>{@code queue}: the baseline. The sender copies into the peer's buffer and offers to a JCTools
 *     SPSC queue; the receiver polls it.</li>
 * <li>{@code senderPlaces}: what loopback does. The receiver posts a receive descriptor into its
 *     receive queue; the sender reads the descriptor at the head, copies into that buffer and
 *     writes a completion entry that the receiver polls. Each ring has one writer.</li>
 * <li>{@code senderPlacesEvd}: the same, with the completion ring shaped as a DAT EVD, which any
 *     number of endpoints may feed and any number of threads may dequeue: the producer claims its
 *     entry and the consumer takes it by compare-and-set.</li>
 * <li>{@code evdReadsTail}: {@code senderPlacesEvd} with one more line crossing per hop: the consumer
 *     looks at the producers' claim counter before the entry and again once it took it, as jdat's
 *     waiting consumer did (its notification check, and its {@code nmore} count after the take).</li>
 * <li>{@code evdWaiterLine}: {@code senderPlacesEvd} with the consumer writing a word, when its wait
 *     begins and when it ends, on the line the producer reads before it claims, as jdat's
 *     {@code dat_evd_wait} wrote its waiter's thread beside the EVD's ring and CNO fields.</li>
 * <li>{@code receiverPlaces}: the consumer's thread is the NIC for inbound traffic. The sender
 *     copies the message into the connection's ring; the receiver, polling, takes it, places it
 *     into the buffer its own receive descriptor names and writes and reads its own completion
 *     entry: every line but the message's stays on the receiver's core.</li>
 * <li>{@code engine128}, {@code engine32}, {@code engine16}: the completion in the descriptor as
 *     jdat's engine lays it out in its direct mode, in the engine's order: a post claims the tail
 *     by compare-and-set, writes the cookie, then publishes; the placer reads the sequence, copies,
 *     writes the length, flips the sequence and fences; the consumer reads sequence, cookie and
 *     length, takes the head by compare-and-set, then looks at the next slot for {@code nmore}
 *     ({@code -Dhopfloor.look=false} leaves that look out). {@code engine128}: sequence, cookie and
 *     length 128 bytes apart (the nineteenth step's layout); {@code engine32}: 32 apart, two to a
 *     line (its {@code direct4}); {@code engine16}: sequence and length 16 apart, four to a line,
 *     the cookies in an array of their own. {@code -Dhopfloor.slots=N} slots (default 256, what
 *     {@code jdat perf}'s receive ring has in direct mode).</li>
 * </ul>
 * {@link HopFloorRate} measures the same shapes' one-way message rate, a window of 64.
 * Every ring here is a row of 64-byte slots, each led by a sequence word: a slot holds entry n
 * once its word reads n + 1 (written last, with release; read first, with acquire). Every shape
 * but the queue also pays the one fence a DAT producer cannot skip: the look at a sleeping
 * {@code dat_evd_wait} after publishing.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1)
public class HopFloorBenchmark
{
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();
    private static final int SLOTS = 16;
    private static final long SLOT = 64;
    /** A message slot of the receiver-places ring: a 16-byte header and the payload. */
    private static final long MESSAGE_SLOT = 128;
    /** {@code -Dhopfloor.fence=false} leaves the waiter's fence out, to see what it costs. */
    private static final boolean FENCE = !"false".equals(System.getProperty("hopfloor.fence"));
    /** The offset of the waiter's flag in a link's {@code claims}. */
    private static final long WAITER = 192;
    /** The batched shape's words in {@code claims}: receives posted, completions written. */
    private static final long HEAD = 256;
    private static final long TAIL = 384;
    /** Counter arrays: 8 longs of padding, the counters, 8 more. */
    private static final int PADDED = 24;
    private static final int POSTED = 8;
    private static final int POLLED = 9;
    private static final int PLACED = 10;
    private static final int PRODUCED = 11;
    private static final int TAKEN = 12;
    private static final int QUEUE = 0;
    private static final int SENDER = 1;
    private static final int SENDER_EVD = 2;
    private static final int RECEIVER = 3;
    private static final int EVD_READS_TAIL = 4;
    private static final int EVD_WAITER_LINE = 5;
    private static final int DESC = 6;
    private static final int DESC16 = 7;
    private static final int BATCHED16 = 8;
    private static final int ENGINE128 = 9;
    private static final int ENGINE32 = 10;
    private static final int ENGINE16 = 11;
    /** The engine shapes' slots: {@code jdat perf}'s 96 receives, doubled and rounded up, by default. */
    private static final int ENGINE_SLOTS = Integer.getInteger("hopfloor.slots", 256);
    /** {@code -Dhopfloor.look=false}: the engine shapes' consumer does not look at the next slot. */
    private static final boolean LOOK = !"false".equals(System.getProperty("hopfloor.look"));
    /** The batched shape's cached words: the sender's view of the head, the receiver's of the tail. */
    private static final int LIMIT = 14;
    private static final int SEEN = 15;
    /** The receiver's flag: a wait is in progress (the waiter-line shape). */
    private static final int WAITING = 13;

    /** One direction of a connection: what the sender and the receiver of it share. */
    static final class Link
    {
        final MemorySegment descriptors;
        final MemorySegment completions;
        final MemorySegment messages;
        final MemorySegment buffer;
        final SpscAtomicArrayQueue<Object> queue = new SpscAtomicArrayQueue<>(SLOTS);
        /** The EVD shape's producer and consumer words and the waiter's flag, each on its own line. */
        final MemorySegment claims;
        /** The receiver's counters and the sender's, each in the middle of its own array (one thread writes each). */
        final long[] rx = new long[PADDED];
        final long[] tx = new long[PADDED];
        /** The engine shapes' slots and, for {@code engine16}, their cookies. */
        final MemorySegment engineSlots;
        final MemorySegment engineCookies;

        Link(final Arena arena, final int size)
        {
            descriptors = arena.allocate(SLOTS * SLOT, 128);
            completions = arena.allocate(SLOTS * SLOT, 128);
            messages = arena.allocate(SLOTS * MESSAGE_SLOT, 128);
            buffer = arena.allocate(Math.max(size, 64), 128);
            claims = arena.allocate(512, 128);
            engineSlots = arena.allocate(ENGINE_SLOTS * 128L, 128);
            engineCookies = arena.allocate(ENGINE_SLOTS * 8L, 128);
        }

        /** The engine's post: the tail's compare-and-set, the cookie, then the sequence (release). */
        void postRecvEngine(final long stride)
        {
            final long n = rx[POSTED]++;
            if (!LONG.compareAndSet(claims, TAIL, n, n + 1))
            {
                throw new IllegalStateException("one poster claims here");
            }
            final long slot = n % ENGINE_SLOTS;
            if (stride == 16)
            {
                engineCookies.set(ValueLayout.JAVA_LONG, slot * 8, n);
            }
            else
            {
                engineSlots.set(ValueLayout.JAVA_LONG, slot * stride + 8, n);
            }
            LONG.setRelease(engineSlots, slot * stride, n + 1);
        }

        /** The engine's placer: the sequence, the copy, the length, the flip, the fence and the waiter's word. */
        void placeEngine(final MemorySegment src, final int size, final long stride)
        {
            final long n = tx[PLACED]++;
            final long d = (n % ENGINE_SLOTS) * stride;
            awaitSeq(engineSlots, d, n + 1);
            MemorySegment.copy(src, 0, buffer, 0, size);
            engineSlots.set(ValueLayout.JAVA_LONG, d + (stride == 16 ? 8 : 16), size);
            LONG.setRelease(engineSlots, d, -(n + 1));
            waiterCheck();
        }

        /** The engine's take: sequence, cookie, length, the head's compare-and-set, the look for {@code nmore}. */
        boolean pollEngine(final long stride)
        {
            final long c = (long) LONG.getVolatile(claims, 128L);
            final long slot = c % ENGINE_SLOTS;
            final long d = slot * stride;
            if ((long) LONG.getAcquire(engineSlots, d) != -(c + 1))
            {
                return false;
            }
            final long cookie = stride == 16 ? engineCookies.get(ValueLayout.JAVA_LONG, slot * 8)
                : engineSlots.get(ValueLayout.JAVA_LONG, d + 8);
            final long length = engineSlots.get(ValueLayout.JAVA_LONG, d + (stride == 16 ? 8 : 16));
            if (!LONG.compareAndSet(claims, 128L, c, c + 1) || cookie != c)
            {
                throw new IllegalStateException("one consumer takes here");
            }
            if (LOOK)
            {
                final long next = (c + 1) % ENGINE_SLOTS * stride;
                rx[SEEN] += (long) LONG.getVolatile(engineSlots, next) == -(c + 2) ? 1 : 0;
            }
            return length >= 0;
        }

        private static long slot(final long n)
        {
            return (n % SLOTS) * SLOT;
        }

        private static void awaitSeq(final MemorySegment ring, final long at, final long want)
        {
            while ((long) LONG.getAcquire(ring, at) != want)
            {
                Thread.onSpinWait();
            }
        }

        /** The receiver posts a descriptor naming its buffer. */
        void postRecv(final int size)
        {
            final long n = rx[POSTED]++;
            final long at = slot(n);
            descriptors.set(ValueLayout.JAVA_LONG, at + 8, 0);
            descriptors.set(ValueLayout.JAVA_LONG, at + 16, size);
            LONG.setRelease(descriptors, at, n + 1);
        }

        /**
         * Sender places: read the descriptor at the head, copy, write the completion;
         * {@code waiterLine}: first read the line where the consumer's wait writes its word.
         */
        void placeSend(final MemorySegment src, final int size, final boolean evd, final boolean waiterLine)
        {
            if (waiterLine && (long) LONG.getOpaque(claims, WAITER) != 0)
            {
                throw new IllegalStateException("nobody waits in this benchmark");
            }
            final long n = tx[PLACED]++;
            final long d = slot(n);
            awaitSeq(descriptors, d, n + 1);
            final long offset = descriptors.get(ValueLayout.JAVA_LONG, d + 8);
            final long room = descriptors.get(ValueLayout.JAVA_LONG, d + 16);
            MemorySegment.copy(src, 0, buffer, offset, Math.min(room, size));
            final long c;
            if (evd)
            {
                // any producer may feed an EVD: claim the entry
                c = (long) LONG.getAndAdd(claims, 0L, 1L);
            }
            else
            {
                c = tx[PRODUCED]++;
            }
            final long at = slot(c);
            completions.set(ValueLayout.JAVA_LONG, at + 8, size);
            LONG.setRelease(completions, at, c + 1);
            waiterCheck();
        }

        /**
         * What a DAT producer owes {@code dat_evd_wait}: after publishing, a look at whether the
         * consumer sleeps, ordered after the publish (a store-load fence). Nobody sleeps here; the
         * fence is the price.
         */
        private void waiterCheck()
        {
            if (!FENCE)
            {
                if ((long) LONG.getOpaque(claims, WAITER) != 0)
                {
                    throw new IllegalStateException("nobody waits in this benchmark");
                }
                return;
            }
            VarHandle.fullFence();
            if ((long) LONG.getOpaque(claims, WAITER) != 0)
            {
                throw new IllegalStateException("nobody waits in this benchmark");
            }
        }

        /**
         * The EVD shape's poll with one of jdat's extra lines: {@code readsTail}, a look at the
         * producers' claim counter first; else a word the producer reads, written as a wait begins
         * and ends.
         */
        boolean pollCompletion(final boolean readsTail, final boolean waiterLine)
        {
            if (readsTail && (long) LONG.getVolatile(claims, 0L) <= (long) LONG.getAcquire(claims, 128L))
            {
                return false;
            }
            if (waiterLine && rx[WAITING] == 0)
            {
                rx[WAITING] = 1;
                LONG.setRelease(claims, WAITER + 8, 1L);
            }
            if (!pollCompletion(true))
            {
                return false;
            }
            if (readsTail && (long) LONG.getVolatile(claims, 0L) < 0)
            {
                throw new IllegalStateException("a claim counter below zero");
            }
            if (waiterLine)
            {
                rx[WAITING] = 0;
                LONG.setRelease(claims, WAITER + 8, 0L);
            }
            return true;
        }

        /** The receiver polls its completion ring (the EVD shape takes the entry by CAS). */
        boolean pollCompletion(final boolean evd)
        {
            if (evd)
            {
                final long c = (long) LONG.getAcquire(claims, 128L);
                final long at = slot(c);
                if ((long) LONG.getAcquire(completions, at) != c + 1)
                {
                    return false;
                }
                final long length = completions.get(ValueLayout.JAVA_LONG, at + 8);
                return LONG.compareAndSet(claims, 128L, c, c + 1) && length >= 0;
            }
            final long c = rx[POLLED];
            final long at = slot(c);
            if ((long) LONG.getAcquire(completions, at) != c + 1)
            {
                return false;
            }
            rx[POLLED] = c + 1;
            return completions.get(ValueLayout.JAVA_LONG, at + 8) >= 0;
        }

        /**
         * The completion in the descriptor's own line: the receiver posts a descriptor {@code
         * stride} bytes after the last (the buffer's offset and room in one long), marked posted
         * (n + 1).
         */
        void postRecvPacked(final long stride, final int size)
        {
            final long n = rx[POSTED]++;
            final long at = (n % SLOTS) * stride;
            descriptors.set(ValueLayout.JAVA_LONG, at + 8, 0L << 32 | size);
            LONG.setRelease(descriptors, at, n + 1);
        }

        /**
         * The sender reads the descriptor at the head, copies, writes the length where the buffer
         * was and marks it complete (-(n + 1)); the receive queue's head is claimed by an atomic,
         * as several posting threads of a threadsafe IA need (the event's position is the
         * descriptor's, so there is no EVD claim beside it).
         */
        void placeInDescriptor(final MemorySegment src, final int size, final long stride)
        {
            final long n = tx[PLACED]++;
            final long d = (n % SLOTS) * stride;
            awaitSeq(descriptors, d, n + 1);
            if ((long) LONG.getAndAdd(claims, 0L, 1L) != n)
            {
                throw new IllegalStateException("one sender claims here");
            }
            final long b = descriptors.get(ValueLayout.JAVA_LONG, d + 8);
            MemorySegment.copy(src, 0, buffer, b >>> 32, Math.min(b & 0xffff_ffffL, size));
            descriptors.set(ValueLayout.JAVA_LONG, d + 8, size);
            LONG.setRelease(descriptors, d, -(n + 1));
            waiterCheck();
        }

        /** The consumer's dequeue reads the completion in the descriptor and takes it by CAS. */
        boolean pollDescriptor(final long stride)
        {
            final long c = (long) LONG.getAcquire(claims, 128L);
            final long d = (c % SLOTS) * stride;
            if ((long) LONG.getAcquire(descriptors, d) != -(c + 1))
            {
                return false;
            }
            final long length = descriptors.get(ValueLayout.JAVA_LONG, d + 8);
            return LONG.compareAndSet(claims, 128L, c, c + 1) && length >= 0;
        }

        /** Batched publication: a descriptor 16 bytes after the last, then the head word. */
        void postRecvBatched(final int size)
        {
            final long n = rx[POSTED]++;
            descriptors.set(ValueLayout.JAVA_LONG, (n % SLOTS) * 16 + 8, 0L << 32 | size);
            LONG.setRelease(claims, HEAD, n + 1);
        }

        /**
         * Batched publication, the sender: the head word read only when its last view is used up,
         * the record (16 bytes apart, no sequence word) claimed as an EVD's, then the tail word.
         */
        void placeBatched(final MemorySegment src, final int size)
        {
            final long n = tx[PLACED]++;
            if (n >= tx[LIMIT])
            {
                while ((tx[LIMIT] = (long) LONG.getAcquire(claims, HEAD)) <= n)
                {
                    Thread.onSpinWait();
                }
            }
            final long b = descriptors.get(ValueLayout.JAVA_LONG, (n % SLOTS) * 16 + 8);
            MemorySegment.copy(src, 0, buffer, b >>> 32, Math.min(b & 0xffff_ffffL, size));
            final long c = (long) LONG.getAndAdd(claims, 0L, 1L);
            completions.set(ValueLayout.JAVA_LONG, (c % SLOTS) * 16, size);
            LONG.setRelease(claims, TAIL, c + 1);
            waiterCheck();
        }

        /** Batched publication, the consumer: the tail word read only when its last view is used up. */
        boolean pollBatched()
        {
            final long c = (long) LONG.getAcquire(claims, 128L);
            if (c >= rx[SEEN])
            {
                rx[SEEN] = (long) LONG.getAcquire(claims, TAIL);
                if (c >= rx[SEEN])
                {
                    return false;
                }
            }
            final long length = completions.get(ValueLayout.JAVA_LONG, (c % SLOTS) * 16);
            return LONG.compareAndSet(claims, 128L, c, c + 1) && length >= 0;
        }

        /** Receiver places, sender side: the message into the connection's ring. */
        void pushMessage(final MemorySegment src, final int size)
        {
            final long n = tx[PLACED]++;
            final long at = (n % SLOTS) * MESSAGE_SLOT;
            // one message in flight each way: the slot is free (a real ring reads the consumer's
            // index only when it looks full)
            messages.set(ValueLayout.JAVA_LONG, at + 8, size);
            MemorySegment.copy(src, 0, messages, at + 16, Math.min(size, MESSAGE_SLOT - 16));
            LONG.setRelease(messages, at, n + 1);
            waiterCheck();
        }

        /** Receiver places, receiver side: take a message, place it, complete it, dequeue it. */
        boolean pollMessage()
        {
            final long n = rx[TAKEN];
            final long at = (n % SLOTS) * MESSAGE_SLOT;
            if ((long) LONG.getAcquire(messages, at) != n + 1)
            {
                return false;
            }
            rx[TAKEN] = n + 1;
            final long size = messages.get(ValueLayout.JAVA_LONG, at + 8);
            final long d = slot(n);
            final long offset = descriptors.get(ValueLayout.JAVA_LONG, d + 8);
            final long room = descriptors.get(ValueLayout.JAVA_LONG, d + 16);
            MemorySegment.copy(messages, at + 16, buffer, offset, Math.min(room, size));
            final long c = rx[POLLED];
            final long ca = slot(c);
            completions.set(ValueLayout.JAVA_LONG, ca + 8, size);
            LONG.setRelease(completions, ca, c + 1);
            // the consumer's own dequeue of the entry it just wrote
            return pollCompletion(false);
        }
    }

    /** Two links, an echo thread, and the shape under test. */
    @State(Scope.Benchmark)
    public static class Rig
    {
        @Param({"queue", "senderPlaces", "senderPlacesEvd", "receiverPlaces", "evdReadsTail", "evdWaiterLine",
            "descCompletes", "descCompletes16", "batched16", "engine128", "engine32", "engine16"})
        public String shape;

        @Param({"64"})
        public int size;

        /** The shape as a number, so that the round trip does not compare strings. */
        int kind;
        Link toEcho;
        Link toPing;
        MemorySegment src;
        private Arena arena;
        private Thread echo;
        private volatile boolean running;
        /** False while {@link #main} measures another rig: the echo thread then sleeps. */
        volatile boolean active = true;

        /** Wakes the echo thread for a round of {@link #main}, or lets it sleep after one. */
        void activate(final boolean on)
        {
            active = on;
            LockSupport.unpark(echo);
        }

        @Setup(Level.Trial)
        public void setup()
        {
            kind = switch (shape)
            {
                case "queue" -> QUEUE;
                case "senderPlaces" -> SENDER;
                case "senderPlacesEvd" -> SENDER_EVD;
                case "receiverPlaces" -> RECEIVER;
                case "evdReadsTail" -> EVD_READS_TAIL;
                case "evdWaiterLine" -> EVD_WAITER_LINE;
                case "descCompletes" -> DESC;
                case "descCompletes16" -> DESC16;
                case "batched16" -> BATCHED16;
                case "engine128" -> ENGINE128;
                case "engine32" -> ENGINE32;
                case "engine16" -> ENGINE16;
                default -> throw new IllegalArgumentException("no shape " + shape);
            };
            arena = Arena.ofShared();
            toEcho = new Link(arena, size);
            toPing = new Link(arena, size);
            src = arena.allocate(size, 64);
            final MemorySegment echoSrc = arena.allocate(size, 64);
            // a receive posted ahead on each side, as the ping-pong keeps one outstanding
            repost(toEcho);
            repost(toPing);
            running = true;
            echo = new Thread(() ->
            {
                while (running)
                {
                    if (!active)
                    {
                        LockSupport.park();
                    }
                    else if (receive(toEcho))
                    {
                        repost(toEcho);
                        send(toPing, echoSrc);
                    }
                    else
                    {
                        Thread.onSpinWait();
                    }
                }
            }, "bench-floor-echo");
            echo.setDaemon(true);
            echo.start();
        }

        /** The receiver gives its buffer back (the queue has no descriptors). */
        void repost(final Link link)
        {
            switch (kind)
            {
                case QUEUE ->
                {
                }
                case DESC -> link.postRecvPacked(SLOT, size);
                case DESC16 -> link.postRecvPacked(16, size);
                case BATCHED16 -> link.postRecvBatched(size);
                case ENGINE128 -> link.postRecvEngine(128);
                case ENGINE32 -> link.postRecvEngine(32);
                case ENGINE16 -> link.postRecvEngine(16);
                default -> link.postRecv(size);
            }
        }

        void send(final Link link, final MemorySegment from)
        {
            switch (kind)
            {
                case QUEUE ->
                {
                    MemorySegment.copy(from, 0, link.buffer, 0, size);
                    link.queue.offer(link);
                }
                case SENDER -> link.placeSend(from, size, false, false);
                case SENDER_EVD, EVD_READS_TAIL -> link.placeSend(from, size, true, false);
                case EVD_WAITER_LINE -> link.placeSend(from, size, true, true);
                case DESC -> link.placeInDescriptor(from, size, SLOT);
                case DESC16 -> link.placeInDescriptor(from, size, 16);
                case BATCHED16 -> link.placeBatched(from, size);
                case ENGINE128 -> link.placeEngine(from, size, 128);
                case ENGINE32 -> link.placeEngine(from, size, 32);
                case ENGINE16 -> link.placeEngine(from, size, 16);
                default -> link.pushMessage(from, size);
            }
        }

        boolean receive(final Link link)
        {
            return switch (kind)
            {
                case QUEUE -> link.queue.poll() != null;
                case SENDER -> link.pollCompletion(false);
                case SENDER_EVD -> link.pollCompletion(true);
                case EVD_READS_TAIL -> link.pollCompletion(true, false);
                case EVD_WAITER_LINE -> link.pollCompletion(false, true);
                case DESC -> link.pollDescriptor(SLOT);
                case DESC16 -> link.pollDescriptor(16);
                case BATCHED16 -> link.pollBatched();
                case ENGINE128 -> link.pollEngine(128);
                case ENGINE32 -> link.pollEngine(32);
                case ENGINE16 -> link.pollEngine(16);
                default -> link.pollMessage();
            };
        }

        @TearDown(Level.Trial)
        public void tearDown() throws InterruptedException
        {
            running = false;
            LockSupport.unpark(echo);
            echo.join(1000);
            arena.close();
        }
    }

    /** One round trip in the rig's shape; the echo thread answers each message with one. */
    @Benchmark
    public boolean roundTrip(final Rig r)
    {
        r.send(r.toEcho, r.src);
        while (!r.receive(r.toPing))
        {
            Thread.onSpinWait();
        }
        r.repost(r.toPing);
        return true;
    }

    /**
     * The shapes in turn in one JVM, many short rounds, so that each ratio compares shapes
     * measured within a second of each other. The two vCPUs of a virtual machine move between host
     * cores: the queue's own round trip changed fivefold between JMH forks. Prints each shape's
     * median round trip and its median ratio to the queue's in the same round, then each round's
     * round trips (ns), shapes in the order of the first lines.
     * {@code java -cp jdat-benchmarks.jar io.jdat.bench.HopFloorBenchmark [rounds] [trips]}
     * ({@code -Dhopfloor.shapes=a,b}: the queue and those shapes only)
     */
    public static void main(final String[] args) throws InterruptedException
    {
        final int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 40;
        final int trips = args.length > 1 ? Integer.parseInt(args[1]) : 50_000;
        // -Dhopfloor.shapes=a,b: the queue and those shapes only
        final String only = System.getProperty("hopfloor.shapes");
        final String[] shapes = only != null ? ("queue," + only).split(",") : new String[] {"queue", "senderPlaces",
            "senderPlacesEvd", "receiverPlaces", "evdReadsTail", "evdWaiterLine",
            "descCompletes", "descCompletes16", "batched16", "engine128", "engine32", "engine16"};
        final Rig[] rigs = new Rig[shapes.length];
        for (int k = 0; k < shapes.length; k++)
        {
            rigs[k] = new Rig();
            rigs[k].shape = shapes[k];
            rigs[k].size = 64;
            rigs[k].setup();
            rigs[k].activate(false);
        }
        final HopFloorBenchmark b = new HopFloorBenchmark();
        final double[][] ns = new double[shapes.length][rounds];
        for (int round = -3; round < rounds; round++)
        {
            for (int k = 0; k < shapes.length; k++)
            {
                final Rig r = rigs[k];
                r.activate(true);
                final long t0 = System.nanoTime();
                for (int i = 0; i < trips; i++)
                {
                    b.roundTrip(r);
                }
                final long t1 = System.nanoTime();
                r.activate(false);
                if (round >= 0)
                {
                    ns[k][round] = (double) (t1 - t0) / trips;
                }
            }
        }
        for (int k = 0; k < shapes.length; k++)
        {
            final double[] ratio = new double[rounds];
            for (int round = 0; round < rounds; round++)
            {
                ratio[round] = ns[k][round] / ns[0][round];
            }
            System.out.printf("%-16s round trip median %7.1f ns (min %7.1f, max %7.1f); ratio to queue median %.2f "
                + "(min %.2f, max %.2f)%n", shapes[k], median(ns[k]), min(ns[k]), max(ns[k]), median(ratio),
                min(ratio), max(ratio));
        }
        for (int round = 0; round < rounds; round++)
        {
            final StringBuilder line = new StringBuilder("round " + round + ":");
            for (int k = 0; k < shapes.length; k++)
            {
                line.append(String.format(" %.1f", ns[k][round]));
            }
            System.out.println(line);
        }
        for (final Rig r : rigs)
        {
            r.tearDown();
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

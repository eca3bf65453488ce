package io.jdat.shm;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * One direction of a connection: a single-producer single-consumer ring of variable-length
 * records in a shared mapped file. One process writes, the other reads; each side makes one
 * instance and uses only its half of the methods.
 * <pre>
 *   control block (384 bytes, CONTROL_SIZE)
 *     0    tail  long   bytes ever published by the producer   written by the producer only
 *     128  head  long   bytes ever consumed by the consumer     written by the consumer only
 *     192  cut   long   the end of the last record the consumer   compare-and-set by the consumer
 *                       began to deliver; WITHDRAWN (the sign     and, once, by the producer
 *                       bit) once the producer took back the rest
 *                       (each word on a cache line of its own: the producer polls the head for
 *                       its messages consumed while the consumer claims the next record, and a
 *                       cut on the head's line would cross between the cores for every claim)
 *     256  consumerSleeps int  nonzero (a ticket) while the consumer sleeps on tail's low half
 *     320  producerSleeps int  nonzero (a ticket) while the producer sleeps on head's low half
 *                       (each written only by the side that sleeps, read after every record)

 *   data (capacity bytes, a power of two)
 *     a record starts at (position &amp; (capacity - 1)), ALIGN-byte aligned, and never wraps: a record
 *     that would cross the end is preceded by a PAD record that fills the rest of the ring (the
 *     PAD's length word is stored after the record's, so the consumer never reads the start of
 *     the ring before the record there is whole)
 *     +--------+--------+------------------------------------------------+
 *     | length | type   | the rest of the record (see Frame)             |  length rounded up to ALIGN
 *     +--------+--------+------------------------------------------------+
 * </pre>
 * Publication (as Agrona's and Aeron's logs do it): a record's length word publishes it. The
 * producer writes the record with plain stores, its length word left zero, stores zero into the
 * length word where the next record will start (the room a claim asks for includes it), then
 * stores the record's length with release, then {@code tail} with release; the consumer loads the
 * length word at its position with acquire ({@link #next()}): zero means nothing yet, anything
 * else that it sees every byte of the record. So a consumer that keeps up with the producer reads
 * only the lines the records are on, where loading the tail moved one more line between the cores
 * for every poll (the producer stores it per record). The tail is still published, for the
 * consumer's futex sleep and for the check of a withdrawn cut. The consumer stores {@code head}
 * with release once it is done with a record (it has delivered it); the producer loads
 * {@code head} with acquire before it writes over that space again, so the consumer's reads come
 * before the producer's overwrite.
 *
 * <p>Withdrawal (an abrupt close): the consumer claims each record before it delivers it, by
 * moving {@code cut} from the end of the previous record to the end of this one with a
 * compare-and-set; the producer that aborts sets {@link #WITHDRAWN} with a compare-and-set too,
 * and with it the cut where the deliveries end: the cut it found, or further, up to a record's
 * end it already published and must not take back (the last record of a message it reported
 * complete once written, {@link #withdraw(long)}). Exactly one of them wins: records up to the
 * cut the producer set are delivered (the one claimed last perhaps still being placed, the ones
 * beyond the consumer's claim by the consumer as it reaches them, with no claim), and none after
 * it ever is. So the producer knows, without waiting for the consumer, which messages the peer
 * has or will have and which it never will. The consumer checks the withdrawn cut as it checks
 * the tail: one behind its own claim, beyond what was published, off the ALIGN grid or inside a
 * record throws {@link Corrupt}; so does a cut that moved with no withdrawal. The producer throws it
 * too for a cut that moved again before each of its {@link #WITHDRAW_TRIES} compare-and-sets.
 *
 * <p>Sleeping ({@link Futex}): a side with nothing to do may sleep until the other moves. It stores
 * a new ticket in its "sleeps" word, loads the other side's word once more, and sleeps on the
 * low 32 bits of that word (the futex value is the position it last saw, so a move before the
 * sleep returns at once) with a timeout of at most {@code idle_park_max_ns}. The other side,
 * after the release store of its position, loads the "sleeps" word with acquire (no fence) and
 * calls {@code FUTEX_WAKE} only when it is set. Without a fence the two stores may pass each
 * other's loads: then the sleeper does not see the record and the producer does not see the
 * ticket. The futex's own value check closes most of that window (the store lands before the
 * sleeper's system call reads the word); what is left costs that wake-up one timeout, never more,
 * where a fence would cost every record. A peer's "sleeps" word buys it at most one wake call per
 * ticket, and one per turn of the ring while a ticket stays unchanged (a hostile peer that leaves
 * it set gets no flood of system calls).
 *
 * <p>Neither side trusts the other: each keeps its own position in a private field and only
 * publishes it, never reads it back; the other side's word is checked on every load
 * ({@code 0 <= tail - head <= capacity}, multiple of {@link #ALIGN}, the head never moving back) and a bad one
 * throws {@link Corrupt}; a record's length word is checked by its reader ({@code ShmChannel}) against
 * the bytes left before the end of the ring.
 *
 * <p>Why not Agrona's {@code OneToOneRingBuffer}: Agrona 2.x reaches {@code jdk.internal.misc.Unsafe}
 * (every JVM that loaded jdat would need {@code --add-exports java.base/jdk.internal.misc=...}),
 * Agrona 1.x uses the {@code sun.misc.Unsafe} memory methods that JDK 25 warns about and will
 * remove, neither is a named module, and its reader trusts record lengths found in the buffer,
 * which a hostile peer writes. This ring is the same Lamport design over {@link MemorySegment} and
 * {@link java.lang.invoke.VarHandle}s, with every word from the other side checked.
 */
final class SpscRing
{
    static final long TAIL = 0;
    static final long HEAD = 128;
    static final long CUT = 192;
    /** The bit of {@link #CUT} that says the producer withdrew what was not claimed. */
    static final long WITHDRAWN = Long.MIN_VALUE;
    static final long CONSUMER_SLEEPS = 256;
    static final long PRODUCER_SLEEPS = 320;
    static final long CONTROL_SIZE = 384;
    /**
     * Records start on 16-byte boundaries: a 64-byte Send's record (16 bytes of header, 80 in all)
     * then spans two cache lines wherever it starts, where 8 would let one in four span three.
     */
    static final int ALIGN = 16;
    /**
     * The compare-and-sets a withdrawal tries. Each one an honest consumer makes fail claimed a
     * record in between (its claims come one per record delivered, microseconds apart, where a try
     * takes a few instructions); a cut that moves on every try is a peer that wants this side to
     * loop, and the ring is treated as corrupt.
     */
    static final int WITHDRAW_TRIES = 64;

    private final MemorySegment control;
    private final MemorySegment data;
    private final long capacity;
    private final long mask;
    /** Producer: the private tail. Consumer: the private head. */
    private long position;
    /** Producer: the consumer's head as last loaded. */
    private long knownHead;
    private int claimed;
    /** Producer: the record claimed, its length word, and the PAD before it (or -1). */
    private long claimedAt;
    private int claimedLength;
    private long padAt = -1;
    /** Consumer: the cut as it last set it. */
    private long cut;
    /** Consumer: where the producer's withdrawal ends the deliveries, or -1 while it has not withdrawn. */
    private long limit = -1;
    /** The ticket this side sleeps with next ({@link #armConsumer()}, {@link #armProducer()}). */
    private int ticket;
    /** The other side's ticket last woken, and this side's position then. */
    private int wokenTicket;
    private long wokenAt;
    /** Wake calls made (a counter for tests and attributes). */
    private long wakes;

    SpscRing(final MemorySegment control, final MemorySegment data)
    {
        this.control = control;
        this.data = data;
        this.capacity = data.byteSize();
        if (Long.bitCount(capacity) != 1 || capacity < 256)
        {
            throw new IllegalArgumentException("ring capacity " + capacity + " is not a power of two >= 256");
        }
        this.mask = capacity - 1;
    }

    static int aligned(final int length)
    {
        return (length + ALIGN - 1) & -ALIGN;
    }

    MemorySegment data()
    {
        return data;
    }

    /** The control block (tail and head words). */
    MemorySegment control()
    {
        return control;
    }

    long capacity()
    {
        return capacity;
    }

    /** Bytes this side moved so far: the producer's private tail, the consumer's private head. */
    long position()
    {
        return position;
    }

    // ---------------------------------------------------------------- producer

    /**
     * Producer: makes room for a record of {@code length} bytes (header and payload) and returns
     * its offset in {@link #data()}, or -1 if the consumer has not freed enough yet. A PAD record
     * is written first when the record would cross the end. {@link #commit()} publishes it.
     * The length must be at most a quarter of the capacity.
     */
    long claim(final int length)
    {
        final int size = aligned(length);
        final long index = position & mask;
        final long toEnd = capacity - index;
        // and ALIGN bytes after the record, where the next record's length word is zeroed
        final long need = (size <= toEnd ? size : toEnd + size) + ALIGN;
        if (position + need - knownHead > capacity)
        {
            loadHead();
            if (position + need - knownHead > capacity)
            {
                return -1;
            }
        }
        claimed = size;
        claimedLength = length;
        if (size <= toEnd)
        {
            claimedAt = index;
            return index;
        }
        // the PAD's length word (zero until commit) publishes it after the record at 0
        data.set(ValueLayout.JAVA_INT, index + 4, Frame.PAD);
        padAt = index;
        position += toEnd;
        claimedAt = 0;
        return 0;
    }

    /**
     * Producer: publishes the record just claimed (and the PAD before it, if any): zeroes the
     * length word where the next record will start, then stores the record's length with release
     * (the consumer loads it with acquire, {@link #next()}), then the PAD's, then the tail.
     */
    void commit()
    {
        commit(claimedLength);
    }

    /** As {@link #commit()}, with the length word given (a test forges one). */
    void commit(final int length)
    {
        data.set(ValueLayout.JAVA_INT, (claimedAt + claimed) & mask, 0);
        Shared.setIntRelease(data, claimedAt, length);
        if (padAt >= 0)
        {
            Shared.setIntRelease(data, padAt, (int) (capacity - padAt));
            padAt = -1;
        }
        position += claimed;
        claimed = 0;
        Shared.setLongRelease(control, TAIL, position);
        if (Futex.SUPPORTED)
        {
            wakeSleeper(CONSUMER_SLEEPS, TAIL);
        }
    }

    /**
     * After a release store of this side's position: wakes the other side if its "sleeps" word
     * holds a ticket not yet woken, or one woken a whole ring ago (see the class comment).
     */
    private void wakeSleeper(final long sleeps, final long word)
    {
        final int t = Shared.getIntAcquire(control, sleeps);
        if (t != 0 && (t != wokenTicket || position - wokenAt >= capacity))
        {
            wokenTicket = t;
            wokenAt = position;
            wakes++;
            Futex.wake(control.address() + word);
        }
    }

    /** Wake calls this side made for the other. */
    long wakes()
    {
        return wakes;
    }

    /**
     * Consumer, before it sleeps until the producer publishes: announces it with a new ticket and
     * returns the futex value to sleep on (the low half of the tail it has consumed up to). The
     * caller then checks {@link #published()} once more and sleeps on {@link #tailWord()}.
     */
    int armConsumer()
    {
        Shared.setIntVolatile(control, CONSUMER_SLEEPS, nextTicket());
        return (int) position;
    }

    /**
     * Producer, before it sleeps until the consumer consumes: as {@link #armConsumer()}, with the
     * head it last loaded; the caller checks {@link #headMoved()} and sleeps on {@link #headWord()}.
     */
    int armProducer()
    {
        Shared.setIntVolatile(control, PRODUCER_SLEEPS, nextTicket());
        return (int) knownHead;
    }

    private int nextTicket()
    {
        if (++ticket == 0)
        {
            ticket = 1;
        }
        return ticket;
    }

    /** Awake again: no wake-ups wanted from the other side. */
    void disarm(final boolean consumer)
    {
        Shared.setIntRelease(control, consumer ? CONSUMER_SLEEPS : PRODUCER_SLEEPS, 0);
    }

    /** The address of the futex word a sleeping consumer waits on (the tail's low half, little-endian). */
    long tailWord()
    {
        return control.address() + TAIL;
    }

    /** The address of the futex word a sleeping producer waits on (the head's low half). */
    long headWord()
    {
        return control.address() + HEAD;
    }

    /** Producer, a hint: whether the consumer's head moved since {@link #consumed()} last loaded it. */
    boolean headMoved()
    {
        return Shared.getLongAcquire(control, HEAD) != knownHead;
    }

    /** Producer: whether the head last loaded covers every record published (no load). */
    boolean drainedAsKnown()
    {
        return knownHead == position;
    }

    /** Producer: how far the consumer has consumed (checked). */
    long consumed()
    {
        loadHead();
        return knownHead;
    }

    private void loadHead()
    {
        final long h = Shared.getLongAcquire(control, HEAD);
        final long inFlight = position - h;
        if (h < knownHead || inFlight < 0 || inFlight > capacity || (h & (ALIGN - 1)) != 0)
        {
            throw Corrupt.framing("the consumer's head " + h + " is impossible (tail " + position + ")");
        }
        knownHead = h;
    }

    /**
     * Producer, once, when it aborts: takes back every record the consumer has not claimed that
     * lies beyond {@code keep} (a record's end it published, or 0), and returns where the
     * consumer's deliveries end: the consumer's claim or {@code keep}, whichever is further
     * (checked: a claim it could not have made counts as no more than what it consumed). Nothing
     * from there on will be delivered; everything before it will be, unless the consumer dies.
     *
     * @throws Corrupt if the cut moved on each of {@link #WITHDRAW_TRIES} tries
     */
    long withdraw(final long keep)
    {
        long c;
        for (int tries = 0;; tries++)
        {
            c = Shared.getLongVolatile(control, CUT);
            if (c < 0)
            {
                break;
            }
            if (tries == WITHDRAW_TRIES)
            {
                throw Corrupt.framing("the consumer's cut moved on each of " + WITHDRAW_TRIES
                    + " tries to withdraw (now " + c + ")");
            }
            if (Shared.casLong(control, CUT, c, Math.max(c, keep) | WITHDRAWN))
            {
                break;
            }
        }
        final boolean ours = c >= 0;
        c = ours ? Math.max(c, keep) : c & ~WITHDRAWN;
        loadHead();
        // a PAD record is consumed without a claim: the head may be ahead of the cut
        return c < knownHead || c > position || (c & (ALIGN - 1)) != 0 ? Math.max(knownHead, keep) : c;
    }

    // ---------------------------------------------------------------- consumer

    /**
     * Consumer: claims the next record, of {@code size} bytes, before delivering it; false if
     * the producer withdrew it (deliver nothing more).
     */
    boolean beginDelivery(final long size)
    {
        final long end = position + size;
        if (limit < 0)
        {
            if (Shared.casLong(control, CUT, cut, end))
            {
                cut = end;
                return true;
            }
            limit = withdrawnCut();
        }
        if (end <= limit)
        {
            return true;
        }
        if (position < limit)
        {
            throw Corrupt.framing("the withdrawn ring's cut " + limit + " falls inside the record at " + position
                + " of " + size + " bytes");
        }
        return false;
    }

    /**
     * Consumer, once its claim failed: the cut where the producer's withdrawal ends the
     * deliveries, read once and checked (no earlier than this side's claim, no later than what
     * was published, on the ALIGN grid).
     */
    private long withdrawnCut()
    {
        final long c = Shared.getLongVolatile(control, CUT);
        if (c >= 0)
        {
            throw Corrupt.framing("the ring's cut moved to " + c + " with no withdrawal (claimed " + cut + ")");
        }
        final long k = c & ~WITHDRAWN;
        final long t = Shared.getLongAcquire(control, TAIL);
        if (k < cut || k > t || k - position > capacity || (k & (ALIGN - 1)) != 0)
        {
            throw Corrupt.framing("the withdrawn ring's cut " + k + " is impossible (claimed " + cut + ", published "
                + t + ")");
        }
        return k;
    }

    /** Consumer: bytes published and not yet consumed (checked). */
    long available()
    {
        final long t = Shared.getLongAcquire(control, TAIL);
        final long d = t - position;
        if (d < 0 || d > capacity || (d & (ALIGN - 1)) != 0)
        {
            throw Corrupt.framing("the producer's tail " + t + " is impossible (head " + position + ")");
        }
        return d;
    }

    /**
     * Consumer: the length word of the next record, loaded with acquire: 0 while the producer has
     * not published it (no check: the caller checks it against {@link #toEnd()}).
     */
    int next()
    {
        return Shared.getIntAcquire(data, position & mask);
    }

    /**
     * Consumer, a hint without the consumer's lock: whether the producer published beyond what
     * was consumed (the next record's length word: the line the record is read from anyway, where
     * the tail is a line the producer writes for every record).
     */
    boolean published()
    {
        return next() != 0;
    }

    /** Consumer: the offset in {@link #data()} of the next record. */
    long readIndex()
    {
        return position & mask;
    }

    /** Consumer: bytes from the next record to the end of the data area. */
    long toEnd()
    {
        return capacity - (position & mask);
    }

    /** Consumer: done with {@code size} bytes (a whole aligned record); the producer may reuse them. */
    void consume(final long size)
    {
        position += size;
        Shared.setLongRelease(control, HEAD, position);
        if (Futex.SUPPORTED)
        {
            wakeSleeper(PRODUCER_SLEEPS, HEAD);
        }
    }
}

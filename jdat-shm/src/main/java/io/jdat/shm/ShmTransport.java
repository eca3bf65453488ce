package io.jdat.shm;

import io.jdat.DatException;
import io.jdat.DatReturnType;
import io.jdat.IaAddress;
import io.jdat.engine.EngineConfig;
import io.jdat.engine.channel.Transport;
import io.jdat.engine.channel.TransportContext;
import io.jdat.engine.channel.TransportPort;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;

/**
 * Connections between processes of one host through shared memory. The IA address is a
 * host-local name (instance data {@code address=NAME}, default the IA name); every process that
 * opens an IA on the same address shares its connection qualifiers, as the processes of a host
 * share its TCP ports. Options (instance data):
 * <ul>
 *   <li>{@code dir=PATH}: the provider's directory (default {@code jdat.shm.dir}, else
 *       {@code /dev/shm/jdat-UID})</li>
 *   <li>{@code group=NAME}: share the directory with the Unix group NAME (a name or a number):
 *       what this IA makes there is for that group (directories 0770, files 0660, group NAME), and
 *       what it uses must have that group and no access for others, whichever member made it. By
 *       default nothing is shared: directories 0700, files 0600, this user's own; a directory or
 *       file with group access is refused. A process whose user is not in the group cannot enter
 *       the directory</li>
 *   <li>{@code max_private_data} (default 256, at most 1024)</li>
 *   <li>{@code any_qual_range=LO-HI}: qualifiers {@code dat_psp_create_any} picks from (default
 *       49152-65535)</li>
 *   <li>{@code ring_size}: bytes per direction of a connection, a power of two (default 1 MiB)</li>
 *   <li>{@code max_chunk}: the largest payload of one record (default 256 KiB, at most a quarter
 *       of the ring)</li>
 *   <li>{@code idle_spin_ns}, {@code idle_yield_ns}, {@code idle_park_min_ns}, {@code idle_park_max_ns}:
 *       how the I/O thread waits after its last work (default 20000, 200000, 1000, 1000000; see
 *       {@link Backoff}). Where it sleeps on futex words the peer wakes ({@code futex}) it does
 *       not yield by default (0) and each sleep lasts {@code idle_park_max_ns}: a yielding thread
 *       waits for a spinning one's slice to end, milliseconds, a sleeping one is woken by the
 *       peer's record and given a core at once. A waiter ({@code wait_polls}) yields
 *       {@code idle_yield_ns} (default 200000) either way</li>
 *   <li>{@code poll_grace_ns}: while a consumer thread moved the rings inline (polling an EVD)
 *       this recently, the I/O thread stays parked instead of competing with it for a core
 *       (default 100000; 0: the I/O thread never steps aside)</li>
 *   <li>{@code poll_aside_max_ns}: while the consumer keeps polling, the I/O thread looks again
 *       after twice as long each time, up to this (default 2000000): every look wakes a thread
 *       that takes a core from a spinning one for a few microseconds. A consumer that parks in
 *       {@code dat_evd_wait} hands the rings back at once; one that just stops polling, after at
 *       most this long</li>
 *   <li>{@code wait_polls}: a consumer whose {@code dat_evd_wait} spin ended moves the rings
 *       itself, backing off as the I/O thread does, instead of parking until the I/O thread finds
 *       its answer and wakes it (default true; false: it parks)</li>
 *   <li>{@code wait_spin_ns}: how long such a waiter spins on before it yields (default 0: it spun
 *       {@code dat_evd_wait}'s {@code evd_spin_us} already; then {@code idle_yield_ns} of yielding
 *       and the I/O thread's parks). When the two sides of a ping-pong share one core (the other
 *       taken by another process), every microsecond this thread spins is one its peer cannot run
 *       to answer: at 200000 a half round trip took 223 µs, at 20000 about 43</li>
 *   <li>{@code evd_spin_yield_ns} (the engine's option, whose default shm's library sets to 1000
 *       where the engine's is 0): how often {@code dat_evd_wait}'s spin yields its core, so that a
 *       peer thread on the same core answers within a microsecond instead of after the whole
 *       spin</li>
 *   <li>{@code futex}: where the I/O thread or such a waiter would park, it sleeps on futex words
 *       of the rings that the peer process wakes when it publishes or consumes a record
 *       ({@link Futex}; the sleep lasts no longer than the park; default true where futexes and
 *       native access are available; false: it parks, and only this process can wake it)</li>
 *   <li>{@code liveness_ms}: how often peers' processes are checked (default 10)</li>
 *   <li>{@code stall_ms}: a connection with records in the ring or messages waiting for room,
 *       whose peer consumed none of them for this long, is broken (default 5000): a peer that
 *       stopped reading (stopped, hung or hostile) holds the request queue's messages, never more,
 *       and only for this long</li>
 *   <li>{@code direct_min}: RDMA Writes and Read Responses of at least this many bytes out of
 *       shared memory ({@link ShmMemory}) travel as a reference to it instead of through the ring
 *       (default 65536; 0 turns it off)</li>
 *   <li>{@code complete_written}: a Send of one record (at most {@code max_chunk} bytes from one
 *       gather piece) completes as soon as its record is published in the ring, whether the
 *       posting thread wrote it (when nothing of its endpoint waits to be written) or a progress
 *       round did; completions still come in post order. The DTO's completion then says that
 *       the local buffer may be reused, as on tcp, and that the peer will be handed it: an abrupt
 *       close (an abrupt disconnect, freeing the endpoint, closing the IA, the process's orderly
 *       exit) never withdraws a record of a Send already reported complete, nor anything before
 *       it, so a live peer that goes on reading delivers it before it sees the close, as over an
 *       RDMA NIC, which completes a Send once the peer acknowledged it (dapltest ends each test
 *       with a Send and an abrupt disconnect). What is not promised: that the peer placed it (a
 *       Send the peer refuses, for want of a receive, completes with success and the connection
 *       breaks after it), nor that it is placed when the peer's process dies, stops reading or
 *       closes first. {@code true} is the default. {@code false}: every message completes when
 *       the peer has consumed (placed) its last record, as RDMA Writes, Reads and larger Sends
 *       always do; an abrupt close then flushes exactly what the peer never places</li>
 *   <li>{@code close_timeout_ms}: how long a graceful close or a Terminate may wait for ring space
 *       before the connection is dropped (default 2000)</li>
 * </ul>
 */
final class ShmTransport implements Transport
{
    final Path root;
    /** The Unix group the directory is shared with ({@code group=}), or null. */
    final String group;
    final IaAddress address;
    final int maxPrivateData;
    final long anyLow;
    final long anyHigh;
    final int ringSize;
    final int maxChunk;
    final Backoff backoff;
    /** How the I/O thread waits where it cannot sleep on futex words: it yields before it parks. */
    final Backoff parkBackoff;
    /** How a waiter in {@code dat_evd_wait} whose spin ended waits on ({@link ShmPort#awaitProgress}). */
    final Backoff waitBackoff;
    final long pollGraceNanos;
    final long pollAsideMaxNanos;
    /** Whether a waiter whose spin ended moves the rings itself ({@code wait_polls}). */
    final boolean waitPolls;
    /** Whether the port's threads sleep on futex words the peer wakes ({@code futex}). */
    final boolean futex;
    final long livenessNanos;
    final long closeTimeoutNanos;
    final long stallNanos;
    /** The smallest RDMA Write or Read Response that goes direct; 0: none does. */
    final long directMin;
    /** Whether a Send of one record completes once written into the ring ({@code complete_written}). */
    final boolean completeWritten;

    ShmTransport(final String iaName, final EngineConfig config)
    {
        final String dir = config.get("dir");
        final Path given = dir == null || dir.isEmpty() ? ShmDirectory.defaultRoot() : Path.of(dir);
        this.root = given.toAbsolutePath().normalize();
        final String g = config.get("group");
        this.group = g == null || g.isEmpty() ? null : g;
        ShmDirectory.share(root, group);
        final String a = config.get("address");
        final String name = a == null || a.isEmpty() ? iaName : a;
        if (!ShmDirectory.validName(name))
        {
            throw new IllegalArgumentException("shm address '" + name + "' is not a name of letters, digits, "
                + "'.', '_' and '-' (at most 63, not starting with '.', '_' or '-')");
        }
        this.address = IaAddress.named(name);
        this.maxPrivateData = (int) config.bounded("max_private_data", 256, 0, ConnectionFile.PD_MAX);
        final long[] range = config.range("any_qual_range", 49152, 65535, 0, Long.MAX_VALUE - 1);
        anyLow = range[0];
        anyHigh = range[1];
        this.ringSize = (int) config.bounded("ring_size", 1 << 20, ConnectionFile.MIN_RING, ConnectionFile.MAX_RING);
        if (Integer.bitCount(ringSize) != 1)
        {
            throw new IllegalArgumentException("ring_size " + ringSize + " is not a power of two");
        }
        final long chunk = config.bounded("max_chunk", 256 << 10, 1, Integer.MAX_VALUE);
        this.maxChunk = (int) Math.min(chunk, (ringSize / 4 - Frame.HEADER) & -SpscRing.ALIGN);
        this.futex = config.flag("futex", true);
        // an I/O thread the peer wakes goes to sleep after its spin: while it yields it is
        // runnable, and on a machine with fewer cores than spinning threads its turn comes only
        // when a spinner's slice ends, milliseconds later (an RDMA Write waiting for it to land
        // while the target spins on its memory); asleep, the peer's wake-up gives it a core at once
        // (whether futexes work here is the port's to find: Futex is not loaded before a port opens)
        final long spin = config.bounded("idle_spin_ns", 20_000, 0, Long.MAX_VALUE);
        final long yield = config.bounded("idle_yield_ns", 200_000, 0, Long.MAX_VALUE);
        final long minPark = config.bounded("idle_park_min_ns", 1000, 1, Long.MAX_VALUE);
        final long maxPark = config.bounded("idle_park_max_ns", 1_000_000, 1, Long.MAX_VALUE);
        this.parkBackoff = new Backoff(spin, yield, minPark, maxPark);
        this.backoff = !futex ? parkBackoff
            : new Backoff(spin, config.bounded("idle_yield_ns", 0, 0, Long.MAX_VALUE), minPark, maxPark);
        this.waitBackoff = new Backoff(config.bounded("wait_spin_ns", 0, 0, Long.MAX_VALUE), yield, minPark, maxPark);
        this.pollGraceNanos = config.bounded("poll_grace_ns", 100_000, 0, 1_000_000_000);
        this.pollAsideMaxNanos = config.bounded("poll_aside_max_ns", 2_000_000, 0, 1_000_000_000);
        this.waitPolls = config.flag("wait_polls", true);
        this.livenessNanos = config.bounded("liveness_ms", 10, 1, 60_000) * 1_000_000L;
        this.closeTimeoutNanos = config.bounded("close_timeout_ms", 2000, 1, 3_600_000) * 1_000_000L;
        this.stallNanos = config.bounded("stall_ms", 5000, 1, 3_600_000) * 1_000_000L;
        this.directMin = config.bounded("direct_min", 65536, 0, Long.MAX_VALUE);
        this.completeWritten = config.flag("complete_written", true);
    }

    @Override
    public String name()
    {
        return ShmLibrary.NAME;
    }

    @Override
    public TransportPort open(final TransportContext context)
    {
        return new ShmPort(this, context);
    }

    /**
     * {@code DAT_MEM_TYPE_SHARED_VIRTUAL} memory must be shared memory of this provider
     * ({@link ShmMemory}) under the cookie given; anything else is memory the platform did not
     * create as shared ({@code DAT_INVALID_STATE}, dat_lmr_create).
     */
    @Override
    public void checkSharedMemory(final MemorySegment memory, final byte[] cookie)
    {
        if (!ShmMemory.registrable(memory.address(), memory.byteSize(), cookie))
        {
            throw new DatException(DatReturnType.INVALID_STATE, "the memory is not shm shared memory (ShmMemory) "
                + "open in this process under this shared memory id");
        }
    }
}

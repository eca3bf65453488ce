package io.jdat.tcp.channel;

/**
 * How one {@link TcpChannel} knows its peer is alive, within {@code liveness_ms}: bytes arrive,
 * or the kernel shows our bytes acknowledged ({@link KernelQueues}). The peer is taken for dead
 * when a send made no progress for the whole bound, when RDMA Reads wait and the peer sent
 * nothing for that long, or when it was silent and acknowledged none of our bytes in flight for
 * that long. Under the port's progress lock.
 */
final class PeerWatch
{
    /** How many samples of the bytes written {@link #sentBy} keeps: they span at least twice the bound. */
    private static final int SAMPLES = 16;
    private final long livenessNanos;
    /** Where this connection appears in the kernel's TCP tables ({@link KernelQueues}); empty if unknown. */
    private final String[] kernelKeys;
    /** When the send last made progress (a write the kernel took some of, or a send begun from empty). */
    private long lastProgress;
    /** When bytes last arrived, or the last Read Request went out. */
    private long lastInbound;
    /** RDMA Read Requests sent whose Response has not ended yet. */
    private int readsOutstanding;
    /** Bytes read so far, and at the last tick. */
    private long received;
    private long receivedAtTick;
    /** When the peer was last known alive: bytes came, or the kernel saw our data acknowledged. */
    private long heardAt;
    /** The last look at the kernel's queue: when, written then, and the bytes it held unacknowledged (-1: none). */
    private long lookedAt;
    private long writtenAtLook;
    private long queuedAtLook = -1;
    /**
     * Ticks at which the bytes written had grown, at least an eighth of the bound apart, and how
     * many had been written by then: by {@code sampleAt[i]}, the first {@code sampleWritten[i]}
     * bytes were with the kernel. A ring of {@value #SAMPLES}; {@code samples} counts all taken.
     */
    private final long[] sampleAt = new long[SAMPLES];
    private final long[] sampleWritten = new long[SAMPLES];
    private int samples;

    PeerWatch(final long livenessNanos, final String[] kernelKeys)
    {
        this.livenessNanos = livenessNanos;
        this.kernelKeys = kernelKeys;
    }

    /** The connection starts: the peer counts as just heard. */
    void started(final long now)
    {
        lastProgress = now;
        lastInbound = now;
        heardAt = now;
    }

    /** The send made progress. */
    void sendProgress(final long now)
    {
        lastProgress = now;
    }

    /** {@code n} bytes arrived. */
    void received(final long n)
    {
        received += n;
        if (readsOutstanding > 0)
        {
            lastInbound = System.nanoTime();
        }
    }

    /** A Read Request went out. */
    void readIssued()
    {
        if (readsOutstanding++ == 0)
        {
            lastInbound = System.nanoTime();
        }
    }

    /** A Read Response ended. */
    void readAnswered()
    {
        if (readsOutstanding > 0)
        {
            readsOutstanding--;
        }
    }

    /**
     * A tick of an open connection: true if the peer is to be taken for dead now, because the
     * send ({@code sendBlocked}: bytes the kernel did not take) made no progress for the whole
     * bound, or RDMA Reads wait and the peer sent nothing for that long.
     */
    boolean dead(final long now, final boolean sendBlocked, final long written)
    {
        sample(now, written);
        if (received != receivedAtTick)
        {
            // bytes came: the peer is alive
            receivedAtTick = received;
            heardAt = now;
        }
        if (sendBlocked && now - lastProgress > livenessNanos)
        {
            // the peer took nothing for the whole liveness bound: dead, or its link is
            return true;
        }
        // RDMA Reads wait and the peer sent nothing for the whole bound: a live responder
        // streams its Response at once (its kernel still answers keepalive probes, so this
        // catches a frozen or hung peer)
        return readsOutstanding > 0 && now - lastInbound > livenessNanos;
    }

    private void sample(final long now, final long written)
    {
        final int last = (samples - 1) % SAMPLES;
        if (samples == 0 || written != sampleWritten[last] && now - sampleAt[last] >= livenessNanos / 8)
        {
            sampleAt[samples % SAMPLES] = now;
            sampleWritten[samples % SAMPLES] = written;
            samples++;
        }
    }

    /**
     * By when the byte at stream position {@code position} had surely been handed to the kernel:
     * the earliest sample that covers it; {@code now} if none does (it was written since the last
     * sample, a moment ago as far as this watch can tell).
     */
    private long sentBy(final long position, final long now)
    {
        long at = now;
        for (int i = Math.max(0, samples - SAMPLES); i < samples; i++)
        {
            if (sampleWritten[i % SAMPLES] > position)
            {
                at = Math.min(at, sampleAt[i % SAMPLES]);
            }
        }
        return at;
    }

    /**
     * Whether to ask the kernel about our bytes in flight: the peer was silent for half the
     * bound and we sent since the last look ({@code written}: bytes handed to the kernel so far).
     */
    boolean wantsLook(final long now, final long written)
    {
        return kernelKeys.length > 0 && now - heardAt > livenessNanos / 2
            && (written != writtenAtLook || queuedAtLook != 0);
    }

    String[] kernelKeys()
    {
        return kernelKeys;
    }

    /**
     * What the kernel holds of ours unacknowledged ({@code queued}, -1 if the connection was not
     * found), with {@code written} bytes handed to it so far. Bytes acknowledged since the last
     * look mean the peer was alive at the last look (when exactly is not known). The peer silent
     * for the whole liveness bound, and the oldest of our bytes still unacknowledged handed to the
     * kernel more than the bound ago, means it is dead: returns true. This finds a peer that
     * vanished while our last bytes were in flight, which TCP keepalive cannot (it probes only an
     * idle connection) and TCP itself notices only after many minutes of retransmissions. The
     * age of those bytes counts, not only the silence: a connection idle for longer than the
     * bound (both sides silent, nothing in flight) that sends again must not be taken for dead
     * because the peer's delayed acknowledgement is not in yet at the next look.
     */
    boolean kernelQueue(final long queued, final long now, final long written)
    {
        if (queued < 0)
        {
            return false;
        }
        if (queued == 0)
        {
            // nothing in flight: an idle connection, which keepalive watches
            heardAt = now;
        }
        else if (queuedAtLook >= 0 && written - writtenAtLook > queued - queuedAtLook)
        {
            heardAt = Math.max(heardAt, lookedAt);
        }
        else if (now - heardAt > livenessNanos && now - sentBy(written - queued, now) > livenessNanos)
        {
            return true;
        }
        lookedAt = now;
        writtenAtLook = written;
        queuedAtLook = queued;
        return false;
    }
}

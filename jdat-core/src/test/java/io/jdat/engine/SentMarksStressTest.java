package io.jdat.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A channel's thread reports messages sent without waiting for the endpoint's lock
 * ({@link EpLock#markLeft}, as {@link Connection#onSent} does), and no report is lost or
 * completes out of order. A poster holds the lock to put requests into a ring, hand them to a
 * "channel" thread and retire the done ones from the head ({@link RequestQueue#done}, which takes
 * in a report); the channel thread reports them, a few at a time in reverse order (as shm may
 * report a Send written ahead of a Write posted before it), each a mark and a {@code markLeft};
 * a third thread takes and lets go of the lock all the while (an engine thread placing a
 * receive, which retires nothing). The poster posts in rounds of one to eight and, after each
 * round, waits without the lock until all it posted completed: every report must be absorbed by
 * the channel thread itself or by a holder letting go, else a round never ends. Completions must
 * come in post order, each once.
 */
class SentMarksStressTest
{
    private static final int TOTAL = 200_000;
    private static final long ROUND_NANOS = TimeUnit.SECONDS.toNanos(5);
    private static final int RING = 64;

    private final WorkRequest[] ring = new WorkRequest[RING];
    /** Guarded by the lock: the oldest request not completed, the next free slot. */
    private long head;
    private long tail;
    /** How many completed, in order (written under the lock, read by the test without it). */
    private volatile long completed;
    private final AtomicReference<Throwable> failed = new AtomicReference<>();
    private EpLock lock;

    @ParameterizedTest(name = "singleWriter={0}")
    @ValueSource(booleans = {false, true})
    void everyReportCompletesOnceInPostOrder(final boolean singleWriter) throws Exception
    {
        for (int i = 0; i < RING; i++)
        {
            ring[i] = new WorkRequest(1);
        }
        lock = new EpLock(singleWriter, new EpLock.Marks()
        {
            @Override
            public boolean expected()
            {
                return head != tail;
            }

            @Override
            public Runnable absorb()
            {
                retire();
                return null;
            }
        });
        final ArrayBlockingQueue<WorkRequest> wire = new ArrayBlockingQueue<>(RING);
        final Thread poster = Thread.ofPlatform().name("poster").start(() -> guard(() -> post(wire, singleWriter)));
        final Thread channel = Thread.ofPlatform().name("channel").daemon().start(() -> guard(() -> report(wire)));
        final Thread engine = Thread.ofPlatform().name("engine").daemon().start(() -> guard(() ->
        {
            // a holder that does not retire (an engine thread placing a receive): only its look
            // after letting go absorbs what was left while it held the lock
            while (poster.isAlive())
            {
                lock.lock();
                try
                {
                    Thread.onSpinWait();
                }
                finally
                {
                    lock.unlock();
                }
                if (ThreadLocalRandom.current().nextInt(4) == 0)
                {
                    Thread.yield();
                }
            }
        }));
        poster.join(TimeUnit.MINUTES.toMillis(2));
        engine.join(TimeUnit.SECONDS.toMillis(10));
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (completed < TOTAL && failed.get() == null && System.nanoTime() < deadline)
        {
            Thread.sleep(1);
        }
        channel.interrupt();
        assertNull(failed.get(), () -> "failed: " + failed.get());
        assertEquals(TOTAL, completed, "every request reported sent completes once the lock is let go");
    }

    /**
     * Rounds of a few posts each; after each round the poster waits, without the lock, until
     * every request it posted has completed: a report left with nobody to absorb it stops this.
     */
    private void post(final ArrayBlockingQueue<WorkRequest> wire, final boolean singleWriter)
    {
        long posted = 0;
        while (posted < TOTAL)
        {
            final int burst = ThreadLocalRandom.current().nextInt(1, 9);
            for (int b = 0; b < burst && posted < TOTAL; b++)
            {
                if (singleWriter)
                {
                    lock.lockAsConsumer();
                    lock.donePlacing();
                }
                else
                {
                    lock.lock();
                }
                try
                {
                    retire();
                    final WorkRequest wr = ring[(int) (tail % RING)];
                    wr.op = WorkRequest.SEND;
                    wr.cookie = tail;
                    wr.state = WorkRequest.STARTED;
                    tail++;
                    posted++;
                    // never blocks: at most 8 requests are outstanding
                    wire.add(wr);
                }
                finally
                {
                    lock.unlock();
                }
            }
            final long deadline = System.nanoTime() + ROUND_NANOS;
            while (completed < posted)
            {
                if (System.nanoTime() > deadline)
                {
                    throw new AssertionError("after " + posted + " posts, " + completed
                        + " completed: a report was left with nobody to absorb it");
                }
                Thread.yield();
            }
        }
    }

    /** The channel's thread: reports what it was handed, a few at a time, last first. */
    private void report(final ArrayBlockingQueue<WorkRequest> wire) throws InterruptedException
    {
        final WorkRequest[] batch = new WorkRequest[4];
        while (!Thread.currentThread().isInterrupted())
        {
            final WorkRequest first = wire.poll(100, TimeUnit.MILLISECONDS);
            if (first == null)
            {
                continue;
            }
            batch[0] = first;
            int n = 1;
            final int want = ThreadLocalRandom.current().nextInt(1, batch.length + 1);
            WorkRequest next;
            while (n < want && (next = wire.poll()) != null)
            {
                batch[n++] = next;
            }
            for (int i = n - 1; i >= 0; i--)
            {
                batch[i].markReported();
                lock.markLeft();
            }
        }
    }

    /** Completes the done requests at the head, in order. Lock held. */
    private void retire()
    {
        while (head < tail)
        {
            final WorkRequest wr = ring[(int) (head % RING)];
            if (!RequestQueue.done(wr))
            {
                return;
            }
            if (wr.cookie != head || wr.status != io.jdat.DtoStatus.SUCCESS)
            {
                throw new AssertionError("completion " + wr.cookie + " (" + wr.status + ") where " + head
                    + " was due");
            }
            wr.reset();
            wr.state = WorkRequest.QUEUED;
            wr.cookie = -1;
            head++;
            completed = head;
        }
    }

    private void guard(final ThrowingRunnable r)
    {
        try
        {
            r.run();
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
        }
        catch (final Throwable t)
        {
            failed.compareAndSet(null, t);
        }
    }

    @FunctionalInterface
    private interface ThrowingRunnable
    {
        void run() throws Exception;
    }
}

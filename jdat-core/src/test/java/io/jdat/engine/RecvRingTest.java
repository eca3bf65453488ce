package io.jdat.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The receive ring's rules, one step at a time: a claim still being written holds back the
 * placer and a flush (a post that returned behind it must not be missed), a full ring refuses a
 * claim, a closed ring sends posters to the endpoint's lock, and a claim given back leaves no
 * receive behind.
 */
class RecvRingTest
{
    /** How long a look that must wait is given to (wrongly) return. */
    private static final long WAIT_MS = 200;

    @Test
    void thePlacerWaitsForAClaimAheadOfAPublishedReceive() throws Exception
    {
        final RecvRing r = new RecvRing(4, 1);
        final long first = r.claim();
        final long second = r.claim();
        assertEquals(0, first);
        assertEquals(1, second);
        // the second post returned; the first is still being written
        r.publish(second);
        final CompletableFuture<RecvBuffer> head = CompletableFuture.supplyAsync(r::peek);
        Thread.sleep(WAIT_MS);
        assertFalse(head.isDone(), "the placer looked past a claim in flight: " + head.getNow(null));
        r.publish(first);
        assertSame(r.slot(first), head.get(5, TimeUnit.SECONDS));
    }

    @Test
    void aFlushWaitsForEveryClaimInFlightAndThenSendsPostersToTheLock() throws Exception
    {
        final RecvRing r = new RecvRing(4, 1);
        r.publish(r.claim());
        final long inFlight = r.claim();
        final CompletableFuture<Long> closed = CompletableFuture.supplyAsync(r::close);
        Thread.sleep(WAIT_MS);
        assertFalse(closed.isDone(), "the flush did not wait for a claim in flight");
        r.publish(inFlight);
        assertEquals(2, closed.get(5, TimeUnit.SECONDS));
        assertEquals(RecvRing.CLOSED, r.claim());
        assertEquals(2, r.claimLocked());
        r.reopen();
        assertEquals(3, r.claim());
    }

    /**
     * Each slot's sequence and cookie lie a whole cache line or more after the last slot's, all at
     * the same stride: a repost's stores never touch a line that holds a neighbour's fields,
     * wherever the array lies. Slots posted all at once hand back their own cookies, in order.
     */
    @Test
    void eachSlotsFieldsLieALineApartFromItsNeighbours()
    {
        final int slots = 8;
        final RecvRing r = new RecvRing(slots, 1);
        final int stride = r.slot(1).fieldsAt() - r.slot(0).fieldsAt();
        for (int i = 1; i < slots; i++)
        {
            final int gap = (r.slot(i).fieldsAt() - r.slot(i - 1).fieldsAt() - RecvBuffer.FIELDS) * Long.BYTES;
            assertTrue(gap >= 64, "slot " + i + "'s fields lie " + gap + " bytes after the last slot's");
            assertEquals(stride, r.slot(i).fieldsAt() - r.slot(i - 1).fieldsAt(), "slot " + i + "'s stride");
        }
        for (int lap = 0; lap < 3; lap++)
        {
            final long[] at = new long[slots];
            for (int i = 0; i < slots; i++)
            {
                at[i] = r.claim();
            }
            // every cookie written before any receive is published
            for (int i = slots - 1; i >= 0; i--)
            {
                r.slot(at[i]).setCookieAndFlags(100L * lap + i, 0);
            }
            for (int i = 0; i < slots; i++)
            {
                r.publish(at[i]);
            }
            for (int i = 0; i < slots; i++)
            {
                assertEquals(100L * lap + i, r.peek().cookie(), "receive " + i + " of lap " + lap);
                r.advance();
            }
            assertNull(r.peek());
        }
    }

    @Test
    void aFullRingRefusesAClaimUntilThePlacerTakesOne()
    {
        final RecvRing r = new RecvRing(3, 1);
        for (int i = 0; i < 3; i++)
        {
            r.publish(r.claim());
        }
        assertEquals(RecvRing.FULL, r.claim());
        assertSame(r.slot(0), r.peek());
        r.advance();
        assertEquals(3, r.claim());
    }

    @Test
    void aResizeRefusesReceivesThatDoNotFitAndKeepsTheOrderOfThoseThatDo()
    {
        final RecvRing r = new RecvRing(4, 1);
        for (int i = 0; i < 3; i++)
        {
            final long p = r.claim();
            r.slot(p).cookie(10 + i);
            r.publish(p);
        }
        r.close();
        // three receives posted (one beside dat_ep_modify's own check) do not fit two slots
        assertNull(r.moveTo(2, 1));
        final RecvRing next = r.moveTo(3, 1);
        assertEquals(3, next.posted());
        for (int i = 0; i < 3; i++)
        {
            assertEquals(10 + i, next.peek().cookie());
            next.advance();
        }
    }

    @Test
    void aClaimGivenBackLeavesNoReceive()
    {
        final RecvRing r = new RecvRing(4, 1);
        // the last claim: undone
        r.abandon(r.claim());
        assertEquals(0, r.posted());
        assertNull(r.peek());
        // not the last: a hole the placer steps over
        final long hole = r.claim();
        final long next = r.claim();
        r.abandon(hole);
        r.publish(next);
        assertSame(r.slot(next), r.peek());
        assertTrue(r.head() == next, "the head stepped over the hole");
    }

    @Test
    void aSingleWriterRingClaimsByAStoreAndAThreadsafeOneAtomically()
    {
        final RecvRing single = new RecvRing(4, 1, true);
        // a reservation moves nothing: a second one, before the commit, names the same position
        assertEquals(0, single.reserve());
        assertEquals(0, single.reserve());
        assertTrue(single.commit(0));
        single.publish(0);
        assertEquals(1, single.reserve());
        assertSame(single.slot(0), single.peek());
        // a threadsafe ring's claim is the atomic move itself
        final RecvRing shared = new RecvRing(4, 1);
        assertFalse(shared.singleWriter);
        assertEquals(0, shared.claim());
        assertEquals(1, shared.claim());
    }

    @Test
    void aSingleWriterPosterSeesACloseThatDidNotTakeItsReceive()
    {
        final RecvRing r = new RecvRing(4, 1, true);
        final long p = r.reserve();
        // the close comes between the reservation and the commit: it sees no claim
        assertEquals(0, r.close());
        assertFalse(r.commit(p), "the poster missed the close");
        r.publish(p);
        assertEquals(0, r.closedAt());
        r.retract(p);
        assertEquals(0, r.posted());
        assertNull(r.peek());
        assertEquals(RecvRing.CLOSED, r.reserve());
        r.open();
        assertEquals(0, r.reserve());
    }

    @Test
    void aCloseWaitsForASingleWriterCommitToBePublished() throws Exception
    {
        final RecvRing r = new RecvRing(4, 1, true);
        final long p = r.reserve();
        assertTrue(r.commit(p));
        final CompletableFuture<Long> closed = CompletableFuture.supplyAsync(r::close);
        Thread.sleep(WAIT_MS);
        assertFalse(closed.isDone(), "the close did not wait for a committed receive");
        r.publish(p);
        assertEquals(1, closed.get(5, TimeUnit.SECONDS));
        assertEquals(1, r.closedAt());
        assertEquals(RecvRing.CLOSED, r.reserve());
    }

    @Test
    void aSingleWriterRingResizesIntoASingleWriterRing()
    {
        final RecvRing r = new RecvRing(4, 1, true);
        for (int i = 0; i < 2; i++)
        {
            final long p = r.reserve();
            r.slot(p).cookie(20 + i);
            assertTrue(r.commit(p));
            r.publish(p);
        }
        r.close();
        final RecvRing next = r.moveTo(8, 1);
        assertTrue(next.singleWriter);
        assertEquals(RecvRing.CLOSED, next.reserve());
        next.open();
        assertEquals(2, next.reserve());
        assertEquals(20, next.peek().cookie());
    }

    @Test
    void aRegrownRingKeepsThePositionsAndDropsTheHoles()
    {
        final RecvRing r = new RecvRing(4, 1);
        r.publish(r.claim());
        r.advance();
        final long hole = r.claim();
        final long kept = r.claim();
        r.slot(kept).cookie(42);
        assertFalse(r.abandon(hole), "a claim behind the last one was undone");
        r.publish(kept);
        assertEquals(3, r.claimBounded(0, 8));
        assertTrue(r.abandon(3), "the last claim was not undone");
        r.close();
        final RecvRing next = r.regrow(8);
        assertEquals(1, next.holesDropped);
        assertEquals(1, next.head());
        assertEquals(2, next.tail());
        assertEquals(42, next.peek().cookie());
        assertEquals(2, next.claimBounded(0, 8));
        // the bound counts positions at or above what was released
        assertEquals(RecvRing.FULL, next.claimBounded(1, 2));
    }

    /**
     * A flush or resize closes the ring only after direct mode ended. Closed in the mode (whose
     * completed slots never read as published, so waiting for them would last for good), the ring
     * refuses at once.
     */
    @Test
    void closingInDirectModeIsRefusedNotAWaitForever()
    {
        final RecvRing r = RecvRing.direct(4, 1, false);
        r.publish(r.claim());
        r.mode = RecvRing.DIRECT;
        assertTimeoutPreemptively(java.time.Duration.ofSeconds(10),
            () -> assertThrows(IllegalStateException.class, r::close));
        r.mode = RecvRing.NORMAL;
        assertEquals(1, r.close(), "the one receive posted is all there is");
    }

    /**
     * A ring built for direct mode packs each slot's sequence and length into 16 bytes, four slots
     * to a line, and keeps the cookies apart: every completion, placed while its neighbours wait
     * completed or posted beside it, reads back with its own cookie and its own length, lap after
     * lap around the slots.
     */
    @Test
    void directSlotsPackFourToALineEachWithItsOwnCookieAndLength()
    {
        final int capacity = 8;
        final RecvRing r = RecvRing.direct(capacity, 1, false);
        for (int i = 1; i < 2 * capacity; i++)
        {
            assertEquals(RecvBuffer.PACKED_STRIDE, r.slot(i).fieldsAt() - r.slot(i - 1).fieldsAt(),
                "slot " + i + "'s fields lie 16 bytes after the last slot's");
        }
        final io.jdat.DatEvent e = new io.jdat.DatEvent();
        long expect = 0;
        for (int lap = 0; lap < 5; lap++)
        {
            final long[] at = new long[capacity];
            for (int i = 0; i < capacity; i++)
            {
                at[i] = r.claim();
                r.slot(at[i]).setCookieAndFlags(1000L * lap + i, 0);
                r.publish(at[i]);
            }
            // every one completed before any is taken: each neighbour's fields written beside it
            for (int i = 0; i < capacity; i++)
            {
                assertEquals(at[i], r.placeDirect(r.slot(at[i]), 500 + 10L * lap + i));
            }
            for (int i = 0; i < capacity; i++)
            {
                assertEquals(expect++, r.takeDirect(e, null, null), "receive " + i + " of lap " + lap);
                assertEquals(1000L * lap + i, e.dto.userCookie, "the cookie of receive " + i + " of lap " + lap);
                assertEquals(500 + 10L * lap + i, e.dto.transferredLength,
                    "the length of receive " + i + " of lap " + lap);
            }
            assertEquals(RecvRing.EMPTY, r.takeDirect(e, null, null));
        }
    }
}

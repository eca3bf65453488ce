package io.jdat.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.jdat.DatEvent;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The completion ring's order of publication, one step at a time: a record is published only
 * after every position claimed before it, so a consumer that finds the head unpublished may say
 * empty without reading the producers' {@code tail}, and still never misses a post that returned.
 */
class EventRingTest
{
    /** How long a step that must wait is given to (wrongly) finish. */
    private static final long WAIT_MS = 200;

    private static void post(final EventRing r, final long position, final String pointer)
    {
        r.entry(position).fillSoftware(pointer);
        r.publish(position, true);
    }

    private static Object take(final EventRing r)
    {
        final DatEvent event = new DatEvent();
        return r.take(event, null, 1, false) < 0 ? null : event.software.pointer;
    }

    @Test
    void aLaterPostWaitsUntilTheClaimBeforeItIsPublished() throws Exception
    {
        final EventRing r = new EventRing(4);
        final long first = r.claim();
        final long second = r.claim();
        assertEquals(0, first);
        assertEquals(1, second);
        // the second producer finished its record; the first is still writing its own
        final CompletableFuture<Void> later = CompletableFuture.runAsync(() -> post(r, second, "second"));
        Thread.sleep(WAIT_MS);
        assertFalse(later.isDone(), "a post returned while a position claimed before it was unpublished");
        // neither post has returned: empty is the truth, and the consumer says so without waiting
        assertEquals(null, take(r));
        post(r, first, "first");
        later.get(5, TimeUnit.SECONDS);
        assertEquals("first", take(r));
        assertEquals("second", take(r));
        assertEquals(null, take(r));
    }

    /**
     * A {@code nonthreadsafe} IA's ring: claims do not fence after their store of {@code tail}, so a
     * parking waiter's last look (and an enable's) first waits until no claim is under way, and then
     * sees the one that was.
     */
    @Test
    void aWaitersLastLookWaitsForAClaimUnderWayOnASingleConsumerRing() throws Exception
    {
        final EventRing r = new EventRing(4, false, true);
        // another producer holds the ring, its claim under way
        r.lockOthers();
        final CompletableFuture<Boolean> look = CompletableFuture.supplyAsync(() -> r.ready(1));
        Thread.sleep(WAIT_MS);
        assertFalse(look.isDone(), "the look read tail while a claim was under way");
        r.unlockOthers();
        assertFalse(look.get(5, TimeUnit.SECONDS), "nothing was claimed");
        final long p = r.claimAsConsumer();
        assertEquals(0, p);
        post(r, p, "mine");
        assertTrue(r.ready(1));
        assertEquals("mine", take(r));
    }

    @Test
    void oneProducerNeverWaitsForItselfAcrossLaps()
    {
        // capacity 3 in 4 slots: the first position's predecessor is the last slot, never written
        final EventRing r = new EventRing(3);
        assertTimeoutPreemptively(Duration.ofSeconds(5), () ->
        {
            for (int i = 0; i < 50; i++)
            {
                post(r, r.claim(), "a" + i);
                post(r, r.claim(), "b" + i);
                assertEquals("a" + i, take(r));
                assertEquals("b" + i, take(r));
                assertEquals(null, take(r));
            }
        });
    }

    @Test
    void aRecordsFieldsFollowALineOfPadding()
    {
        // the JVM lays a superclass's fields out before a subclass's: what Entry inherits leads it
        int padding = 0;
        for (Class<?> c = EventRing.Entry.class.getSuperclass(); c != Object.class; c = c.getSuperclass())
        {
            for (final Field f : c.getDeclaredFields())
            {
                if (!Modifier.isStatic(f.getModifiers()))
                {
                    padding += f.getType() == long.class ? 8 : f.getType() == int.class ? 4 : 0;
                }
            }
        }
        assertTrue(padding >= 64, "a record is led by " + padding + " bytes of padding; a neighbour's fields"
            + " could share its first cache line");
    }

    /**
     * Each slot's fields (sequence, cookie) follow the last slot's with no gap, 16 bytes apart, so
     * that four consecutive records share a 64-byte line and a stream of completions moves one line
     * per four events. Every slot, filled with values of its own at once (neighbours on one line
     * written before any is published), hands them back unmixed, the length too.
     */
    @Test
    void fourRecordsFieldsShareALine()
    {
        final int slots = 16;
        final EventRing r = new EventRing(slots);
        assertEquals(0, r.fieldsAt(0), "slot 0's fields");
        for (int i = 1; i < slots; i++)
        {
            final int bytes = (r.fieldsAt(i) - r.fieldsAt(i - 1)) * Long.BYTES;
            assertEquals(16, bytes, "slot " + i + "'s fields lie " + bytes + " bytes after the last slot's");
            assertEquals(EventRing.FIELDS * Long.BYTES, bytes, "slot " + (i - 1) + "'s fields fill its stride");
        }
        for (int lap = 0; lap < 3; lap++)
        {
            final long[] at = new long[slots];
            for (int i = 0; i < slots; i++)
            {
                at[i] = r.claim();
            }
            // every record written before any is published or read
            for (int i = slots - 1; i >= 0; i--)
            {
                r.fillDto(at[i], null, 1000L * lap + i, io.jdat.DtoStatus.SUCCESS, -(1000L * lap + i), null);
            }
            for (int i = 0; i < slots; i++)
            {
                r.publish(at[i], true);
            }
            final DatEvent event = new DatEvent();
            for (int i = 0; i < slots; i++)
            {
                assertTrue(r.take(event, null, 1, false) >= 0, "record " + i + " of lap " + lap + " missing");
                assertEquals(1000L * lap + i, event.dto.userCookie, "record " + i + "'s cookie");
                assertEquals(-(1000L * lap + i), event.dto.transferredLength, "record " + i + "'s length");
            }
            assertEquals(null, take(r));
        }
    }

    /**
     * A single consumer moves the head with a plain release store: it must read the whole record
     * first, or a producer reuses the slot under it. One producer floods a ring of two; the
     * consumer checks that each DTO completion arrives once, in order, not torn (its cookie and
     * length are written together as the same number).
     */
    @Test
    void aSingleConsumerReadsEachRecordBeforeItsSlotIsReused() throws Exception
    {
        final int events = 2_000_000;
        final EventRing r = new EventRing(2, false, true);
        final Thread producer = Thread.ofPlatform().daemon().name("event-ring-producer").start(() ->
        {
            for (long i = 0; i < events; i++)
            {
                long p;
                while ((p = r.claim()) < 0)
                {
                    Thread.onSpinWait();
                }
                r.fillDto(p, null, i, io.jdat.DtoStatus.SUCCESS, i, null);
                r.publish(p, true);
            }
        });
        final DatEvent event = new DatEvent();
        assertTimeoutPreemptively(Duration.ofSeconds(60), () ->
        {
            for (long expected = 0; expected < events; expected++)
            {
                while (r.take(event, null, 1, false) < 0)
                {
                    Thread.onSpinWait();
                }
                if (event.dto.userCookie != expected || event.dto.transferredLength != expected)
                {
                    throw new AssertionError("event " + expected + " arrived as cookie " + event.dto.userCookie
                        + ", length " + event.dto.transferredLength);
                }
            }
        });
        producer.join(5_000);
        assertEquals(null, take(r));
    }

    /**
     * A single-consumer counting ring counts the notifying events the consumer's thread publishes
     * apart from the other producers' (a plain store, one writer), and counts them together: a
     * waiter's threshold and a take that needs a notification see every one, and none once taken.
     */
    @Test
    void aCountingRingCountsTheConsumersNotificationsBesideTheOthers()
    {
        final EventRing r = new EventRing(8, true, true);
        final DatEvent event = new DatEvent();
        long p = r.claimAsConsumer();
        r.entry(p).fillSoftware("consumer-1");
        r.publishAsConsumer(p, true);
        p = r.claim();
        r.entry(p).fillSoftware("other-silent");
        r.publish(p, false);
        p = r.claim();
        r.entry(p).fillSoftware("other-1");
        r.publish(p, true);
        p = r.claimAsConsumer();
        r.entry(p).fillSoftware("consumer-silent");
        r.publishAsConsumer(p, false);
        assertEquals(2, r.notifications(), "two of the four queued events notify");
        assertEquals(0, r.take(event, null, 1, true), "a take that needs a notification finds two");
        assertEquals("consumer-1", event.software.pointer);
        assertEquals(1, r.notifications());
        assertEquals(1, r.take(event, null, 1, true));
        assertEquals(2, r.take(event, null, 1, true));
        assertEquals("other-1", event.software.pointer);
        assertEquals(0, r.notifications(), "the last one is silent");
        assertTrue(r.take(event, null, 1, true) < 0, "no notification left for a take that needs one");
        assertEquals(3, r.take(event, null, 1, false), "the silent one is still queued");
        assertEquals(0, r.notifications());
    }
}

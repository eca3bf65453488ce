package io.jdat.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.CloseFlags;
import io.jdat.Dat;
import io.jdat.DatCount;
import io.jdat.DatEvent;
import io.jdat.DatOut;
import io.jdat.DatStatus;
import io.jdat.EpAttr;
import io.jdat.EventDispatcher;
import io.jdat.EventNumber;
import io.jdat.EvdFlags;
import io.jdat.InterfaceAdapter;
import io.jdat.SrqAttr;
import io.jdat.registry.Registry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * DAT's {@code nonthreadsafe} attribute of a {@code dat.conf} entry reaches the queues of an IA
 * opened from it as {@link IaImpl#singleWriter}; a {@code threadsafe} entry's IA keeps the
 * atomic claims.
 */
class SingleWriterIaTest
{
    private Path file;

    @BeforeEach
    void conf() throws IOException
    {
        file = Files.createTempFile("jdat-", ".conf");
        Files.writeString(file, "sw-safe u1.2 threadsafe default loopback jdat.0.1 \"\" \"\"\n"
            + "sw-single u1.2 nonthreadsafe default loopback jdat.0.1 \"\" \"\"\n");
        System.setProperty(Registry.CONF_PROPERTY, file.toString());
        Registry.reload();
    }

    @AfterEach
    void restore() throws IOException
    {
        System.clearProperty(Registry.CONF_PROPERTY);
        Registry.reload();
        Files.deleteIfExists(file);
    }

    @Test
    void aNonthreadsafeEntryOpensASingleWriterIa()
    {
        final InterfaceAdapter ia = Dat.iaOpenv("sw-single", 8, null, Dat.VERSION_MAJOR, Dat.VERSION_MINOR, false);
        try
        {
            assertTrue(((IaImpl) ia).singleWriter);
            assertTrue(receiveQueueOf(ia).singleWriter(), "the receive queue claims atomically");
            assertTrue(epOf(ia).requests.singleWriter, "the send queue takes the endpoint lock atomically");
            assertTrue(srqOf(ia).singleWriter(), "the SRQ claims atomically");
        }
        finally
        {
            ia.close(CloseFlags.ABRUPT_FLAG);
        }
    }

    /**
     * The EVD of a single-consumer IA keeps the return codes apart: an empty queue is
     * DAT_QUEUE_EMPTY to dat_evd_dequeue and DAT_TIMEOUT_EXPIRED (nmore 0) to a wait that does not
     * wait; a full one is DAT_QUEUE_FULL to dat_evd_post_se, which queues nothing and reports no
     * overflow; the events come out in order.
     */
    @Test
    void aSingleConsumerEvdTellsEmptyFromFull()
    {
        final DatOut<EventDispatcher> async = new DatOut<>();
        final InterfaceAdapter ia = Dat.iaOpenv("sw-single", 8, async, Dat.VERSION_MAJOR, Dat.VERSION_MINOR, false);
        try
        {
            final EventDispatcher evd = ia.evdCreate(2, null, EvdFlags.SOFTWARE_FLAG);
            final DatEvent e = new DatEvent();
            final DatCount nmore = new DatCount();
            assertEquals(DatStatus.QUEUE_EMPTY, evd.dequeue(e));
            nmore.value = -1;
            assertEquals(DatStatus.TIMEOUT_EXPIRED, evd.wait(0, 1, e, nmore));
            assertEquals(0, nmore.value);
            for (int i = 0; i < 3; i++)
            {
                final DatEvent se = new DatEvent();
                se.eventNumber = EventNumber.SOFTWARE_EVENT.value();
                se.software.pointer = i;
                assertEquals(i < 2 ? DatStatus.SUCCESS : DatStatus.QUEUE_FULL, evd.postSe(se), "event " + i);
            }
            assertEquals(DatStatus.SUCCESS, evd.wait(0, 1, e, nmore));
            assertEquals(0, e.software.pointer);
            assertEquals(1, nmore.value);
            assertEquals(DatStatus.SUCCESS, evd.dequeue(e));
            assertEquals(1, e.software.pointer);
            assertEquals(DatStatus.QUEUE_EMPTY, evd.dequeue(e));
            assertEquals(DatStatus.QUEUE_EMPTY, async.value.dequeue(e), "a full post_se reported an overflow");
        }
        finally
        {
            ia.close(CloseFlags.ABRUPT_FLAG);
        }
    }

    /**
     * A wait that must block on a single-consumer IA's EVD registers without the EVD's lock (a
     * store of its thread, then a look at the words the lock guarded): with the lock held by
     * another thread the whole time, it still parks as the EVD's waiter, is woken by a post, and
     * leaves with the event.
     */
    @Test
    void aSingleConsumersWaitBlocksAndIsWokenWithoutTheEvdLock() throws Exception
    {
        final InterfaceAdapter ia = Dat.iaOpenv("sw-single", 8, null, Dat.VERSION_MAJOR, Dat.VERSION_MINOR, false);
        try
        {
            final EvdImpl evd = (EvdImpl) ia.evdCreate(4, null, EvdFlags.SOFTWARE_FLAG);
            final DatEvent e = new DatEvent();
            final DatStatus[] got = new DatStatus[1];
            evd.lock.lock();
            try
            {
                final Thread waiter = Thread.ofPlatform().start(() -> got[0] = evd.wait(10_000_000, 1, e, null));
                final long deadline = System.nanoTime() + 5_000_000_000L;
                while (LockSupport.getBlocker(waiter) != evd)
                {
                    assertTrue(System.nanoTime() < deadline, "the wait did not park as the EVD's waiter: "
                        + waiter.getState() + " on " + LockSupport.getBlocker(waiter));
                    Thread.sleep(1);
                }
                final DatEvent se = new DatEvent();
                se.eventNumber = EventNumber.SOFTWARE_EVENT.value();
                se.software.pointer = 7;
                assertEquals(DatStatus.SUCCESS, evd.postSe(se));
                waiter.join(5_000);
                assertFalse(waiter.isAlive(), "the post did not wake the waiter");
            }
            finally
            {
                evd.lock.unlock();
            }
            assertEquals(DatStatus.SUCCESS, got[0]);
            assertEquals(7, e.software.pointer);
        }
        finally
        {
            ia.close(CloseFlags.ABRUPT_FLAG);
        }
    }

    @Test
    void aThreadsafeEntryOpensAnIaWithAtomicClaims()
    {
        final InterfaceAdapter ia = Dat.iaOpen("sw-safe", 8, null);
        try
        {
            assertFalse(((IaImpl) ia).singleWriter);
            assertFalse(receiveQueueOf(ia).singleWriter(), "the receive queue claims without an atomic");
            assertFalse(epOf(ia).requests.singleWriter, "the send queue takes the endpoint lock without an atomic");
            assertFalse(srqOf(ia).singleWriter(), "the SRQ claims without an atomic");
        }
        finally
        {
            ia.close(CloseFlags.ABRUPT_FLAG);
        }
    }

    private static RecvQueue receiveQueueOf(final InterfaceAdapter ia)
    {
        return epOf(ia).recvs;
    }

    private static EpImpl epOf(final InterfaceAdapter ia)
    {
        final var pz = ia.pzCreate();
        final var evd = ia.evdCreate(4, null, EvdFlags.DTO_FLAG);
        return (EpImpl) ia.epCreate(pz, evd, evd, null, new EpAttr());
    }

    private static SrqImpl srqOf(final InterfaceAdapter ia)
    {
        final SrqAttr attr = new SrqAttr();
        attr.maxRecvDtos = 4;
        attr.maxRecvIov = 1;
        return (SrqImpl) ia.srqCreate(ia.pzCreate(), attr);
    }
}

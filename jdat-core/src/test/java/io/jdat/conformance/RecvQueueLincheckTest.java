package io.jdat.conformance;

import io.jdat.CloseFlags;
import io.jdat.Dat;
import io.jdat.DatOut;
import io.jdat.EventDispatcher;
import io.jdat.InterfaceAdapter;
import io.jdat.Lmr;
import io.jdat.MemPriv;
import io.jdat.MemType;
import io.jdat.ProtectionZone;
import io.jdat.RegionDescription;
import io.jdat.engine.RecvQueueHarness;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.jetbrains.lincheck.datastructures.StressOptions;
import org.jetbrains.lincheck.datastructures.Validate;
import org.jetbrains.kotlinx.lincheck.execution.ExecutionScenario;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Linearizability of one endpoint's receive queue (Lincheck): receives posted from several
 * threads ({@code dat_ep_post_recv}), Sends placed into them by the connection (one at a time, as
 * a channel delivers in order, but on any thread), the connection lost while posts are in flight,
 * and the receive EVD dequeued. Each must look atomic and agree with {@link Model}, written from
 * the spec: a post onto a full queue is {@code DAT_INSUFFICIENT_RESOURCES}; a Send takes the
 * oldest posted receive and completes it, so completions come out in posting order; a Send that
 * finds no receive breaks the connection; the end of the connection completes every posted
 * receive {@code DAT_DTO_ERR_FLUSHED}, in order, and a receive posted after it completes flushed
 * at once. No receive is lost or completed twice: after each scenario every receive that was posted
 * is still posted or completed exactly once, and none is left on a DISCONNECTED endpoint.
 *
 * <p>The connection is the engine's own, driven as a channel would drive it, with no channel
 * behind it ({@link RecvQueueHarness}).
 */
@Tag("lincheck")
@Timeout(value = 5, unit = TimeUnit.MINUTES)
public class RecvQueueLincheckTest
{
    /** max_recv_dtos of each endpoint under test. */
    static final int QUEUE = 2;
    private static final boolean LONG = Boolean.getBoolean("jdat.lincheck.long");
    private static final long INVOCATION_TIMEOUT_MS = 100_000;
    private static final InterfaceAdapter IA;
    private static final ProtectionZone PZ;
    private static final Arena ARENA = Arena.ofShared();
    private static final Lmr LMR;

    static
    {
        final DatOut<EventDispatcher> async = new DatOut<>();
        IA = Dat.iaOpen(Fixture.loopbackWith(Fixture.RING_EVD), 64, async);
        PZ = IA.pzCreate();
        final MemorySegment m = ARENA.allocate(64, 64);
        LMR = IA.lmrCreate(MemType.VIRTUAL, RegionDescription.forVa(m), m.byteSize(), PZ, MemPriv.ALL_FLAG);
    }

    private final RecvQueueHarness q = new RecvQueueHarness(IA, PZ, LMR, QUEUE);

    @AfterAll
    static void closeIa()
    {
        IA.close(CloseFlags.ABRUPT_FLAG);
        ARENA.close();
    }

    @Operation
    public String post(@Param(gen = IntGen.class, conf = "1:9") final int cookie)
    {
        return q.post(cookie);
    }

    @Operation
    public boolean send()
    {
        return q.send();
    }

    @Operation
    public void lose()
    {
        q.lose();
    }

    @Operation
    public String dequeue()
    {
        return q.dequeue();
    }

    /**
     * After each scenario: no receive lost or completed twice, whatever the scenario dequeued;
     * then frees what it made, so the IA does not collect them.
     */
    @Validate
    public void checkAndFree()
    {
        q.checkAndFree();
    }

    @Test
    void modelChecking()
    {
        new ModelCheckingOptions()
            .invocationTimeout$lincheck(INVOCATION_TIMEOUT_MS)
            .iterations(LONG ? 100 : 8)
            .invocationsPerIteration(LONG ? 1_000 : 100)
            .threads(3)
            .actorsPerThread(2)
            .actorsBefore(1)
            .actorsAfter(2)
            .sequentialSpecification(Model.class)
            .check(RecvQueueLincheckTest.class);
    }

    /**
     * A Send that finds no receive while receives are being posted: it breaks the connection, and
     * must do so at one instant. A Send that looked before the posts and broke the connection only
     * after they returned SUCCESS, and after a dequeue found nothing, would flush receives the
     * model says no Send had missed: the posts came first, so a Send after them takes one.
     */
    @Test
    void aSendFindingNoReceiveRacingPosts()
    {
        LincheckActors.checkScenarios(RecvQueueLincheckTest.class, Model.class,
            sendFindingNoReceiveRacingPosts(RecvQueueLincheckTest.class));
    }

    /**
     * The scenario of {@link #aSendFindingNoReceiveRacingPosts} for {@code test}, which has this
     * test's operations: two posts on one thread, two Sends on a second, a dequeue and the
     * connection's loss on a third, then dequeues.
     */
    static ExecutionScenario sendFindingNoReceiveRacingPosts(final Class<?> test)
    {
        return new ExecutionScenario(
            List.of(),
            List.of(List.of(LincheckActors.actor(test, "post", 1), LincheckActors.actor(test, "post", 2)),
                List.of(LincheckActors.actor(test, "send"), LincheckActors.actor(test, "send")),
                List.of(LincheckActors.actor(test, "dequeue"), LincheckActors.actor(test, "lose"))),
            List.of(LincheckActors.actor(test, "dequeue"), LincheckActors.actor(test, "dequeue"),
                LincheckActors.actor(test, "dequeue")),
            LincheckActors.actor(test, "checkAndFree"));
    }

    @Test
    void stress()
    {
        new StressOptions()
            .invocationTimeout$lincheck(INVOCATION_TIMEOUT_MS)
            .iterations(LONG ? 100 : 10)
            .invocationsPerIteration(LONG ? 2_000 : 300)
            .threads(3)
            .actorsPerThread(3)
            .sequentialSpecification(Model.class)
            .check(RecvQueueLincheckTest.class);
    }

    /** The sequential specification: posted receives, the completions queued, connected or not. */
    public static class Model
    {
        private final ArrayDeque<Integer> posted = new ArrayDeque<>();
        private final ArrayDeque<String> completions = new ArrayDeque<>();
        private boolean connected = true;

        public String post(final int cookie)
        {
            if (!connected)
            {
                completions.addLast(cookie + " ERR_FLUSHED");
                return "SUCCESS";
            }
            if (posted.size() == QUEUE)
            {
                return "INSUFFICIENT_RESOURCES";
            }
            posted.addLast(cookie);
            return "SUCCESS";
        }

        public boolean send()
        {
            if (!connected)
            {
                return false;
            }
            if (posted.isEmpty())
            {
                lose();
                return false;
            }
            completions.addLast(posted.removeFirst() + " SUCCESS");
            return true;
        }

        public void lose()
        {
            if (connected)
            {
                connected = false;
                while (!posted.isEmpty())
                {
                    completions.addLast(posted.removeFirst() + " ERR_FLUSHED");
                }
            }
        }

        public String dequeue()
        {
            return completions.isEmpty() ? "QUEUE_EMPTY" : completions.removeFirst();
        }
    }
}

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
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.jetbrains.lincheck.datastructures.StressOptions;
import org.jetbrains.lincheck.datastructures.Validate;
import org.jetbrains.kotlinx.lincheck.Actor;
import org.jetbrains.kotlinx.lincheck.execution.ExecutionScenario;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link RecvQueueDirectLincheckTest} on an IA of a {@code nonthreadsafe} entry: the consumer's
 * calls on each handle come from one thread at a time, as that entry promises ({@code dat_ep_post_recv}
 * on one, {@code dat_evd_dequeue} on another, the two at once), and take the single-writer paths,
 * with no read-modify-write: the post a store
 * and a look at the close's word, the take a store and a look at the mode. The engine's threads
 * race them as on any IA: Sends placed by the connection, the connection lost (a flush, which ends
 * direct mode), and direct mode ended by an engine thread ({@code end}: as a placer that would
 * overflow the EVD ends it), which moves the completed slots into the EVD's ring while the one
 * consumer takes from them. Whatever the interleaving, {@link RecvQueueLincheckTest.Model} holds,
 * and no receive is lost or completed twice.
 */
@Tag("lincheck")
@Timeout(value = 5, unit = TimeUnit.MINUTES)
public class RecvQueueSingleDirectLincheckTest
{
    static final int QUEUE = RecvQueueLincheckTest.QUEUE;
    private static final boolean LONG = Boolean.getBoolean("jdat.lincheck.long");
    private static final long INVOCATION_TIMEOUT_MS = 100_000;
    private static final InterfaceAdapter IA;
    private static final ProtectionZone PZ;
    private static final Arena ARENA = Arena.ofShared();
    private static final Lmr LMR;

    static
    {
        final DatOut<EventDispatcher> async = new DatOut<>();
        IA = Dat.iaOpenv(Fixture.loopbackWith("evd_direct", false), 64, async, Dat.VERSION_MAJOR,
            Dat.VERSION_MINOR, false);
        PZ = IA.pzCreate();
        final MemorySegment m = ARENA.allocate(64, 64);
        LMR = IA.lmrCreate(MemType.VIRTUAL, RegionDescription.forVa(m), m.byteSize(), PZ, MemPriv.ALL_FLAG);
    }

    private final RecvQueueHarness q = new RecvQueueHarness(IA, PZ, LMR, QUEUE, 8);

    public RecvQueueSingleDirectLincheckTest()
    {
        if (!q.direct())
        {
            throw new IllegalStateException("the receive EVD did not take direct mode");
        }
    }

    @AfterAll
    static void closeIa()
    {
        IA.close(CloseFlags.ABRUPT_FLAG);
        ARENA.close();
    }

    @Operation(nonParallelGroup = "poster")
    public String post(@Param(gen = IntGen.class, conf = "1:9") final int cookie)
    {
        return q.post(cookie);
    }

    @Operation(nonParallelGroup = "taker")
    public String dequeue()
    {
        return q.dequeue();
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
    public void end()
    {
        q.end();
    }

    /** After each scenario: no receive lost or completed twice; then frees what it made. */
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
            .iterations(LONG ? 100 : 10)
            .invocationsPerIteration(LONG ? 1_000 : 100)
            .threads(3)
            .actorsPerThread(2)
            .actorsBefore(2)
            .actorsAfter(2)
            .sequentialSpecification(Model.class)
            .check(RecvQueueSingleDirectLincheckTest.class);
    }

    /**
     * The race this entry's take must win, in every interleaving the model checker finds: two
     * completions in the slots, the one consumer taking them while an engine thread ends the mode
     * (and then a Send placed after it). Each completion comes out once, in order, from the slots
     * or from the EVD's ring.
     */
    @Test
    void aTakeRacingTheModesEnd()
    {
        LincheckActors.checkScenarios(RecvQueueSingleDirectLincheckTest.class, Model.class,
            new ExecutionScenario(
                List.of(actor("post", 1), actor("post", 2), actor("post", 3), actor("send"), actor("send")),
                List.of(List.of(actor("dequeue"), actor("dequeue")), List.of(actor("end"), actor("send"))),
                List.of(actor("dequeue"), actor("dequeue")),
                actor("checkAndFree")));
    }

    /**
     * The connection lost (its flush ends direct mode, then closes the ring) while an engine thread
     * ends the mode: the flush must not close the ring between the mover's two stores, where the
     * EVD no longer names the ring but the ring is not yet back in its ordinary mode (a close there
     * threw on the thread that reported the loss, and the receives were never flushed).
     */
    @Test
    void aFlushRacingTheModesEnd()
    {
        LincheckActors.checkScenarios(RecvQueueSingleDirectLincheckTest.class, Model.class,
            new ExecutionScenario(
                List.of(actor("post", 1), actor("post", 2), actor("send")),
                List.of(List.of(actor("lose")), List.of(actor("end"))),
                List.of(actor("dequeue"), actor("dequeue"), actor("dequeue")),
                actor("checkAndFree")));
    }

    /**
     * A Send that finds no receive while receives are being posted (in direct mode, which the
     * Send's break ends first): the connection breaks at one instant, so no post returns SUCCESS
     * on a connection that Send had already lost ({@link RecvQueueLincheckTest}).
     */
    @Test
    void aSendFindingNoReceiveRacingPosts()
    {
        LincheckActors.checkScenarios(RecvQueueSingleDirectLincheckTest.class, Model.class,
            RecvQueueLincheckTest.sendFindingNoReceiveRacingPosts(RecvQueueSingleDirectLincheckTest.class));
    }

    private static Actor actor(final String name, final Object... args)
    {
        return LincheckActors.actor(RecvQueueSingleDirectLincheckTest.class, name, args);
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
            .check(RecvQueueSingleDirectLincheckTest.class);
    }

    /** {@link RecvQueueLincheckTest.Model}, and the mode's end, which changes nothing a consumer can see. */
    public static final class Model extends RecvQueueLincheckTest.Model
    {
        public void end()
        {
            // where the events wait is not the consumer's to see
        }
    }
}

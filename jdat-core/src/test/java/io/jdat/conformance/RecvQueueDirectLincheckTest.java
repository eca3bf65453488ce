package io.jdat.conformance;

import io.jdat.CloseFlags;
import io.jdat.Dat;
import io.jdat.DatOut;
import io.jdat.EventDispatcher;
import io.jdat.InterfaceAdapter;
import io.jdat.Lmr;
import io.jdat.ProviderInfo;
import io.jdat.MemPriv;
import io.jdat.MemType;
import io.jdat.ProtectionZone;
import io.jdat.RegionDescription;
import io.jdat.engine.RecvQueueHarness;
import io.jdat.loopback.LoopbackLibrary;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.jetbrains.kotlinx.lincheck.Actor;
import org.jetbrains.kotlinx.lincheck.execution.ExecutionScenario;
import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.jetbrains.lincheck.datastructures.StressOptions;
import org.jetbrains.lincheck.datastructures.Validate;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link RecvQueueLincheckTest} with the receive EVD in direct mode (the completion in the
 * receive's own slot, {@code dat_evd_dequeue} reading it there), and one more operation that ends
 * the mode while the others run ({@code move}: a resize of the EVD, after which the completed
 * slots are in its ring): whatever the interleaving, the same model holds.
 *
 * <p>Linearizability of one endpoint's receive queue (Lincheck): receives posted from several
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
public class RecvQueueDirectLincheckTest
{
    /** max_recv_dtos of each endpoint under test. */
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
        new LoopbackLibrary().providerInit(ProviderInfo.of("loopback-direct-lincheck", Dat.THREADSAFE), "evd_direct");
        IA = Dat.iaOpen("loopback-direct-lincheck", 64, async);
        PZ = IA.pzCreate();
        final MemorySegment m = ARENA.allocate(64, 64);
        LMR = IA.lmrCreate(MemType.VIRTUAL, RegionDescription.forVa(m), m.byteSize(), PZ, MemPriv.ALL_FLAG);
    }

    private final RecvQueueHarness q = new RecvQueueHarness(IA, PZ, LMR, QUEUE, 8);

    public RecvQueueDirectLincheckTest()
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

    @Operation
    public void move()
    {
        q.move();
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
            .check(RecvQueueDirectLincheckTest.class);
    }

    /**
     * The connection lost (its flush ends direct mode, then closes the ring) while a resize ends
     * the mode: the flush must not close the ring between the mover's two stores (a close there
     * threw on the thread that reported the loss, and the receives were never flushed).
     */
    @Test
    void aFlushRacingAResize()
    {
        LincheckActors.checkScenarios(RecvQueueDirectLincheckTest.class, Model.class,
            new ExecutionScenario(
                List.of(actor("post", 1), actor("post", 2), actor("send")),
                List.of(List.of(actor("lose")), List.of(actor("move"))),
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
        LincheckActors.checkScenarios(RecvQueueDirectLincheckTest.class, Model.class,
            RecvQueueLincheckTest.sendFindingNoReceiveRacingPosts(RecvQueueDirectLincheckTest.class));
    }

    private static Actor actor(final String name, final Object... args)
    {
        return LincheckActors.actor(RecvQueueDirectLincheckTest.class, name, args);
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
            .check(RecvQueueDirectLincheckTest.class);
    }

    /** {@link RecvQueueLincheckTest.Model}, and a move that changes nothing a consumer can see. */
    public static final class Model extends RecvQueueLincheckTest.Model
    {
        public void move()
        {
            // where the events wait is not the consumer's to see
        }
    }
}

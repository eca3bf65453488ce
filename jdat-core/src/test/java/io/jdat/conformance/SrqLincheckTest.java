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
import io.jdat.engine.SrqHarness;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;
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
 * Linearizability of a shared receive queue (Lincheck): buffers posted from several threads
 * without a lock ({@code dat_srq_post_recv}), taken by endpoints' placers on any thread, and
 * {@code dat_srq_resize} moving them into a larger ring meanwhile. Each must look atomic and agree
 * with {@link Model}: a buffer occupies the SRQ from its post until its completion is reaped (none
 * is reaped here), so a post beyond max_recv_dtos outstanding is {@code DAT_INSUFFICIENT_RESOURCES}
 * and a resize below the outstanding count is {@code DAT_INVALID_STATE}; endpoints take buffers in
 * posting order.
 *
 * <p>Left out: posts that fail validation (such a post holds its place in the outstanding count
 * until it gives it back, so a post beside it may find the SRQ full for that long) and
 * {@code dat_srq_query} (its counts are read while posts are in flight: a post counts as
 * outstanding from its reservation, before its buffer can be taken).
 */
@Tag("lincheck")
@Timeout(value = 5, unit = TimeUnit.MINUTES)
public class SrqLincheckTest
{
    /** max_recv_dtos of each SRQ under test. */
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
        IA = Dat.iaOpen("loopback", 64, async);
        PZ = IA.pzCreate();
        final MemorySegment m = ARENA.allocate(64, 64);
        LMR = IA.lmrCreate(MemType.VIRTUAL, RegionDescription.forVa(m), m.byteSize(), PZ, MemPriv.ALL_FLAG);
    }

    private final SrqHarness q = new SrqHarness(IA, PZ, LMR, QUEUE);

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
    public long take()
    {
        return q.take(SrqHarness.buffer());
    }

    @Operation
    public String resize(@Param(gen = IntGen.class, conf = "1:4") final int maxRecvDtos)
    {
        return q.resize(maxRecvDtos);
    }

    /** Frees what the scenario made, so the IA does not collect it. */
    @Validate
    public void free()
    {
        q.free();
    }

    @Test
    void modelChecking()
    {
        new ModelCheckingOptions()
            .invocationTimeout$lincheck(INVOCATION_TIMEOUT_MS)
            .iterations(LONG ? 100 : 10)
            .invocationsPerIteration(LONG ? 1_000 : 200)
            .threads(3)
            .actorsPerThread(2)
            .actorsBefore(1)
            .actorsAfter(2)
            .sequentialSpecification(Model.class)
            .check(SrqLincheckTest.class);
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
            .check(SrqLincheckTest.class);
    }

    /** The sequential specification: the posted buffers in order, the outstanding count, max_recv_dtos. */
    public static final class Model
    {
        private final ArrayDeque<Integer> posted = new ArrayDeque<>();
        private int outstanding;
        private int capacity = QUEUE;

        public String post(final int cookie)
        {
            if (outstanding >= capacity)
            {
                return "INSUFFICIENT_RESOURCES";
            }
            posted.addLast(cookie);
            outstanding++;
            return "SUCCESS";
        }

        public long take()
        {
            return posted.isEmpty() ? -1 : posted.removeFirst();
        }

        public String resize(final int maxRecvDtos)
        {
            if (outstanding > maxRecvDtos)
            {
                return "INVALID_STATE";
            }
            capacity = maxRecvDtos;
            return "SUCCESS";
        }
    }
}

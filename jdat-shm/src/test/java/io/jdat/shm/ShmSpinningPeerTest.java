package io.jdat.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.sun.jdi.Bootstrap;
import com.sun.jdi.Method;
import com.sun.jdi.ReferenceType;
import com.sun.jdi.VirtualMachine;
import com.sun.jdi.connect.Connector;
import com.sun.jdi.connect.LaunchingConnector;
import com.sun.jdi.event.BreakpointEvent;
import com.sun.jdi.event.ClassPrepareEvent;
import com.sun.jdi.event.Event;
import com.sun.jdi.event.EventSet;
import com.sun.jdi.event.VMDeathEvent;
import com.sun.jdi.event.VMDisconnectEvent;
import com.sun.jdi.request.ClassPrepareRequest;
import com.sun.jdi.request.EventRequest;
import java.io.BufferedReader;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A peer that rewrites a word this side compare-and-sets, between this side's load and its
 * compare-and-set, every time: the compare-and-set fails on every try. Such a peer needs to win a
 * race of a few instructions each time, which a peer spinning on the word did not manage on the
 * machines tried; a debugger wins it every time. {@link CasVictim} runs the loop in a JVM this test
 * debugs (JDI), with a breakpoint where {@link Shared} compare-and-sets: at each one the test writes
 * the word through its own mapping of the file. Each loop gives the peer up after a few tries.
 */
class ShmSpinningPeerTest
{
    /** How long the victim may take; the loops without a bound were still trying when it ran out. */
    private static final long WAIT_SECONDS = 20;

    private Path dir;
    private VirtualMachine vm;

    @BeforeEach
    void dir()
    {
        dir = TestFiles.freshDir();
    }

    @AfterEach
    void clean()
    {
        if (vm != null)
        {
            vm.process().destroyForcibly();
        }
        TestFiles.delete(dir);
    }

    /**
     * Runs {@code CasVictim args} under the debugger, calling {@code beforeCas} (with the number of
     * the try) at every entry to {@code Shared.method}; returns its output once it exited.
     */
    private List<String> debug(final String method, final Consumer<Integer> beforeCas, final int[] tries,
        final String... args) throws Exception
    {
        final LaunchingConnector launcher = Bootstrap.virtualMachineManager().defaultConnector();
        final Map<String, Connector.Argument> a = launcher.defaultArguments();
        a.get("options").setValue("-cp " + System.getProperty("java.class.path")
            + " --enable-native-access=ALL-UNNAMED -XX:TieredStopAtLevel=1 -XX:+UseSerialGC");
        a.get("main").setValue(CasVictim.class.getName() + " " + String.join(" ", args));
        vm = launcher.launch(a);
        final List<String> out = new CopyOnWriteArrayList<>();
        final Thread reader = new Thread(() ->
        {
            try (BufferedReader r = vm.process().inputReader(StandardCharsets.UTF_8))
            {
                String line;
                while ((line = r.readLine()) != null)
                {
                    out.add(line);
                }
            }
            catch (final IOException e)
            {
                out.add("(output lost: " + e + ")");
            }
        }, "victim-output");
        reader.setDaemon(true);
        reader.start();
        final ClassPrepareRequest prepare = vm.eventRequestManager().createClassPrepareRequest();
        prepare.addClassFilter(Shared.class.getName());
        prepare.enable();
        final Thread events = new Thread(() ->
        {
            try
            {
                while (true)
                {
                    final EventSet set = vm.eventQueue().remove();
                    for (final Event e : set)
                    {
                        if (e instanceof ClassPrepareEvent p)
                        {
                            breakAt(p.referenceType(), method);
                        }
                        else if (e instanceof BreakpointEvent)
                        {
                            beforeCas.accept(++tries[0]);
                        }
                        else if (e instanceof VMDeathEvent || e instanceof VMDisconnectEvent)
                        {
                            return;
                        }
                    }
                    set.resume();
                }
            }
            catch (final InterruptedException | com.sun.jdi.VMDisconnectedException e)
            {
                // the victim ended
            }
        }, "victim-events");
        events.setDaemon(true);
        events.start();
        vm.resume();
        if (!vm.process().waitFor(WAIT_SECONDS, TimeUnit.SECONDS))
        {
            fail("the victim still loops after " + WAIT_SECONDS + " s and " + tries[0] + " tries: " + out);
        }
        reader.join(5000);
        return out;
    }

    private void breakAt(final ReferenceType shared, final String method)
    {
        for (final Method m : shared.methodsByName(method))
        {
            final var bp = vm.eventRequestManager().createBreakpointRequest(m.location());
            bp.setSuspendPolicy(EventRequest.SUSPEND_EVENT_THREAD);
            bp.enable();
        }
    }

    private static MemorySegment map(final Path file, final long size, final Arena arena) throws IOException
    {
        try (FileChannel fc = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE))
        {
            return fc.map(FileChannel.MapMode.READ_WRITE, 0, size, arena);
        }
    }

    /**
     * The producer of a ring withdraws (an abrupt close) while the consumer's cut moves before
     * every compare-and-set: it treats the ring as corrupt after a few tries, as it does a cut it
     * could not have set, where it tried for ever (the connection is ended and what it sent and
     * was not reported is flushed).
     */
    @Test
    void aCutThatMovesOnEveryTryEndsTheWithdrawal() throws Exception
    {
        final Path file = Files.write(dir.resolve("ring"), new byte[8192]);
        final int[] tries = new int[1];
        try (Arena arena = Arena.ofShared())
        {
            final MemorySegment control = map(file, 8192, arena);
            final List<String> out = debug("casLong", n -> control.set(ValueLayout.JAVA_LONG, SpscRing.CUT, 16L * n),
                tries, "withdraw", file.toString());
            assertTrue(out.stream().anyMatch(l -> l.startsWith("CORRUPT ")), out.toString());
            assertEquals(SpscRing.WITHDRAW_TRIES, tries[0], out.toString());
        }
    }

    /**
     * The active side gives a connection attempt up while the passive side flips the state between
     * REQUESTED and ACCEPTED before every compare-and-set: it stops after a few tries without
     * having told the peer, where it tried for ever (the attempt ends as it does with a peer that
     * cannot be told, a file that shrank).
     */
    @Test
    void aStateThatFlipsOnEveryTryEndsTheCancel() throws Exception
    {
        final long id = Liveness.SELF_PID << 32 | 77;
        final Path file = ShmDirectory.connectionPath(dir, id);
        final int[] tries = new int[1];
        try (Arena arena = Arena.ofShared())
        {
            final MemorySegment[] seg = new MemorySegment[1];
            final List<String> out = debug("casInt", n ->
            {
                try
                {
                    if (seg[0] == null)
                    {
                        seg[0] = map(file, 4096, arena);
                    }
                }
                catch (final IOException e)
                {
                    throw new java.io.UncheckedIOException(e);
                }
                final int s = seg[0].get(ValueLayout.JAVA_INT, 12);
                seg[0].set(ValueLayout.JAVA_INT, 12,
                    s == ConnectionFile.REQUESTED ? ConnectionFile.ACCEPTED : ConnectionFile.REQUESTED);
            }, tries, "cancel", dir.toString(), Long.toString(id));
            assertTrue(out.stream().anyMatch(l -> l.startsWith("DONE cancelled false")), out.toString());
            assertEquals(ConnectionFile.CANCEL_TRIES, tries[0], out.toString());
        }
    }
}

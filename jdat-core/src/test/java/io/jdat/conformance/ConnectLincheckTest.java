package io.jdat.conformance;

import io.jdat.CloseFlags;
import io.jdat.Dat;
import io.jdat.DatEvent;
import io.jdat.DatException;
import io.jdat.DatHandle;
import io.jdat.DatOut;
import io.jdat.DatStatus;
import io.jdat.Endpoint;
import io.jdat.EventDispatcher;
import io.jdat.EvdFlags;
import io.jdat.IaAddress;
import io.jdat.IaAttr;
import io.jdat.InterfaceAdapter;
import io.jdat.ProtectionZone;
import io.jdat.PspFlags;
import io.jdat.PublicServicePoint;
import io.jdat.Qos;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import org.jetbrains.kotlinx.lincheck.Actor;
import org.jetbrains.kotlinx.lincheck.execution.ExecutionScenario;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Options;
import org.jetbrains.lincheck.datastructures.StressOptions;
import org.jetbrains.lincheck.datastructures.Validate;
import org.jetbrains.lincheck.datastructures.verifier.EpsilonVerifier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Connection setup and teardown racing each other on loopback (Lincheck): {@code dat_ep_connect}
 * against {@code dat_ep_disconnect}, {@code dat_ep_free} and {@code dat_ia_close} of the client's
 * IA; {@code dat_cr_accept} against the same; the client's teardown against the server's
 * {@code dat_ep_disconnect}; a graceful disconnect against an accept and against an abrupt one.
 * Client and server are on two IAs of one loopback name. The man pages make these calls MT-unsafe
 * on one object; jdat makes every call thread-safe (digest §1.6 [INF]), so racing them is fair.
 *
 * <p>After each scenario every EVD of both IAs is drained and both endpoints' states are read;
 * {@link EndStates} asserts that the whole is an end the man pages allow with both ends agreeing.
 * The model checker runs each scenario under many chosen thread switches at the engine's shared
 * accesses and reports a deadlock or livelock as a failure; the stress run uses real threads.
 * {@code -Djdat.lincheck.long=true} runs 1,000 model-checked and 10,000 stress runs per scenario.
 */
@Tag("lincheck")
// Lincheck transforms the classes a test reaches on first use: the first test of a JVM takes long
@Timeout(value = 5, unit = TimeUnit.MINUTES)
public class ConnectLincheckTest
{
    private static final boolean LONG = Boolean.getBoolean("jdat.lincheck.long");
    private static final long INVOCATION_TIMEOUT_MS = 100_000;
    private static final String NAME = Fixture.loopbackWith("evd_spin_us=0");
    /** Every IA open, so that one a failed scenario left is closed at the end. */
    private static final Queue<Side> OPENED = new ConcurrentLinkedQueue<>();
    /** The IAs most scenarios share; each scenario makes and frees its own objects in them. */
    private static Side sharedServer;
    private static Side sharedClient;
    /** Set while the scenarios that close the client's IA run: each instance opens its own. */
    private static volatile boolean clientIaPerScenario;

    private final Side server = shared(true);
    private final Side client = clientIaPerScenario ? Side.open() : shared(false);
    private final EventDispatcher crEvd = server.ia.evdCreate(4, null, EvdFlags.CR_FLAG);
    private final PublicServicePoint psp = server.ia.pspCreateAny(crEvd, PspFlags.CONSUMER_FLAG);
    private final EventDispatcher serverConn = server.ia.evdCreate(8, null, EvdFlags.CONNECTION_FLAG);
    private final EventDispatcher clientConn = client.ia.evdCreate(8, null, EvdFlags.CONNECTION_FLAG);
    private final Endpoint serverEp = server.ia.epCreate(server.pz, null, null, serverConn, null);
    private final Endpoint clientEp = client.ia.epCreate(client.pz, null, null, clientConn, null);
    /** What each call returned, by operation. */
    private final Map<String, String> calls = new ConcurrentHashMap<>();

    /** One IA with its async EVD, a PZ and its address (no registered memory, so no arena to close). */
    private record Side(InterfaceAdapter ia, EventDispatcher asyncEvd, ProtectionZone pz, IaAddress address)
    {
        static Side open()
        {
            final DatOut<EventDispatcher> async = new DatOut<>();
            final InterfaceAdapter ia = Dat.iaOpen(NAME, 8, async);
            final IaAttr attr = new IaAttr();
            ia.query(IaAttr.FIELD_IA_ADDRESS_PTR, attr, 0, null);
            final Side s = new Side(ia, async.value, ia.pzCreate(), attr.iaAddress);
            OPENED.add(s);
            return s;
        }

        void close()
        {
            OPENED.remove(this);
            try
            {
                ia.close(CloseFlags.ABRUPT_FLAG);
            }
            catch (final DatException e)
            {
                // the scenario closed it
            }
        }
    }

    private static synchronized Side shared(final boolean server)
    {
        if (sharedServer == null)
        {
            sharedServer = Side.open();
            sharedClient = Side.open();
        }
        return server ? sharedServer : sharedClient;
    }

    @AfterAll
    static void closeAll()
    {
        Side s;
        while ((s = OPENED.poll()) != null)
        {
            s.close();
        }
        sharedServer = null;
        sharedClient = null;
    }

    /** Runs {@code call} as operation {@code name}; records and returns SUCCESS or the DatException's type. */
    private String call(final String name, final Runnable call)
    {
        String result;
        try
        {
            call.run();
            result = EndStates.SUCCESS;
        }
        catch (final DatException e)
        {
            result = e.type().name();
        }
        calls.put(name, result);
        return result;
    }

    @Operation
    public String connect()
    {
        return call("connect", () -> clientEp.connect(server.address, psp.connQual(), Dat.TIMEOUT_INFINITE, null,
            Qos.BEST_EFFORT, 0));
    }

    /** Takes the connection request, if one is queued, and accepts it on the server's endpoint. */
    @Operation
    public String accept()
    {
        final DatEvent ev = new DatEvent();
        if (crEvd.dequeue(ev) != DatStatus.SUCCESS)
        {
            calls.put("accept", EndStates.NO_REQUEST);
            return EndStates.NO_REQUEST;
        }
        return call("accept", () -> ev.crArrival.crHandle.accept(serverEp, null));
    }

    @Operation
    public String clientDisconnect()
    {
        return call("clientDisconnect", () -> clientEp.disconnect(CloseFlags.ABRUPT_FLAG));
    }

    @Operation
    public String clientDisconnectGraceful()
    {
        return call("clientDisconnectGraceful", () -> clientEp.disconnect(CloseFlags.GRACEFUL_FLAG));
    }

    @Operation
    public String clientFree()
    {
        return call("clientFree", clientEp::free);
    }

    @Operation
    public String clientIaClose()
    {
        return call("clientIaClose", () -> client.ia.close(CloseFlags.ABRUPT_FLAG));
    }

    @Operation
    public String serverDisconnect()
    {
        return call("serverDisconnect", () -> serverEp.disconnect(CloseFlags.ABRUPT_FLAG));
    }

    /** Everything an EVD holds, in order; GONE for an EVD its IA's close destroyed. */
    private static List<String> drain(final EventDispatcher evd)
    {
        final List<String> events = new ArrayList<>();
        final DatEvent ev = new DatEvent();
        try
        {
            while (evd.dequeue(ev) == DatStatus.SUCCESS)
            {
                events.add(String.valueOf(ev.number()).replace("CONNECTION_EVENT_", ""));
            }
        }
        catch (final DatException e)
        {
            events.add(EndStates.GONE);
        }
        return events;
    }

    private static String state(final Endpoint ep)
    {
        try
        {
            return String.valueOf(Connecting.state(ep));
        }
        catch (final DatException e)
        {
            return EndStates.GONE;
        }
    }

    /**
     * After each scenario: checks how it ended ({@link EndStates}), then frees what it made (or
     * closes the client's IA of its own).
     */
    @Validate
    public void check()
    {
        try
        {
            new EndStates(Map.copyOf(calls), drain(clientConn), state(clientEp), drain(client.asyncEvd),
                drain(serverConn), state(serverEp), drain(server.asyncEvd), drain(crEvd)).check();
        }
        finally
        {
            if (client != sharedClient)
            {
                client.close();
            }
            // the endpoints first: an EVD is freed only once no stream feeds it
            for (final DatHandle h : List.of(clientEp, serverEp, psp, clientConn, serverConn, crEvd))
            {
                free(h);
            }
            drain(client.asyncEvd);
            drain(server.asyncEvd);
        }
    }

    private static void free(final DatHandle h)
    {
        try
        {
            switch (h)
            {
                case Endpoint ep -> ep.free();
                case PublicServicePoint sp -> sp.free();
                case EventDispatcher evd -> evd.free();
                default -> throw new IllegalArgumentException(String.valueOf(h));
            }
        }
        catch (final DatException e)
        {
            // freed by the scenario, or its IA closed
        }
    }

    private static List<Actor> actors(final String... names)
    {
        final List<Actor> list = new ArrayList<>();
        for (final String n : names)
        {
            try
            {
                final Method m = ConnectLincheckTest.class.getMethod(n);
                list.add(new Actor(m, List.of(), false, false, false, false, false));
            }
            catch (final NoSuchMethodException e)
            {
                throw new AssertionError(e);
            }
        }
        return list;
    }

    /** {@code init} one after the other, then {@code threads} in parallel, then the check. */
    private static ExecutionScenario scenario(final String[] init, final String[]... threads)
    {
        final List<List<Actor>> parallel = new ArrayList<>();
        for (final String[] t : threads)
        {
            parallel.add(actors(t));
        }
        return new ExecutionScenario(actors(init), parallel, List.of(), actors("check").get(0));
    }

    private static String[] of(final String... names)
    {
        return names;
    }

    /** The races on shared IAs: connect, accept and teardown against each other. */
    static List<ExecutionScenario> scenarios()
    {
        final List<ExecutionScenario> list = new ArrayList<>();
        for (final String teardown : of("clientDisconnect", "clientFree"))
        {
            list.addAll(races(teardown));
        }
        list.add(scenario(of("connect"), of("accept"), of("clientDisconnectGraceful")));
        list.add(scenario(of("connect", "accept"), of("clientDisconnectGraceful"), of("clientDisconnect")));
        return list;
    }

    /** The three races of one teardown of the client. */
    private static List<ExecutionScenario> races(final String teardown)
    {
        return List.of(
            // connect racing the teardown; the server accepts whatever request arrived
            scenario(of(), of("connect", "accept"), of(teardown)),
            // the request is queued; accept racing the client's teardown
            scenario(of("connect"), of("accept"), of(teardown)),
            // established; the client's teardown racing the server's disconnect
            scenario(of("connect", "accept"), of("serverDisconnect"), of(teardown)));
    }

    /** Runs {@code scenarios} with {@code options}. */
    private static void run(final Options<?, ?> options,
        final List<ExecutionScenario> scenarios)
    {
        for (final ExecutionScenario s : scenarios)
        {
            options.addCustomScenario(s);
        }
        options.check(ConnectLincheckTest.class);
    }

    private static ModelCheckingOptions modelChecking()
    {
        return new ModelCheckingOptions()
            // the first scenarios also transform the classes they reach, which on a loaded
            // machine can take longer than Lincheck's 30 s per run
            .invocationTimeout$lincheck(INVOCATION_TIMEOUT_MS)
            .iterations(0)
            .invocationsPerIteration(LONG ? 1_000 : 10)
            // the IA's close walks its 64-slot memory table: a bounded loop, not a livelock
            .loopBound(1_000)
            .verifier(EpsilonVerifier.class);
    }

    private static StressOptions stress()
    {
        return new StressOptions()
            // the first scenarios also transform the classes they reach, which on a loaded
            // machine can take longer than Lincheck's 30 s per run
            .invocationTimeout$lincheck(INVOCATION_TIMEOUT_MS)
            .iterations(0)
            .invocationsPerIteration(LONG ? 10_000 : 200)
            .verifier(EpsilonVerifier.class);
    }

    @Test
    void modelCheckedRacesEndAsTheSpecAllows()
    {
        run(modelChecking(), scenarios());
    }

    @Test
    void modelCheckedRacesWithTheClientsIaCloseEndAsTheSpecAllows()
    {
        clientIaPerScenario = true;
        try
        {
            run(modelChecking(), races("clientIaClose"));
        }
        finally
        {
            clientIaPerScenario = false;
        }
    }

    @Test
    void racesOnRealThreadsEndAsTheSpecAllows()
    {
        run(stress(), scenarios());
    }

    @Test
    void racesWithTheClientsIaCloseOnRealThreadsEndAsTheSpecAllows()
    {
        clientIaPerScenario = true;
        try
        {
            run(stress(), races("clientIaClose"));
        }
        finally
        {
            clientIaPerScenario = false;
        }
    }
}

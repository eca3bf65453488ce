package io.jdat.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.ProviderInfo;
import io.jdat.registry.Registry;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code jdat test} (dapltest, digest §8.1) on loopback with small counts. The transaction and
 * performance cases here speak jdat's own protocol ({@code --jdat-protocol}), whose server reports
 * its checks back; {@link DapltestClientOptionsTest} runs them on dapltest's wire, the default.
 */
class TestCommandTest
{
    private static final java.util.regex.Pattern CHECKS =
        java.util.regex.Pattern.compile("(?m)^(client|server): (\\d+) checks passed$");

    /** The checks each side reported; both must have checked something. */
    private static void assertBothSidesChecked(final Run r)
    {
        final Matcher m = CHECKS.matcher(r.out());
        int sides = 0;
        while (m.find())
        {
            assertTrue(Long.parseLong(m.group(2)) > 0, m.group() + "\n" + r.all());
            sides++;
        }
        assertEquals(2, sides, r.all());
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "--poll", "--cno", "--rsp", "--rsp --poll", "--rsp --cno"})
    void transactionWithValidationPassesInEveryCompletionAndServicePointMode(final String mode)
    {
        final String line = "test client transaction --jdat-protocol --validate -t 2 -w 2 -i 20 " + mode;
        final Run r = Run.jdat(line.strip().split(" +"));
        assertEquals(0, r.code(), r.all());
        assertBothSidesChecked(r);
        assertTrue(r.out().contains("all checks passed"), r.all());
        assertTrue(r.err().isEmpty(), r.all());
    }

    @Test
    void transactionRunsEveryOperationTypeWithSegmentsBothWays()
    {
        final Run r = Run.jdat("test", "client", "transaction", "--jdat-protocol", "-V", "-i", "10", "client", "SR",
            "0", "server", "SR",
            "1", "client", "RR", "65536", "4", "server", "RW", "100", "3", "client", "RW", "1", "server", "RR", "7",
            "2");
        assertEquals(0, r.code(), r.all());
        assertTrue(r.out().contains("server RW 100x3"), r.all());
        assertBothSidesChecked(r);
    }

    @Test
    void corruptedTransferFailsAndNamesOperationEndpointAndStatus()
    {
        final Run r = Run.jdat("test", "client", "--inject-corruption", "transaction", "--jdat-protocol",
            "--validate", "-i", "5");
        assertEquals(Jdat.EXIT_FAILED, r.code(), r.all());
        assertTrue(r.oneErrorLine(), r.all());
        // the server checks first (op 0 is the client's Send); its failure is the cause
        assertTrue(r.err().contains("server: iteration 0, op 0 (client SR 4096x1): "
            + "Recv buffer on server thread 0 ep 0: data differs at byte"), r.all());
        // and the client's receive was flushed when the server broke the connection
        assertTrue(r.out().contains("Recv on client thread 0 ep 0: completion status ERR_FLUSHED"), r.all());
        assertFalse(r.out().contains("all checks passed"), r.all());
    }

    @ParameterizedTest
    @ValueSource(strings = {"RW 4096", "RR 65536 2", "RW 100 3 -m p", "RR 8 -m p -p 1"})
    void performanceTimesAndChecksTheData(final String op)
    {
        final Run r = Run.jdat(("test client performance --jdat-protocol -i 200 " + op).split(" "));
        assertEquals(0, r.code(), r.all());
        assertTrue(r.out().matches("(?s).*200 operations in [0-9.]+ s: \\d+ ops/s, [0-9.]+ MB/s.*"), r.all());
        assertTrue(r.out().contains("latency (post to completion"), r.all());
        assertTrue(r.out().contains("all checks passed (201 checks)"), r.all());
    }

    @ParameterizedTest
    @ValueSource(strings = {"RW", "RR"})
    void performanceCatchesCorruptedData(final String op)
    {
        final Run r = Run.jdat("test", "client", "--inject-corruption", "performance", "--jdat-protocol", "-i",
            "50", op);
        assertEquals(Jdat.EXIT_FAILED, r.code(), r.all());
        assertTrue(r.oneErrorLine(), r.all());
        assertTrue(r.err().contains(op.equals("RW") ? "RDMA Write target on server perf ep: data differs"
            : "RDMA Read sink on client perf ep: data differs"), r.all());
    }

    @Test
    void limitCreatesUpToTheMaximumOnTheDefaultProvider()
    {
        final Run r = Run.jdat("test", "client", "limit", "--max", "50", "--max-lmr-size", "4M");
        assertEquals(0, r.code(), r.all());
        assertTrue(r.out().contains("limit_pz        ok     created 50, the maximum asked"), r.all());
        // max_recv_dtos is 50: the 51st receive is refused
        assertTrue(r.out().contains("limit_rpost     ok     created 50; then DAT_INSUFFICIENT_RESOURCES"), r.all());
        assertTrue(r.out().contains("limit_size_lmr  ok     created 4194304 bytes (largest)"), r.all());
        assertTrue(r.out().contains("all limit tests passed"), r.all());
    }

    @Test
    void limitExhaustsAProviderWithSmallLimitsAndClosesItGracefully()
    {
        final String name = "loopback-limits";
        if (!ProviderOption.knownNames().contains(name))
        {
            Registry.get().libraries().get("loopback").providerInit(ProviderInfo.of(name, true),
                "max_eps=3 max_pzs=2 max_evds=5 max_cnos=2 max_lmrs=4 max_psps=2 max_rsps=2 max_ias=2");
        }
        final Run r = Run.jdat("test", "client", "-P", name, "limit", "--max", "100", "limit_ia", "limit_pz",
            "limit_cno", "limit_evd", "limit_ep", "limit_psp", "limit_rsp", "limit_lmr");
        assertEquals(0, r.code(), r.all());
        for (final String line : new String[] {"limit_ia        ok     created 2; then DAT_INSUFFICIENT_RESOURCES",
            "limit_pz        ok     created 2; then DAT_INSUFFICIENT_RESOURCES",
            "limit_cno       ok     created 2; then DAT_INSUFFICIENT_RESOURCES",
            "limit_evd       ok     created 5; then DAT_INSUFFICIENT_RESOURCES",
            "limit_ep        ok     created 3; then DAT_INSUFFICIENT_RESOURCES",
            "limit_psp       ok     created 2; then DAT_INSUFFICIENT_RESOURCES",
            "limit_lmr       ok     created 4; then DAT_INSUFFICIENT_RESOURCES"})
        {
            assertTrue(r.out().contains(line), line + "\n" + r.all());
        }
    }

    @Test
    void fftCasesAllReturnTheCodesDatRequires()
    {
        final Run r = Run.jdat("test", "client", "fft");
        assertEquals(0, r.code(), r.all());
        final long ok = r.out().lines().filter(l -> l.matches("  \\w+ +\\d+ ok .*")).count();
        assertTrue(ok >= 40, r.all());
        assertTrue(r.out().contains("all " + ok + " cases passed"), r.all());
        assertTrue(r.out().contains("hwconn     1 ok     dat_ia_open of unregistered names 40, x, xsdf, x34, 34df: "
            + "DAT_PROVIDER_NOT_FOUND"), r.all());
    }

    @Test
    void fftRunsTheCasesOfOneFeature()
    {
        final Run r = Run.jdat("test", "client", "fft", "-f", "pz", "1", "2");
        assertEquals(0, r.code(), r.all());
        assertTrue(r.out().contains("pz         1 ok     dat_pz_free of a PZ an endpoint uses: DAT_INVALID_STATE"),
            r.all());
        assertTrue(r.out().contains("all 2 cases passed"), r.all());
    }

    @Test
    void serverServesClientsUntilOneSaysQuit() throws Exception
    {
        final String port = Long.toString(46_000 + System.nanoTime() % 1000);
        final CompletableFuture<Run> server = CompletableFuture.supplyAsync(
            () -> Run.jdat("test", "server", "--port", port, "--timeout", "10"));
        final String at = "loopback:" + port;
        Run t = null;
        for (int attempt = 0; attempt < 50; attempt++)
        {
            t = Run.jdat("test", "client", "--server", at, "--timeout", "10", "transaction", "--jdat-protocol", "-V",
                "-i", "10", "-t", "2");
            if (t.code() == 0 || !t.err().contains("NON_PEER_REJECTED"))
            {
                break;
            }
            Thread.sleep(20);
        }
        assertEquals(0, t.code(), t.all());
        assertFalse(t.out().contains("server in this process"), t.all());
        final Run p = Run.jdat("test", "client", "--server", at, "performance", "--jdat-protocol", "-i", "100",
            "RR");
        assertEquals(0, p.code(), p.all());
        final Run q = Run.jdat("test", "client", "--server", at, "quit", "--jdat-protocol");
        assertEquals(0, q.code(), q.all());
        assertTrue(q.out().contains("said BYE"), q.all());
        final Run s = server.get(20, TimeUnit.SECONDS);
        assertEquals(0, s.code(), s.all());
        assertTrue(s.out().contains("session 1: passed"), s.all());
        assertTrue(s.out().contains("QUIT"), s.all());
        assertTrue(s.out().endsWith("jdat test server: quit\n"), s.all());
    }

    @Test
    void quitStopsTheServerInThisProcess()
    {
        final Run r = Run.jdat("test", "client", "quit", "--jdat-protocol");
        assertEquals(0, r.code(), r.all());
        assertTrue(r.out().contains("said BYE"), r.all());
    }

    @ParameterizedTest
    @ValueSource(strings = {"test", "test client", "test bogus", "test client transaction -t 0",
        "test client transaction -i x", "test client transaction client RR", "test client transaction client XX",
        "test client transaction client SR 4096 99 server SR", "test client transaction --poll --cno",
        "test client --server host:port transaction", "test client --timeout 0 fft", "test client performance SR",
        "test client performance RW 4096 0", "test client performance -m z", "test client performance -p 0",
        "test client limit limit_nothing", "test client limit --max 0", "test client limit --max-lmr-size 1K",
        "test client fft -f nothing", "test client fft 1", "test client fft -f pz 9", "test server --port -1",
        "test client -P no-such-ia fft", "test client transaction --unknown"})
    void badOptionsAreOneLineAndExitTwo(final String line)
    {
        final Run r = Run.jdat(line.split(" "));
        assertEquals(Jdat.EXIT_USAGE, r.code(), r.all());
        assertTrue(r.oneErrorLine(), r.all());
    }

    @Test
    void everySubcommandHasHelp()
    {
        for (final String command : new String[] {"test", "test server", "test client", "test client transaction",
            "test client performance", "test client limit", "test client fft", "test client quit"})
        {
            final Run r = Run.jdat((command + " --help").split(" "));
            assertEquals(0, r.code(), r.all());
            assertTrue(r.out().startsWith("Usage: jdat " + command), r.all());
        }
    }
}

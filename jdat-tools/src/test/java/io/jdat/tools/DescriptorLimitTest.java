package io.jdat.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.testkit.RequiredTools;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Running out of file descriptors ({@link DescriptorLimitPeer} in a child JVM under
 * {@code prlimit --nofile=256}): dat_ia_open, dat_psp_create_any and dat_ep_connect fail with
 * DAT_INSUFFICIENT_RESOURCES while descriptors are short, a failed call keeps none, the
 * connection goes through once descriptors come back, and nothing is left afterwards. The shm
 * provider holds no descriptor for an IA or a connection (its files are mapped and closed), so
 * there the calls fail only while they open a file. Needs prlimit (util-linux): skipped loudly
 * without, a failure under {@code JDAT_REQUIRE_TOOLS=1}.
 */
class DescriptorLimitTest
{
    private static final int NOFILE = 256;

    @ParameterizedTest
    @ValueSource(strings = {"tcp", "shm"})
    void runningOutOfDescriptorsIsInsufficientResourcesAndServiceResumes(final String provider) throws Exception
    {
        RequiredTools.require(RequiredTools.onPath("prlimit"), "prlimit is missing (apt-get install util-linux)");
        final Process p = new ProcessBuilder("prlimit", "--nofile=" + NOFILE + ":" + NOFILE,
            ProcessHandle.current().info().command().orElseThrow(), "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
            "-cp", System.getProperty("java.class.path"), DescriptorLimitPeer.class.getName(), provider)
            .redirectErrorStream(true).start();
        final String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the child ended");
        final List<String> lines = out.lines().toList();
        System.out.println("STRANGERS descriptor limit " + provider + ", ulimit -n " + NOFILE + ": "
            + String.join("; ", lines));
        assertEquals(0, p.exitValue(), out);
        assertEquals("OK", lines.get(lines.size() - 1), out);
        // a listener that cannot accept for want of a descriptor waits a while (100 ms) before it
        // tries again, rather than spinning on a socket that stays ready
        if (provider.equals("tcp"))
        {
            final long failed = lines.stream().filter(l -> l.startsWith("accepts that failed meanwhile: "))
                .mapToLong(l -> Long.parseLong(l.substring(l.indexOf(": ") + 2))).findFirst().orElse(-1);
            assertTrue(failed >= 1 && failed <= 10, "accepts that failed in the half second without descriptors: "
                + failed + "\n" + out);
        }
    }
}

package io.jdat.testkit;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Assumptions;

/**
 * Tests that need a program of the host (tshark, ip, tc, setpriv) or root: where the program or
 * the right is missing they are skipped with a loud message, except where {@code JDAT_REQUIRE_TOOLS=1}
 * ({@code .ci/run} exports it when it runs as root and can make network namespaces), where a
 * missing tool fails the test.
 */
public final class RequiredTools
{
    private RequiredTools()
    {
    }

    /** Whether a missing tool fails rather than skips. */
    public static boolean required()
    {
        return "1".equals(System.getenv("JDAT_REQUIRE_TOOLS"));
    }

    /** Goes on when {@code present}; otherwise skips saying {@code why}, or fails when tools are required. */
    public static void require(final boolean present, final String why)
    {
        if (present)
        {
            return;
        }
        if (required())
        {
            fail(why + " (tools are required here: JDAT_REQUIRE_TOOLS=1)");
        }
        System.err.println();
        System.err.println("!!!! SKIPPED: " + why);
        System.err.println("!!!! (set JDAT_REQUIRE_TOOLS=1 to make this a failure)");
        System.err.println();
        Assumptions.abort(why);
    }

    /** Whether {@code program} is an executable file in a directory of {@code PATH}. */
    public static boolean onPath(final String program)
    {
        final String path = System.getenv("PATH");
        if (path == null)
        {
            return false;
        }
        for (final String directory : path.split(File.pathSeparator))
        {
            if (!directory.isEmpty() && Files.isExecutable(Path.of(directory, program)))
            {
                return true;
            }
        }
        return false;
    }

    /** Whether this process runs as root (Linux: uid 0 in {@code /proc/self/status}). */
    public static boolean root()
    {
        try
        {
            return Files.readAllLines(Path.of("/proc/self/status")).stream()
                .filter(l -> l.startsWith("Uid:"))
                .anyMatch(l -> l.split("\\s+")[1].equals("0"));
        }
        catch (final java.io.IOException e)
        {
            return false;
        }
    }
}

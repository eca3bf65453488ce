package io.jdat.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.testkit.RequiredTools;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Runs {@link ShmStranger} as another Unix user: a second JVM under {@code setpriv} with a uid
 * (and gid) no account or group of the host uses, so the host gains no user. Holds a directory
 * that user may write (sticky, as /dev/shm) and a copy of the class path it can read (the test's
 * own lies under root's home). Needs root and setpriv: skipped loudly without.
 */
final class OtherUser implements AutoCloseable
{
    /** Where roots for the test go; the other user may write it. */
    final Path base;
    final int uid;
    private final String classPath;

    private OtherUser(final Path base, final int uid, final String classPath)
    {
        this.base = base;
        this.uid = uid;
        this.classPath = classPath;
    }

    static OtherUser prepare() throws IOException
    {
        RequiredTools.require(RequiredTools.root(), "running as another user needs root");
        RequiredTools.require(RequiredTools.onPath("setpriv"), "setpriv is missing (apt-get install util-linux)");
        final int uid = unusedId(0);
        final Path base = Files.createTempDirectory("jdat-strangers-");
        Files.setAttribute(base, "unix:mode", 01777);
        final Path cp = Files.createDirectory(base.resolve("cp"));
        Files.setAttribute(cp, "unix:mode", 0755);
        final List<String> entries = new ArrayList<>();
        int n = 0;
        for (final String e : System.getProperty("java.class.path").split(java.io.File.pathSeparator))
        {
            if (!e.contains("jdat-") && !e.contains("jctools"))
            {
                continue;
            }
            final Path from = Path.of(e);
            final Path to = cp.resolve(n++ + "-" + from.getFileName());
            copy(from, to);
            entries.add(to.toString());
        }
        return new OtherUser(base, uid, String.join(java.io.File.pathSeparator, entries));
    }

    /** An id above {@code after} that no user or group of the host has. */
    static int unusedId(final int after) throws IOException
    {
        final Set<Integer> used = new HashSet<>();
        for (final String file : List.of("/etc/passwd", "/etc/group"))
        {
            for (final String line : Files.readAllLines(Path.of(file)))
            {
                final String[] f = line.split(":");
                if (f.length > 2)
                {
                    used.add(Integer.parseInt(f[2]));
                }
            }
        }
        int u = Math.max(61_337, after + 1);
        while (used.contains(u))
        {
            u++;
        }
        return u;
    }

    private static void copy(final Path from, final Path to) throws IOException
    {
        try (Stream<Path> all = Files.walk(from))
        {
            for (final Path p : all.toList())
            {
                final Path t = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p))
                {
                    Files.createDirectories(t);
                    Files.setAttribute(t, "unix:mode", 0755);
                }
                else
                {
                    Files.copy(p, t);
                    Files.setAttribute(t, "unix:mode", 0644);
                }
            }
        }
    }

    /**
     * Runs the stranger with {@code args}, in supplementary group {@code group} (or none if
     * negative); its output lines, between its uid line and END.
     */
    List<String> run(final int group, final String... args)
    {
        final List<String> cmd = new ArrayList<>(List.of("setpriv", "--reuid=" + uid, "--regid=" + uid,
            group < 0 ? "--clear-groups" : "--groups=" + group, ProcessHandle.current().info().command().orElseThrow(),
            "-XX:-UsePerfData", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-cp", classPath,
            ShmStranger.class.getName()));
        cmd.addAll(List.of(args));
        try
        {
            final Process p = new ProcessBuilder(cmd).directory(base.toFile()).redirectErrorStream(true).start();
            final String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the stranger ended");
            final List<String> lines = out.lines().toList();
            assertEquals(0, p.exitValue(), "the stranger ran: " + out);
            assertEquals("UID " + uid, lines.get(0), "the stranger runs as uid " + uid + ": " + out);
            assertEquals("END", lines.get(lines.size() - 1), out);
            return lines;
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException(e);
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    @Override
    public void close()
    {
        TestFiles.delete(base);
    }
}

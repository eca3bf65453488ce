package io.jdat.tcp.channel;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

/**
 * What this process holds, as the kernel counts it: file descriptors, and of the TCP sockets among
 * them those whose local port is a given one (the connections a listener on that port accepted),
 * from {@code /proc/self/fd} and {@code /proc/net/tcp[6]}.
 */
final class Descriptors
{
    private static final String LISTEN = "0A";

    private Descriptors()
    {
    }

    /** Open file descriptors of this process. */
    static int open()
    {
        try (Stream<Path> s = Files.list(Path.of("/proc/self/fd")))
        {
            return (int) s.count();
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException(e);
        }
    }

    /** Descriptors of this process that are TCP connections (not listeners) with local port {@code port}. */
    static int acceptedOn(final int port)
    {
        final Set<String> inodes = new HashSet<>();
        for (final String table : List.of("/proc/net/tcp", "/proc/net/tcp6"))
        {
            final List<String> lines;
            try
            {
                lines = Files.readAllLines(Path.of(table));
            }
            catch (final IOException e)
            {
                continue;
            }
            for (final String line : lines.subList(1, lines.size()))
            {
                // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
                final String[] f = line.trim().split("\\s+");
                final String local = f[1];
                final int p = Integer.parseInt(local.substring(local.indexOf(':') + 1), 16);
                if (p == port && !f[3].equals(LISTEN))
                {
                    inodes.add("socket:[" + f[9] + "]");
                }
            }
        }
        int n = 0;
        try (Stream<Path> s = Files.list(Path.of("/proc/self/fd")))
        {
            for (final Path fd : s.toList())
            {
                try
                {
                    if (inodes.contains(Files.readSymbolicLink(fd).toString()))
                    {
                        n++;
                    }
                }
                catch (final IOException e)
                {
                    // closed meanwhile
                }
            }
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException(e);
        }
        return n;
    }
}

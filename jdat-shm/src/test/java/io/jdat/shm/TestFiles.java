package io.jdat.shm;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/** A directory of its own for each test (under /dev/shm when there is one), and data patterns. */
final class TestFiles
{
    private TestFiles()
    {
    }

    static Path freshDir()
    {
        try
        {
            final Path shm = Path.of("/dev/shm");
            return Files.isDirectory(shm) && Files.isWritable(shm) ? Files.createTempDirectory(shm, "jdat-shm-test-")
                : Files.createTempDirectory("jdat-shm-test-");
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException(e);
        }
    }

    static void delete(final Path dir)
    {
        if (dir == null || !Files.exists(dir))
        {
            return;
        }
        try (Stream<Path> all = Files.walk(dir))
        {
            for (final Path p : all.sorted(Comparator.reverseOrder()).toList())
            {
                Files.deleteIfExists(p);
            }
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException(e);
        }
    }

    /** The names in an address directory other than its lock file. */
    static List<String> files(final Path addressDir)
    {
        try (Stream<Path> s = Files.list(addressDir))
        {
            return s.map(p -> p.getFileName().toString()).filter(n -> !n.equals(".lock")).sorted().toList();
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException(e);
        }
    }

    /** The byte at index {@code i} of the pattern {@code seed}. */
    static byte pattern(final long seed, final long i)
    {
        long x = (seed + 1) * 0x9E37_79B9_7F4A_7C15L + i * 0xBF58_476D_1CE4_E5B9L;
        x ^= x >>> 31;
        x *= 0x94D0_49BB_1331_11EBL;
        return (byte) (x >>> 29);
    }

    static void fill(final MemorySegment s, final long off, final long len, final long seed)
    {
        for (long i = 0; i < len; i++)
        {
            s.set(ValueLayout.JAVA_BYTE, off + i, pattern(seed, i));
        }
    }

    /** The index of the first byte that differs from the pattern, or -1. */
    static long mismatch(final MemorySegment s, final long off, final long len, final long seed)
    {
        for (long i = 0; i < len; i++)
        {
            if (s.get(ValueLayout.JAVA_BYTE, off + i) != pattern(seed, i))
            {
                return i;
            }
        }
        return -1;
    }
}

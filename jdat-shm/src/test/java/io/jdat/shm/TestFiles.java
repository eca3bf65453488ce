package io.jdat.shm;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.AnnotatedElementContext;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.io.TempDirFactory;

/** A directory of its own for each test (under /dev/shm when there is one), and data patterns. */
final class TestFiles
{
    private TestFiles()
    {
    }

    /**
     * JUnit's temporary directory made as {@link #freshDir} makes one, for a test's field
     * {@code @TempDir(factory = TestFiles.InShm.class) Path dir}: JUnit deletes it after the test.
     */
    static final class InShm implements TempDirFactory
    {
        @Override
        public Path createTempDirectory(final AnnotatedElementContext element, final ExtensionContext context)
        {
            return freshDir();
        }
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
}

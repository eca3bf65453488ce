package io.jdat.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.DatException;
import io.jdat.DatReturnType;
import io.jdat.EventDispatcher;
import io.jdat.EvdFlags;
import io.jdat.PspFlags;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Whoever may write an address directory can put at a qualifier's name something the provider
 * refuses to use: a symbolic link, a file of another user or with a loose mode, a FIFO. A
 * {@code dat_psp_create} on that qualifier is refused with DAT_PRIVILEGES_VIOLATION naming it; a
 * {@code dat_psp_create_any} passes over it, as over a live listener's qualifier, and fails only
 * once the whole range is used up: DAT_CONN_QUAL_UNAVAILABLE, saying how many were refused.
 */
class ShmListenAnyRefusedTest
{
    private static final long LOW = 20000;

    @TempDir(factory = TestFiles.InShm.class)
    Path root;

    @Test
    void aListenAnyPassesOverRefusedQualifiersAndFailsOnlyWhenTheRangeIsUsedUp() throws Exception
    {
        try (ShmNode server = ShmNode.open(root, "srv", "any_qual_range=" + LOW + "-" + (LOW + 3)))
        {
            final Path srv = root.resolve("srv");
            final Path link = ShmDirectory.listenerPath(srv, LOW);
            final Path fifo = ShmDirectory.listenerPath(srv, LOW + 1);
            final Path loose = ShmDirectory.listenerPath(srv, LOW + 2);
            Files.createSymbolicLink(link, root.resolve("elsewhere"));
            mkfifo(fifo);
            // a listening file of this live process by its header, but readable by others
            Planted.listener(loose, Liveness.SELF_PID, Liveness.SELF_START, LOW + 2);
            Files.setPosixFilePermissions(loose, PosixFilePermissions.fromString(Planted.REFUSED));
            try
            {
                final EventDispatcher cr = server.evd(8, EvdFlags.CR_FLAG);
                // whichever qualifier the walk starts at, it ends at the one left
                assertEquals(LOW + 3, server.ia.pspCreateAny(cr, PspFlags.CONSUMER_FLAG).connQual());
                final DatException full = assertThrows(DatException.class,
                    () -> server.ia.pspCreateAny(cr, PspFlags.CONSUMER_FLAG));
                assertEquals(DatReturnType.CONN_QUAL_UNAVAILABLE, full.type(), full.toString());
                assertTrue(full.getMessage().contains("3 of them refused"), full.getMessage());
                // the exact qualifier is refused, naming what is there
                for (final Path p : new Path[] {link, fifo, loose})
                {
                    final long q = Long.parseLong(p.getFileName().toString().substring(2));
                    final DatException e = assertThrows(DatException.class,
                        () -> server.ia.pspCreate(q, cr, PspFlags.CONSUMER_FLAG));
                    assertEquals(DatReturnType.PRIVILEGES_VIOLATION, e.type(), e.toString());
                    assertTrue(e.getMessage().contains(p.toString()), e.getMessage());
                }
                // and nothing planted was touched
                assertTrue(Files.isSymbolicLink(link), "the link");
                assertTrue(Files.exists(fifo, LinkOption.NOFOLLOW_LINKS) && !Files.isRegularFile(fifo), "the FIFO");
                assertEquals(Planted.REFUSED, PosixFilePermissions.toString(Files.getPosixFilePermissions(loose)));
                assertTrue(Files.notExists(root.resolve("elsewhere"), LinkOption.NOFOLLOW_LINKS), "the link's target");
            }
            finally
            {
                // a thread that waits in an open of the FIFO (a bug) would be let go
                FileChannel.open(fifo, StandardOpenOption.READ, StandardOpenOption.WRITE).close();
            }
        }
    }

    /** Makes a FIFO (mode 0600) at {@code path} with coreutils' mkfifo. */
    private static void mkfifo(final Path path) throws IOException, InterruptedException
    {
        final Process p = new ProcessBuilder("mkfifo", "-m", "600", path.toString()).redirectErrorStream(true).start();
        assertEquals(0, p.waitFor(), new String(p.getInputStream().readAllBytes()));
    }
}

package io.jdat.shm;

import static io.jdat.shm.ShmNode.SECOND;
import static io.jdat.shm.ShmNode.next;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.DatException;
import io.jdat.DatReturnType;
import io.jdat.EventDispatcher;
import io.jdat.EventNumber;
import io.jdat.EvdFlags;
import io.jdat.PspFlags;
import io.jdat.Qos;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What the provider finds already there, in its own user's name: a root or a file with a loose
 * mode, a symbolic link in place of the root, an address directory, the lock, a listening file or
 * the shared memory directory, a root in a directory others may rewrite. Each is refused with
 * DAT_PRIVILEGES_VIOLATION naming the path, and nothing is created where a link points.
 * {@link ShmOtherUserTest} does the same as another user would.
 */
class ShmPlantedPathTest
{
    private Path dir;
    /** Where planted links point: must stay empty. */
    private Path elsewhere;

    @BeforeEach
    void dirs() throws IOException
    {
        dir = TestFiles.freshDir();
        elsewhere = TestFiles.freshDir();
    }

    @AfterEach
    void clean()
    {
        TestFiles.delete(dir);
        TestFiles.delete(elsewhere);
    }

    /** {@code action} throws DAT_PRIVILEGES_VIOLATION naming {@code path}. */
    private static void refused(final Path path, final Executable action)
    {
        final DatException e = assertThrows(DatException.class, action::run);
        assertEquals(DatReturnType.PRIVILEGES_VIOLATION, e.status().type(), e.toString());
        assertTrue(e.getMessage().contains(path.toString()), "the error names " + path + ": " + e.getMessage());
    }

    private List<String> untouched() throws IOException
    {
        try (Stream<Path> s = Files.list(elsewhere))
        {
            return s.map(p -> p.getFileName().toString()).toList();
        }
    }

    @Test
    void aRootWithALooseModeIsRefused() throws IOException
    {
        final Path root = dir.resolve("root");
        Files.createDirectory(root);
        Files.setPosixFilePermissions(root, PosixFilePermissions.fromString("rwxrwxrwx"));
        refused(root, () -> ShmNode.open(root, "srv", "").close());
        refused(root, () -> ShmMemory.allocate(root, 4096).close());
        assertEquals(List.of(), Files.list(root).toList(), "nothing was created in it");

        Files.setPosixFilePermissions(root, PosixFilePermissions.fromString("rwxr-x---"));
        refused(root, () -> ShmNode.open(root, "srv", "").close());
        // made right, it is used
        Files.setPosixFilePermissions(root, PosixFilePermissions.fromString("rwx------"));
        ShmNode.open(root, "srv", "").close();
    }

    @Test
    void aLinkInPlaceOfTheRootOrAnAddressIsRefused() throws IOException
    {
        final Path root = dir.resolve("root");
        Files.createSymbolicLink(root, elsewhere);
        refused(root, () -> ShmNode.open(root, "srv", "").close());
        refused(root, () -> ShmMemory.allocate(root, 4096).close());
        assertEquals(List.of(), untouched(), "nothing was created where the link points");

        Files.delete(root);
        Files.createSymbolicLink(dir.resolve("srv"), elsewhere);
        refused(dir.resolve("srv"), () -> ShmNode.open(dir, "srv", "").close());
        Files.createSymbolicLink(dir.resolve(ShmDirectory.MEMORY_DIR), elsewhere);
        refused(dir.resolve(ShmDirectory.MEMORY_DIR), () -> ShmMemory.allocate(dir, 4096).close());
        assertEquals(List.of(), untouched(), "nothing was created where the links point");
    }

    @Test
    void aRootInADirectoryOthersMayRewriteIsRefused() throws IOException
    {
        final Path open = dir.resolve("open");
        Files.createDirectory(open);
        Files.setPosixFilePermissions(open, PosixFilePermissions.fromString("rwxrwxrwx"));
        refused(open.resolve("root"), () -> ShmNode.open(open.resolve("root"), "srv", "").close());
        assertFalse(Files.exists(open.resolve("root")), "the root was not made there");
    }

    @Test
    void aLinkOrALooseFileInAnAddressDirectoryIsRefusedWhereItIsUsed() throws IOException
    {
        try (ShmNode server = ShmNode.open(dir, "srv", ""); ShmNode client = ShmNode.open(dir, "cli", ""))
        {
            final EventDispatcher crEvd = server.evd(8, EvdFlags.CR_FLAG);
            final Path srv = dir.resolve("srv");

            // a listening file that is a link: neither listen nor connect goes through it
            final Path target = elsewhere.resolve("target");
            final Path l = ShmDirectory.listenerPath(srv, 4801);
            Files.createSymbolicLink(l, target);
            refused(l, () -> server.ia.pspCreate(4801, crEvd, PspFlags.CONSUMER_FLAG));
            final ShmNode.Ep c = client.ep(null);
            refused(l, () -> c.ep().connect(server.address, 4801, 5 * SECOND, null, Qos.BEST_EFFORT, 0));
            assertFalse(Files.exists(target), "nothing was created where the link points");
            // a new IA on the address sweeps stale files, and leaves the link for its user to refuse
            ShmNode.open(dir, "srv", "").close();
            assertTrue(Files.isSymbolicLink(l));

            // a listening file others may read
            final Path loose = ShmDirectory.listenerPath(srv, 4802);
            Files.write(loose, new byte[(int) ListenerFile.SIZE]);
            Files.setPosixFilePermissions(loose, PosixFilePermissions.fromString("rw-r--r--"));
            refused(loose, () -> server.ia.pspCreate(4802, crEvd, PspFlags.CONSUMER_FLAG));
            refused(loose, () -> c.ep().connect(server.address, 4802, 5 * SECOND, null, Qos.BEST_EFFORT, 0));

            // the lock file a link: nothing that takes the lock goes on
            final Path lock = srv.resolve(".lock");
            Files.delete(lock);
            Files.createSymbolicLink(lock, target);
            refused(lock, () -> server.ia.pspCreate(4803, crEvd, PspFlags.CONSUMER_FLAG));
            assertFalse(Files.exists(target), "nothing was created where the link points");

            // put right, the address serves again
            Files.delete(lock);
            server.ia.pspCreate(4803, crEvd, PspFlags.CONSUMER_FLAG);
            c.ep().connect(server.address, 4803, 5 * SECOND, null, Qos.BEST_EFFORT, 0);
            next(crEvd, EventNumber.CONNECTION_REQUEST_EVENT);
        }
    }

    @Test
    void sharedMemoryBehindALinkIsNotMapped() throws IOException
    {
        try (ShmMemory m = ShmMemory.allocate(dir, 4096))
        {
            final byte[] cookie = m.cookie();
            // the file's name now points at a copy elsewhere that another could have written
            final Path copy = elsewhere.resolve("copy");
            Files.copy(m.path, copy);
            Files.delete(m.path);
            Files.createSymbolicLink(m.path, copy);
            refused(m.path, () -> ShmMemory.open(dir, cookie).close());
            assertEquals(null, ShmMemory.mapPeer(dir, m.pid, m.seq, java.lang.foreign.Arena.ofAuto()),
                "a peer's direct record through the link maps nothing");
        }
    }

    /** A throwing action. */
    @FunctionalInterface
    interface Executable
    {
        void run() throws Throwable;
    }
}

package io.jdat.shm;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.Dat;
import io.jdat.DatException;
import io.jdat.DatReturnType;
import io.jdat.Lmr;
import io.jdat.LmrParam;
import io.jdat.MemPriv;
import io.jdat.MemType;
import io.jdat.RegionDescription;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Shared memory of the provider: its file, its cookie, and dat_lmr_create with DAT_MEM_TYPE_SHARED_VIRTUAL. */
class ShmMemoryTest
{
    @TempDir(factory = TestFiles.InShm.class)
    Path dir;

    private Path memoryDir()
    {
        return dir.resolve(ShmDirectory.MEMORY_DIR);
    }

    @Test
    void allocatedMemoryIsAFileOnlyItsUserReadsAndCloseRemovesIt() throws Exception
    {
        final ShmMemory m = ShmMemory.allocate(dir, 10_000);
        final Path file = memoryDir().resolve(ShmMemory.fileName(ProcessHandle.current().pid(), m.seq));
        assertTrue(Files.isRegularFile(file), file.toString());
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
        assertEquals(10_000, m.memory().byteSize());
        assertEquals(0, m.memory().address() % 4096, "page aligned");
        assertEquals(Dat.LMR_COOKIE_SIZE, m.cookie().length);
        m.close();
        assertFalse(Files.exists(file), "the creator's close removes the file");
        assertThrows(IllegalStateException.class, () -> m.memory().get(ValueLayout.JAVA_BYTE, 0));
    }

    @Test
    void theCookieOpensTheSameMemory()
    {
        try (ShmMemory m = ShmMemory.allocate(dir, 8192))
        {
            try (ShmMemory other = ShmMemory.open(dir, m.cookie()))
            {
                m.memory().set(ValueLayout.JAVA_LONG, 4096, 0x1234_5678_9ABC_DEF0L);
                assertEquals(0x1234_5678_9ABC_DEF0L, other.memory().get(ValueLayout.JAVA_LONG, 4096));
                assertArrayEquals(m.cookie(), other.cookie());
            }
            assertTrue(Files.exists(m.path), "closing a mapping that did not create the memory keeps the file");
            final byte[] forged = m.cookie();
            forged[16]++;
            assertThrows(IllegalArgumentException.class, () -> ShmMemory.open(dir, forged));
        }
    }

    @Test
    void aDeadCreatorsFileIsRemovedByTheNextAllocation() throws Exception
    {
        final Process gone = new ProcessBuilder(ProcessHandle.current().info().command().orElseThrow(), "-version")
            .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        assertTrue(gone.waitFor(30, java.util.concurrent.TimeUnit.SECONDS));
        Files.createDirectories(memoryDir(), PosixFilePermissions.asFileAttribute(
            PosixFilePermissions.fromString("rwx------")));
        final Path stale = memoryDir().resolve(ShmMemory.fileName(gone.pid(), 1));
        final ByteBuffer b = ByteBuffer.allocate((int) ShmMemory.HEADER + 4096).order(ByteOrder.nativeOrder());
        b.putLong(0, ShmMemory.MAGIC).putInt(8, ShmMemory.VERSION).putLong(16, gone.pid()).putLong(24, 0)
            .putLong(32, 4096);
        Files.write(stale, b.array());
        Files.setPosixFilePermissions(stale, PosixFilePermissions.fromString("rw-------"));
        try (ShmMemory m = ShmMemory.allocate(dir, 4096))
        {
            assertFalse(Files.exists(stale), "the file of a dead creator was removed");
            assertTrue(Files.exists(m.path));
        }
    }

    @Test
    void sharedVirtualRegistrationTakesSharedMemoryUnderItsCookieOnly()
    {
        try (ShmNode node = ShmNode.open(dir, "ia", ""); ShmMemory m = ShmMemory.allocate(dir, 1 << 20))
        {
            final MemorySegment part = m.memory().asSlice(4096, 65536);
            final Lmr lmr = node.ia.lmrCreate(MemType.SHARED_VIRTUAL, RegionDescription.forSharedMemory(part,
                m.cookie()), part.byteSize(), node.pz, MemPriv.ALL_FLAG);
            final LmrParam p = new LmrParam();
            lmr.query(LmrParam.FIELD_ALL, p);
            assertEquals(MemType.SHARED_VIRTUAL, p.memType);
            assertEquals(part.address(), lmr.registeredAddress());
            lmr.free();

            // dat_lmr_create: DAT_INVALID_STATE for memory the platform did not create as shared
            final MemorySegment ordinary = node.memory(65536);
            final DatException notShared = assertThrows(DatException.class, () -> node.ia.lmrCreate(
                MemType.SHARED_VIRTUAL, RegionDescription.forSharedMemory(ordinary, m.cookie()), 65536, node.pz,
                MemPriv.ALL_FLAG));
            assertEquals(DatReturnType.INVALID_STATE, notShared.status().type());
            final byte[] other = new byte[Dat.LMR_COOKIE_SIZE];
            final DatException wrongCookie = assertThrows(DatException.class, () -> node.ia.lmrCreate(
                MemType.SHARED_VIRTUAL, RegionDescription.forSharedMemory(part, other), part.byteSize(), node.pz,
                MemPriv.ALL_FLAG));
            assertEquals(DatReturnType.INVALID_STATE, wrongCookie.status().type());
        }
    }

    /**
     * A peer's memory file whose header and size agree but which this process cannot map (here a
     * sparse file larger than a process's address space) is this process's failure,
     * DAT_INSUFFICIENT_RESOURCES naming the file, which ends the connection as a local one; a file
     * whose header does not agree is the peer's, a framing error, as before.
     */
    @Test
    void aFileThatAgreesButCannotBeMappedIsALocalFailureNotThePeers() throws Exception
    {
        Files.createDirectories(memoryDir(), PosixFilePermissions.asFileAttribute(
            PosixFilePermissions.fromString("rwx------")));
        final int pid = (int) ProcessHandle.current().pid();
        final long huge = 1L << 50;
        final Path agrees = plant(pid, 900_001, huge, huge);
        final Path lies = plant(pid, 900_002, huge, 4096);
        final PeerMemories peer = new PeerMemories(dir);
        final DatException local = assertThrows(DatException.class, () -> peer.map(pid, 900_001));
        assertEquals(DatReturnType.INSUFFICIENT_RESOURCES, local.type());
        assertTrue(local.getMessage().contains(agrees.getFileName().toString()), local.getMessage());
        final Corrupt framing = assertThrows(Corrupt.class, () -> peer.map(pid, 900_002));
        assertTrue(framing.getMessage().contains("m-" + pid + "-900002"), framing.getMessage());
        assertTrue(Files.exists(lies));
    }

    /** A memory file m-PID-SEQ of {@code size} bytes after the header (sparse), its header saying {@code said}. */
    private Path plant(final int pid, final int seq, final long size, final long said) throws Exception
    {
        final Path file = memoryDir().resolve(ShmMemory.fileName(pid, seq));
        final ByteBuffer b = ByteBuffer.allocate(40).order(ByteOrder.nativeOrder());
        b.putLong(0, ShmMemory.MAGIC).putInt(8, ShmMemory.VERSION).putLong(16, pid).putLong(24, 0).putLong(32, said);
        try (java.nio.channels.FileChannel fc = java.nio.channels.FileChannel.open(file,
            java.nio.file.StandardOpenOption.CREATE_NEW, java.nio.file.StandardOpenOption.WRITE))
        {
            fc.write(b, 0);
            fc.write(ByteBuffer.allocate(1), ShmMemory.HEADER + size - 1);
        }
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        return file;
    }
}

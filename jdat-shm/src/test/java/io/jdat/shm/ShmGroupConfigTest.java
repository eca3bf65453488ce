package io.jdat.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.DatException;
import io.jdat.DatReturnType;
import io.jdat.EvdFlags;
import io.jdat.EventDispatcher;
import io.jdat.PspFlags;
import io.jdat.PublicServicePoint;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code group=} choice of one user alone: an unknown group is refused when the provider
 * starts, naming it; a root is shared one way within a process; and a root someone made for a
 * group is refused, naming it, by an IA that did not make the choice. Also
 * {@code any_qual_range=LO-HI}: {@code dat_psp_create_any} picks from it, and a range that is not
 * one (HI below LO) is refused when the provider starts, naming it, rather than failing each
 * {@code dat_psp_create_any} later.
 */
class ShmGroupConfigTest
{
    @TempDir(factory = TestFiles.InShm.class)
    Path dir;

    @Test
    void anUnknownGroupIsRefusedNamingIt()
    {
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> ShmNode.open(dir.resolve("root"), "a", "group=no-such-group-of-jdat").close());
        assertTrue(e.getMessage().contains("group=no-such-group-of-jdat"), e.getMessage());
        assertTrue(Files.notExists(dir.resolve("root")), "nothing was made");
    }

    @Test
    void aRootIsSharedOneWayInAProcess() throws Exception
    {
        final int gid = (Integer) Files.getAttribute(dir, "unix:gid");
        final Path root = dir.resolve("root");
        final ShmNode shared = ShmNode.open(root, "a", "group=" + gid);
        try
        {
            assertEquals(0770, (Integer) Files.getAttribute(root, "unix:mode") & 07777);
            final IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ShmNode.open(root, "b", "").close());
            assertTrue(e.getMessage().contains(root.toString()) && e.getMessage().contains("no group"),
                e.getMessage());
        }
        finally
        {
            shared.close();
        }
    }

    @Test
    void aGroupsRootIsRefusedWithoutTheChoice() throws Exception
    {
        final Path root = Files.createDirectory(dir.resolve("root"));
        Files.setAttribute(root, "unix:mode", 0770);
        final DatException e = assertThrows(DatException.class, () -> ShmNode.open(root, "a", "").close());
        assertEquals(DatReturnType.PRIVILEGES_VIOLATION, e.type(), e.toString());
        assertTrue(e.getMessage().contains(root.toString()) && e.getMessage().contains("0770"), e.getMessage());
    }

    @Test
    void pspCreateAnyPicksFromTheRange()
    {
        try (ShmNode n = ShmNode.open(dir.resolve("root"), "a", "any_qual_range=7100-7101"))
        {
            final EventDispatcher cr = n.evd(8, EvdFlags.CR_FLAG);
            final PublicServicePoint p = n.ia.pspCreateAny(cr, PspFlags.CONSUMER_FLAG);
            final PublicServicePoint q = n.ia.pspCreateAny(cr, PspFlags.CONSUMER_FLAG);
            assertTrue(p.connQual() >= 7100 && p.connQual() <= 7101 && p.connQual() + q.connQual() == 7100 + 7101,
                p.connQual() + ", " + q.connQual());
            assertEquals(DatReturnType.CONN_QUAL_UNAVAILABLE,
                assertThrows(DatException.class, () -> n.ia.pspCreateAny(cr, PspFlags.CONSUMER_FLAG)).type());
        }
    }

    @Test
    void aRangeDownwardsIsRefusedNamingIt()
    {
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> ShmNode.open(dir.resolve("root"), "a", "any_qual_range=7101-7100").close());
        assertTrue(e.getMessage().contains("any_qual_range=7101-7100"), e.getMessage());
    }
}

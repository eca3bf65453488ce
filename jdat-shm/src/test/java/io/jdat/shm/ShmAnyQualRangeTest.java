package io.jdat.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.DatException;
import io.jdat.DatReturnType;
import io.jdat.EventDispatcher;
import io.jdat.EvdFlags;
import io.jdat.PspFlags;
import io.jdat.PublicServicePoint;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code any_qual_range=LO-HI}: {@code dat_psp_create_any} picks from it, and a range that is
 * not one (HI below LO) is refused when the provider starts, naming it, rather than failing
 * each {@code dat_psp_create_any} later.
 */
class ShmAnyQualRangeTest
{
    private Path dir;

    @BeforeEach
    void dir()
    {
        dir = TestFiles.freshDir();
    }

    @AfterEach
    void clean()
    {
        TestFiles.delete(dir);
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

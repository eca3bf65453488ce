package io.jdat.engine;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.CloseFlags;
import io.jdat.Dat;
import io.jdat.EpAttr;
import io.jdat.EvdFlags;
import io.jdat.InterfaceAdapter;
import io.jdat.SrqAttr;
import io.jdat.registry.Registry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * DAT's {@code nonthreadsafe} attribute of a {@code dat.conf} entry reaches the queues of an IA
 * opened from it as {@link IaImpl#singleWriter}; a {@code threadsafe} entry's IA keeps the
 * atomic claims.
 */
class SingleWriterIaTest
{
    private Path file;

    @BeforeEach
    void conf() throws IOException
    {
        file = Files.createTempFile("jdat-", ".conf");
        Files.writeString(file, "sw-safe u1.2 threadsafe default loopback jdat.0.1 \"\" \"\"\n"
            + "sw-single u1.2 nonthreadsafe default loopback jdat.0.1 \"\" \"\"\n");
        System.setProperty(Registry.CONF_PROPERTY, file.toString());
        Registry.reload();
    }

    @AfterEach
    void restore() throws IOException
    {
        System.clearProperty(Registry.CONF_PROPERTY);
        Registry.reload();
        Files.deleteIfExists(file);
    }

    @Test
    void aNonthreadsafeEntryOpensASingleWriterIa()
    {
        final InterfaceAdapter ia = Dat.iaOpenv("sw-single", 8, null, Dat.VERSION_MAJOR, Dat.VERSION_MINOR, false);
        try
        {
            assertTrue(((IaImpl) ia).singleWriter);
            assertTrue(receiveQueueOf(ia).singleWriter(), "the receive queue claims atomically");
            assertTrue(epOf(ia).requests.singleWriter, "the send queue takes the endpoint lock atomically");
            assertTrue(srqOf(ia).singleWriter(), "the SRQ claims atomically");
        }
        finally
        {
            ia.close(CloseFlags.ABRUPT_FLAG);
        }
    }

    @Test
    void aThreadsafeEntryOpensAnIaWithAtomicClaims()
    {
        final InterfaceAdapter ia = Dat.iaOpen("sw-safe", 8, null);
        try
        {
            assertFalse(((IaImpl) ia).singleWriter);
            assertFalse(receiveQueueOf(ia).singleWriter(), "the receive queue claims without an atomic");
            assertFalse(epOf(ia).requests.singleWriter, "the send queue takes the endpoint lock without an atomic");
            assertFalse(srqOf(ia).singleWriter(), "the SRQ claims without an atomic");
        }
        finally
        {
            ia.close(CloseFlags.ABRUPT_FLAG);
        }
    }

    private static RecvQueue receiveQueueOf(final InterfaceAdapter ia)
    {
        return epOf(ia).recvs;
    }

    private static EpImpl epOf(final InterfaceAdapter ia)
    {
        final var pz = ia.pzCreate();
        final var evd = ia.evdCreate(4, null, EvdFlags.DTO_FLAG);
        return (EpImpl) ia.epCreate(pz, evd, evd, null, new EpAttr());
    }

    private static SrqImpl srqOf(final InterfaceAdapter ia)
    {
        final SrqAttr attr = new SrqAttr();
        attr.maxRecvDtos = 4;
        attr.maxRecvIov = 1;
        return (SrqImpl) ia.srqCreate(ia.pzCreate(), attr);
    }
}

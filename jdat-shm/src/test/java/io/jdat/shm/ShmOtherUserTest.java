package io.jdat.shm;

import static io.jdat.shm.ShmNode.SECOND;
import static io.jdat.shm.ShmNode.next;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.DatException;
import io.jdat.DatReturnType;
import io.jdat.EventDispatcher;
import io.jdat.EventNumber;
import io.jdat.EvdFlags;
import io.jdat.Lmr;
import io.jdat.MemPriv;
import io.jdat.MemType;
import io.jdat.PspFlags;
import io.jdat.Qos;
import io.jdat.RegionDescription;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/**
 * Another Unix user on the same host ({@link ShmStranger}, a second JVM run by {@code setpriv}
 * under a uid no account uses, so the host gains no user): a root it made before the provider, with
 * mode 0777, or a symbolic link it planted at the root's path, is refused by {@code dat_ia_open}
 * with DAT_PRIVILEGES_VIOLATION naming the path, and nothing lands where it could read it; and
 * beside a live server it can neither open an IA on the server's root (and so connect), nor list
 * it, read or write the listening file, a connection file with its rings or a shared memory file,
 * plant a file of its own, or map the registered shared memory; the server's honest client is
 * served afterwards. Needs root and setpriv (util-linux): skipped loudly without, a failure under
 * {@code JDAT_REQUIRE_TOOLS=1}.
 */
class ShmOtherUserTest
{
    private static OtherUser other;

    @BeforeAll
    static void stranger() throws IOException
    {
        other = OtherUser.prepare();
    }

    @AfterAll
    static void clean()
    {
        if (other != null)
        {
            other.close();
        }
    }

    /** Runs the stranger with {@code args}, in no group; its output lines. */
    private static List<String> stranger(final String... args)
    {
        return other.run(-1, args);
    }

    private static void refused(final Path path, final Executable action)
    {
        final DatException e = org.junit.jupiter.api.Assertions.assertThrows(DatException.class, action);
        assertEquals(DatReturnType.PRIVILEGES_VIOLATION, e.status().type(), e.toString());
        assertTrue(e.getMessage().contains(path.toString()), "the error names " + path + ": " + e.getMessage());
    }

    private static List<String> names(final Path dir) throws IOException
    {
        try (Stream<Path> s = Files.list(dir))
        {
            return s.map(p -> p.getFileName().toString()).toList();
        }
    }

    @Test
    void aRootAnotherUserMadeFirstIsRefused() throws IOException
    {
        final Path root = other.base.resolve("made-by-stranger");
        stranger("mkdir", root.toString());
        assertEquals(other.uid, Files.getAttribute(root, "unix:uid"));
        refused(root, () -> ShmNode.open(root, "srv", "").close());
        refused(root, () -> ShmMemory.allocate(root, 4096).close());
        assertEquals(List.of(), names(root), "nothing was created where the stranger can read it");
    }

    @Test
    void aLinkAnotherUserPlantedAtTheRootIsRefused() throws IOException
    {
        final Path root = other.base.resolve("planted-by-stranger");
        final Path theirs = other.base.resolve("strangers-own");
        stranger("link", root.toString(), theirs.toString());
        assertTrue(Files.isSymbolicLink(root));
        refused(root, () -> ShmNode.open(root, "srv", "").close());
        refused(root, () -> ShmMemory.allocate(root, 4096).close());
        assertEquals(List.of(), names(theirs), "nothing was created in the stranger's directory");
    }

    @Test
    void anotherUserCanNeitherConnectNorReadARingNorMapRegisteredMemory() throws IOException
    {
        final Path root = other.base.resolve("servers");
        try (ShmNode server = ShmNode.open(root, "srv", ""); ShmNode client = ShmNode.open(root, "cli", "");
            ShmMemory shared = ShmMemory.allocate(root, 65536))
        {
            final Lmr lmr = server.ia.lmrCreate(MemType.SHARED_VIRTUAL, RegionDescription.forSharedMemory(
                shared.memory(), shared.cookie()), 65536, server.pz, MemPriv.ALL_FLAG);
            final EventDispatcher crEvd = server.evd(8, EvdFlags.CR_FLAG);
            server.ia.pspCreate(4901, crEvd, PspFlags.CONSUMER_FLAG);
            final ShmNode.Ep c = client.ep(null);
            final ShmNode.Ep s = server.ep(null);
            c.ep().connect(server.address, 4901, 10 * SECOND, null, Qos.BEST_EFFORT, 0);
            // the request waits: its connection file, with both rings, has a name while it does
            final io.jdat.DatEvent request = next(crEvd, EventNumber.CONNECTION_REQUEST_EVENT);
            final Path srv = root.resolve("srv");
            final String ring = names(srv).stream().filter(n -> n.startsWith("c-")).findFirst().orElseThrow();
            final Path[] targets = {srv.resolve("l-4901"), srv.resolve(ring), shared.path};

            final List<String> out = stranger("attack", root.toString(), "srv", HexFormat.of().formatHex(
                shared.cookie()), targets[0].toString(), targets[1].toString(), targets[2].toString());
            final String all = String.join("\n", out);
            assertTrue(out.contains("LIST denied AccessDeniedException"), all);
            assertTrue(out.stream().anyMatch(l -> l.startsWith("IA_OPEN refused") && l.contains(root.toString())),
                "dat_ia_open on the server's root is refused, naming it: " + all);
            for (final Path t : targets)
            {
                assertTrue(out.contains("READ denied " + t + " AccessDeniedException"), all);
                assertTrue(out.contains("WRITE denied " + t + " AccessDeniedException"), all);
            }
            assertTrue(out.contains("PLANT denied AccessDeniedException"), all);
            assertTrue(out.stream().anyMatch(l -> l.startsWith("MAP refused") && l.contains(root.toString())),
                "mapping the registered memory by its cookie is refused: " + all);
            assertEquals(6 + 2 * targets.length, out.size(), "nothing else happened: " + all);
            assertTrue(names(srv).stream().noneMatch(n -> n.equals("c-1-1")));

            // the honest client is served
            request.crArrival.crHandle.accept(s.ep(), null);
            next(c.conn(), EventNumber.CONNECTION_EVENT_ESTABLISHED);
            next(s.conn(), EventNumber.CONNECTION_EVENT_ESTABLISHED);
            lmr.free();
        }
    }
}

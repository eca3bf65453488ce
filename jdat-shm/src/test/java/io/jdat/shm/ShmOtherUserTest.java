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
import io.jdat.testkit.RequiredTools;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
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
    /** A directory the stranger may write (sticky, as /dev/shm), holding the roots and its class path. */
    private static Path base;
    private static String classPath;
    private static int uid;

    @BeforeAll
    static void stranger() throws IOException
    {
        RequiredTools.require(RequiredTools.root(), "running as another user needs root");
        RequiredTools.require(RequiredTools.onPath("setpriv"), "setpriv is missing (apt-get install util-linux)");
        uid = unusedUid();
        base = Files.createTempDirectory("jdat-strangers-");
        Files.setAttribute(base, "unix:mode", 01777);
        // the stranger cannot read the test's own class path (under root's home): a copy it can
        final Path cp = Files.createDirectory(base.resolve("cp"));
        Files.setAttribute(cp, "unix:mode", 0755);
        final List<String> entries = new ArrayList<>();
        int n = 0;
        for (final String e : System.getProperty("java.class.path").split(java.io.File.pathSeparator))
        {
            if (!e.contains("jdat-") && !e.contains("jctools"))
            {
                continue;
            }
            final Path from = Path.of(e);
            final Path to = cp.resolve(n++ + "-" + from.getFileName());
            copy(from, to);
            entries.add(to.toString());
        }
        classPath = String.join(java.io.File.pathSeparator, entries);
    }

    @AfterAll
    static void clean()
    {
        TestFiles.delete(base);
    }

    private static int unusedUid() throws IOException
    {
        final Set<Integer> used = new HashSet<>();
        for (final String file : List.of("/etc/passwd", "/etc/group"))
        {
            for (final String line : Files.readAllLines(Path.of(file)))
            {
                final String[] f = line.split(":");
                if (f.length > 2)
                {
                    used.add(Integer.parseInt(f[2]));
                }
            }
        }
        int u = 61_337;
        while (used.contains(u))
        {
            u++;
        }
        return u;
    }

    private static void copy(final Path from, final Path to) throws IOException
    {
        try (Stream<Path> all = Files.walk(from))
        {
            for (final Path p : all.toList())
            {
                final Path t = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p))
                {
                    Files.createDirectories(t);
                    Files.setAttribute(t, "unix:mode", 0755);
                }
                else
                {
                    Files.copy(p, t);
                    Files.setAttribute(t, "unix:mode", 0644);
                }
            }
        }
    }

    /** Runs the stranger with {@code args}; its output lines. */
    private static List<String> stranger(final String... args)
    {
        final List<String> cmd = new ArrayList<>(List.of("setpriv", "--reuid=" + uid, "--regid=" + uid,
            "--clear-groups", ProcessHandle.current().info().command().orElseThrow(), "-XX:-UsePerfData",
            "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-cp", classPath, ShmStranger.class.getName()));
        cmd.addAll(List.of(args));
        try
        {
            final Process p = new ProcessBuilder(cmd).directory(base.toFile()).redirectErrorStream(true).start();
            final String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the stranger ended");
            final List<String> lines = out.lines().toList();
            assertEquals(0, p.exitValue(), "the stranger ran: " + out);
            assertEquals("UID " + uid, lines.get(0), "the stranger runs as uid " + uid + ": " + out);
            assertEquals("END", lines.get(lines.size() - 1), out);
            return lines;
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException(e);
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
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
        final Path root = base.resolve("made-by-stranger");
        stranger("mkdir", root.toString());
        assertEquals(uid, Files.getAttribute(root, "unix:uid"));
        refused(root, () -> ShmNode.open(root, "srv", "").close());
        refused(root, () -> ShmMemory.allocate(root, 4096).close());
        assertEquals(List.of(), names(root), "nothing was created where the stranger can read it");
    }

    @Test
    void aLinkAnotherUserPlantedAtTheRootIsRefused() throws IOException
    {
        final Path root = base.resolve("planted-by-stranger");
        final Path theirs = base.resolve("strangers-own");
        stranger("link", root.toString(), theirs.toString());
        assertTrue(Files.isSymbolicLink(root));
        refused(root, () -> ShmNode.open(root, "srv", "").close());
        refused(root, () -> ShmMemory.allocate(root, 4096).close());
        assertEquals(List.of(), names(theirs), "nothing was created in the stranger's directory");
    }

    @Test
    void anotherUserCanNeitherConnectNorReadARingNorMapRegisteredMemory() throws IOException
    {
        final Path root = base.resolve("servers");
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

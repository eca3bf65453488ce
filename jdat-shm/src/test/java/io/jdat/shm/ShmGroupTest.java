package io.jdat.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.DatCount;
import io.jdat.DatEvent;
import io.jdat.DatStatus;
import io.jdat.DtoStatus;
import io.jdat.EventDispatcher;
import io.jdat.EventNumber;
import io.jdat.EvdFlags;
import io.jdat.IaAttr;
import io.jdat.Lmr;
import io.jdat.LmrTriplet;
import io.jdat.PspFlags;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Sharing the shm directory with a group is a {@code dat.conf} choice ({@code group=NAME}): a
 * server that makes it makes its directories 0770 and its files 0660 with that group; another
 * user in the group ({@link OtherUser}, a uid and a gid no account or group of the host has) opens
 * an IA there with the same choice, connects and Sends; a user outside the group can neither open
 * an IA there, nor list it, read or write its files, plant one, or map its shared memory; and a
 * member whose IA does not make the choice is refused with DAT_PRIVILEGES_VIOLATION naming the
 * root. Needs root and setpriv: skipped loudly without.
 */
class ShmGroupTest
{
    private static final long WAIT = 60_000_000L;
    private static OtherUser other;
    private static int gid;

    @BeforeAll
    static void prepare() throws IOException
    {
        other = OtherUser.prepare();
        gid = OtherUser.unusedId(other.uid);
    }

    @AfterAll
    static void clean()
    {
        if (other != null)
        {
            other.close();
        }
    }

    private static DatEvent next(final EventDispatcher evd, final EventNumber expected)
    {
        final DatEvent ev = new DatEvent();
        assertEquals(DatStatus.SUCCESS, evd.wait(WAIT, 1, ev, new DatCount()), "no " + expected);
        assertTrue(ev.is(expected), "expected " + expected + ", got " + ev);
        return ev;
    }

    private static void madeForTheGroup(final Path path, final int mode) throws IOException
    {
        assertEquals(gid, Files.getAttribute(path, "unix:gid", LinkOption.NOFOLLOW_LINKS), path.toString());
        assertEquals(mode, (Integer) Files.getAttribute(path, "unix:mode", LinkOption.NOFOLLOW_LINKS) & 07777,
            path.toString());
    }

    @Test
    void aMemberOfTheGroupConnectsAndSends() throws Exception
    {
        final Path root = other.base.resolve("shared");
        try (ShmNode server = ShmNode.open(root, "srv", "group=" + gid))
        {
            final IaAttr attr = new IaAttr();
            server.ia.query(IaAttr.FIELD_ALL, attr, 0, null);
            assertEquals(Integer.toString(gid), attr.transportAttr("jdat.shm.group"));
            final EventDispatcher crEvd = server.evd(8, EvdFlags.CR_FLAG);
            server.ia.pspCreate(4902, crEvd, PspFlags.CONSUMER_FLAG);
            madeForTheGroup(root, 0770);
            madeForTheGroup(root.resolve("srv"), 0770);
            madeForTheGroup(root.resolve("srv").resolve("l-4902"), 0660);
            final ShmNode.Ep ep = server.ep(null);
            final Lmr lmr = server.lmr(4096);
            ep.ep().postRecv(1, new LmrTriplet[] {LmrTriplet.of(lmr, 0, 4096)}, 1, 0);

            final String text = "hello from a member";
            final CompletableFuture<List<String>> member = CompletableFuture.supplyAsync(() -> other.run(gid,
                "connect", root.toString(), Integer.toString(gid), "4902", text));
            next(crEvd, EventNumber.CONNECTION_REQUEST_EVENT).crArrival.crHandle.accept(ep.ep(), null);
            next(ep.conn(), EventNumber.CONNECTION_EVENT_ESTABLISHED);
            final DatEvent recv = next(ep.recv(), EventNumber.DTO_COMPLETION_EVENT);
            assertEquals(DtoStatus.SUCCESS, recv.dto.status, recv.toString());
            assertEquals(text, new String(lmr.memory().asSlice(0, recv.dto.transferredLength)
                .toArray(java.lang.foreign.ValueLayout.JAVA_BYTE), StandardCharsets.US_ASCII));
            final List<String> out = member.get(60, TimeUnit.SECONDS);
            final String all = String.join("\n", out);
            assertTrue(out.contains("CONNECT CONNECTION_EVENT_ESTABLISHED"), all);
            assertTrue(out.contains("SEND SUCCESS"), all);
            // what the member made is the group's too, and its own
            final Path made = root.resolve("member");
            madeForTheGroup(made, 0770);
            assertEquals(other.uid, Files.getAttribute(made, "unix:uid", LinkOption.NOFOLLOW_LINKS));
        }
    }

    @Test
    void aUserOutsideTheGroupAndAMemberWithoutTheChoiceAreRefused() throws Exception
    {
        final Path root = other.base.resolve("shared-2");
        try (ShmNode server = ShmNode.open(root, "srv", "group=" + gid);
            ShmMemory shared = ShmMemory.allocate(root, 65536))
        {
            server.ia.pspCreate(4903, server.evd(8, EvdFlags.CR_FLAG), PspFlags.CONSUMER_FLAG);
            final Path listener = root.resolve("srv").resolve("l-4903");
            madeForTheGroup(shared.path, 0660);
            final String cookie = HexFormat.of().formatHex(shared.cookie());

            final List<String> outsider = other.run(-1, "attack", root.toString(), "srv", cookie, listener.toString(),
                shared.path.toString());
            final String all = String.join("\n", outsider);
            assertTrue(outsider.stream().anyMatch(l -> l.startsWith("IA_OPEN refused") && l.contains(root.toString())),
                all);
            assertTrue(outsider.contains("LIST denied AccessDeniedException"), all);
            for (final Path t : List.of(listener, shared.path))
            {
                assertTrue(outsider.contains("READ denied " + t + " AccessDeniedException"), all);
                assertTrue(outsider.contains("WRITE denied " + t + " AccessDeniedException"), all);
            }
            assertTrue(outsider.contains("PLANT denied AccessDeniedException"), all);
            assertTrue(outsider.stream().anyMatch(l -> l.startsWith("MAP refused")), all);

            // outside the group, even with the choice made: refused, naming what it could not make
            final List<String> connect = other.run(-1, "connect", root.toString(), Integer.toString(gid), "4903", "x");
            assertTrue(connect.stream().anyMatch(l -> l.startsWith("IA_OPEN refused")
                && l.contains("PRIVILEGES_VIOLATION")
                && l.contains(root.toString())), String.join("\n", connect));

            // a member whose IA did not choose the group: the group's root (not its own, 0770) is refused, named
            final List<String> unchosen = other.run(gid, "attack", root.toString(), "srv", cookie);
            assertTrue(unchosen.stream().anyMatch(l -> l.startsWith("IA_OPEN refused")
                && l.contains("PRIVILEGES_VIOLATION") && l.contains(root.toString())), String.join("\n", unchosen));
        }
    }
}

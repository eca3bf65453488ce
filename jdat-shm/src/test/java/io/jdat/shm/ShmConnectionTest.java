package io.jdat.shm;

import static io.jdat.shm.ShmNode.SECOND;
import static io.jdat.shm.ShmNode.next;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.CloseFlags;
import io.jdat.ConnectionRequest;
import io.jdat.CrParam;
import io.jdat.DatEvent;
import io.jdat.DatException;
import io.jdat.DatReturnType;
import io.jdat.DtoStatus;
import io.jdat.EventDispatcher;
import io.jdat.EventNumber;
import io.jdat.EvdFlags;
import io.jdat.IaAddress;
import io.jdat.Lmr;
import io.jdat.LmrTriplet;
import io.jdat.PspFlags;
import io.jdat.PublicServicePoint;
import io.jdat.Qos;
import io.jdat.RmrTriplet;
import io.jdat.testkit.BytePattern;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Rendezvous, private data, data transfer and teardown between two shm IAs of one JVM. */
class ShmConnectionTest
{
    @TempDir(factory = TestFiles.InShm.class)
    Path dir;

    private static byte[] bytes(final String s)
    {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void connectAndAcceptCarryPrivateDataBothWays()
    {
        try (ShmNode server = ShmNode.open(dir, "srv", ""); ShmNode client = ShmNode.open(dir, "cli", ""))
        {
            final EventDispatcher crEvd = server.evd(8, EvdFlags.CR_FLAG);
            final PublicServicePoint psp = server.ia.pspCreate(4711, crEvd, PspFlags.CONSUMER_FLAG);
            final ShmNode.Ep c = client.ep(null);
            final ShmNode.Ep s = server.ep(null);
            c.ep().connect(IaAddress.named("srv"), 4711, 5 * SECOND, bytes("hello over shm"), Qos.BEST_EFFORT, 0);

            final DatEvent ev = next(crEvd, EventNumber.CONNECTION_REQUEST_EVENT);
            assertEquals(4711, ev.crArrival.connQual);
            final ConnectionRequest cr = ev.crArrival.crHandle;
            final CrParam p = new CrParam();
            cr.query(CrParam.FIELD_ALL, p);
            assertArrayEquals(bytes("hello over shm"), Arrays.copyOf(p.privateData, p.privateDataSize));
            assertEquals(IaAddress.named("cli"), p.remoteIaAddress);
            assertTrue(p.remotePortQual != 0, "the active side's port qualifier is reported");

            cr.accept(s.ep(), bytes("welcome"));
            final DatEvent up = next(c.conn(), EventNumber.CONNECTION_EVENT_ESTABLISHED);
            assertArrayEquals(bytes("welcome"),
                Arrays.copyOf(up.connection.privateData, up.connection.privateDataSize));
            next(s.conn(), EventNumber.CONNECTION_EVENT_ESTABLISHED);
            psp.free();
        }
    }

    @Test
    void rejectedRequestIsAPeerRejection()
    {
        try (ShmNode server = ShmNode.open(dir, "srv", ""); ShmNode client = ShmNode.open(dir, "cli", ""))
        {
            final EventDispatcher crEvd = server.evd(8, EvdFlags.CR_FLAG);
            server.ia.pspCreate(4711, crEvd, PspFlags.CONSUMER_FLAG);
            final ShmNode.Ep c = client.ep(null);
            c.ep().connect(server.address, 4711, 5 * SECOND, bytes("let me in"), Qos.BEST_EFFORT, 0);
            final ConnectionRequest cr = next(crEvd, EventNumber.CONNECTION_REQUEST_EVENT).crArrival.crHandle;
            final CrParam p = new CrParam();
            cr.query(CrParam.FIELD_ALL, p);
            assertArrayEquals(bytes("let me in"), Arrays.copyOf(p.privateData, p.privateDataSize));
            cr.reject();
            next(c.conn(), EventNumber.CONNECTION_EVENT_PEER_REJECTED);
            assertEquals(java.util.List.of("l-4711"), TestFiles.files(dir.resolve("srv")),
                "the attempt's connection file is gone");
        }
    }

    @Test
    void qualifierNobodyListensOnIsANonPeerRejection()
    {
        try (ShmNode server = ShmNode.open(dir, "srv", ""); ShmNode client = ShmNode.open(dir, "cli", ""))
        {
            final ShmNode.Ep c = client.ep(null);
            c.ep().connect(server.address, 4799, 5 * SECOND, null, Qos.BEST_EFFORT, 0);
            next(c.conn(), EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED);
        }
    }

    @Test
    void addressNoProcessEverOpenedIsUnreachable()
    {
        try (ShmNode client = ShmNode.open(dir, "cli", ""))
        {
            final ShmNode.Ep c = client.ep(null);
            c.ep().connect(IaAddress.named("nobody-here"), 1, 5 * SECOND, null, Qos.BEST_EFFORT, 0);
            next(c.conn(), EventNumber.CONNECTION_EVENT_UNREACHABLE);
            final DatException e = assertThrows(DatException.class, () -> client.ep(null).ep().connect(
                IaAddress.named("bad/name"), 1, 5 * SECOND, null, Qos.BEST_EFFORT, 0));
            assertEquals(DatReturnType.INVALID_ADDRESS, e.status().type());
        }
    }

    @Test
    void processesOnOneAddressShareItsQualifiers()
    {
        try (ShmNode a = ShmNode.open(dir, "srv", ""); ShmNode b = ShmNode.open(dir, "srv", ""))
        {
            final EventDispatcher evdA = a.evd(8, EvdFlags.CR_FLAG);
            final PublicServicePoint psp = a.ia.pspCreate(4711, evdA, PspFlags.CONSUMER_FLAG);
            final EventDispatcher evdB = b.evd(8, EvdFlags.CR_FLAG);
            final DatException e = assertThrows(DatException.class,
                () -> b.ia.pspCreate(4711, evdB, PspFlags.CONSUMER_FLAG));
            assertEquals(DatReturnType.CONN_QUAL_IN_USE, e.status().type());
            psp.free();
            b.ia.pspCreate(4711, evdB, PspFlags.CONSUMER_FLAG).free();
        }
    }

    @Test
    void listeningFileOfADeadProcessIsRemovedAndNeverTrusted() throws Exception
    {
        final Process gone = new ProcessBuilder(ProcessHandle.current().info().command().orElseThrow(), "-version")
            .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        assertTrue(gone.waitFor(30, java.util.concurrent.TimeUnit.SECONDS));
        try (ShmNode server = ShmNode.open(dir, "srv", ""); ShmNode client = ShmNode.open(dir, "cli", ""))
        {
            final Path fake = dir.resolve("srv").resolve("l-4713");
            Planted.listener(fake, gone.pid(), 0, 4713);
            final ShmNode.Ep c = client.ep(null);
            c.ep().connect(server.address, 4713, 5 * SECOND, null, Qos.BEST_EFFORT, 0);
            next(c.conn(), EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED);
            assertFalse(Files.exists(fake), "the stale listening file was removed");

            Planted.listener(fake, gone.pid(), 0, 4713);
            final EventDispatcher crEvd = server.evd(8, EvdFlags.CR_FLAG);
            server.ia.pspCreate(4713, crEvd, PspFlags.CONSUMER_FLAG);
            final ShmNode.Ep c2 = client.ep(null);
            c2.ep().connect(server.address, 4713, 5 * SECOND, null, Qos.BEST_EFFORT, 0);
            next(crEvd, EventNumber.CONNECTION_REQUEST_EVENT);
        }
    }

    @Test
    void sendWriteAndReadSpanManyRecordsAndWrapTheRing()
    {
        // 16 KiB rings: records carry at most 4 KiB - 48, so every message is cut and the ring wraps often
        try (ShmNode server = ShmNode.open(dir, "srv", "ring_size=16384");
            ShmNode client = ShmNode.open(dir, "cli", "ring_size=16384"))
        {
            final ShmNode.Ep[] pair = ShmNode.connect(client, server, 4711);
            final ShmNode.Ep c = pair[0];
            final ShmNode.Ep s = pair[1];
            final int size = 100_000;
            final Lmr cm = client.lmr(4 * size);
            final Lmr sm = server.lmr(4 * size);
            for (int round = 0; round < 5; round++)
            {
                final int len = size - round * 7919;
                s.ep().postRecv(1, new LmrTriplet[] {LmrTriplet.of(sm, 0, size)}, 100 + round, 0);
                BytePattern.fill(cm.memory(), 0, len, round);
                c.ep().postSend(2, new LmrTriplet[] {LmrTriplet.of(cm, 0, len / 2), LmrTriplet.of(cm, len / 2,
                    len - len / 2)}, 200 + round, 0);
                final DatEvent recv = next(s.recv(), EventNumber.DTO_COMPLETION_EVENT);
                assertEquals(DtoStatus.SUCCESS, recv.dto.status);
                assertEquals(100 + round, recv.dto.userCookie);
                assertEquals(len, recv.dto.transferredLength);
                assertEquals(-1, BytePattern.mismatch(sm.memory(), 0, len, round), "Send data in the receive buffer");
                final DatEvent sent = next(c.req(), EventNumber.DTO_COMPLETION_EVENT);
                assertEquals(DtoStatus.SUCCESS, sent.dto.status);
                assertEquals(200 + round, sent.dto.userCookie);
            }

            BytePattern.fill(cm.memory(), size, size, 77);
            c.ep().postRdmaWrite(1, new LmrTriplet[] {LmrTriplet.of(cm, size, size)}, 300,
                new RmrTriplet(sm.rmrContext(), sm.registeredAddress() + 2L * size, size), 0);
            assertEquals(DtoStatus.SUCCESS, next(c.req(), EventNumber.DTO_COMPLETION_EVENT).dto.status);
            assertEquals(-1, BytePattern.mismatch(sm.memory(), 2L * size, size, 77), "RDMA Write data at the target");

            BytePattern.fill(sm.memory(), 3L * size, size, 78);
            c.ep().postRdmaRead(1, new LmrTriplet[] {LmrTriplet.of(cm, 3L * size, size)}, 400,
                new RmrTriplet(sm.rmrContext(), sm.registeredAddress() + 3L * size, size), 0);
            final DatEvent read = next(c.req(), EventNumber.DTO_COMPLETION_EVENT);
            assertEquals(DtoStatus.SUCCESS, read.dto.status);
            assertEquals(400, read.dto.userCookie);
            assertEquals(-1, BytePattern.mismatch(cm.memory(), 3L * size, size, 78), "RDMA Read data in the sink");
        }
    }

    @Test
    void gracefulDisconnectEndsBothSidesAndLeavesNoFiles()
    {
        try (ShmNode server = ShmNode.open(dir, "srv", ""); ShmNode client = ShmNode.open(dir, "cli", ""))
        {
            final ShmNode.Ep[] pair = ShmNode.connect(client, server, 4711);
            final Lmr sm = server.lmr(4096);
            pair[1].ep().postRecv(1, new LmrTriplet[] {LmrTriplet.of(sm, 0, 4096)}, 1, 0);
            pair[0].ep().disconnect(CloseFlags.GRACEFUL_FLAG);
            next(pair[0].conn(), EventNumber.CONNECTION_EVENT_DISCONNECTED);
            next(pair[1].conn(), EventNumber.CONNECTION_EVENT_DISCONNECTED);
            final DatEvent flushed = next(pair[1].recv(), EventNumber.DTO_COMPLETION_EVENT);
            assertEquals(DtoStatus.ERR_FLUSHED, flushed.dto.status);
            assertEquals(java.util.List.of(), TestFiles.files(dir.resolve("srv")));
            assertEquals(java.util.List.of(), TestFiles.files(dir.resolve("cli")));
        }
    }

    @Test
    void ioThreadIsNamedAndEndsWithTheIa()
    {
        final ShmNode node = ShmNode.open(dir, "srv", "");
        final java.util.List<Thread> threads = node.provider().liveThreads();
        assertEquals(1, threads.size(), threads.toString());
        final Thread io = threads.get(0);
        assertTrue(io.getName().matches("jdat-shm-" + node.name + "-\\d+-io"), io.getName());
        node.close();
        assertFalse(io.isAlive(), "the I/O thread ended with the IA");
    }
}

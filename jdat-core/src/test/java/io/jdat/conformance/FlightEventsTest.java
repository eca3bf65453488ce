package io.jdat.conformance;

import static io.jdat.conformance.Fixture.SECOND;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.CompletionFlags;
import io.jdat.DatEvent;
import io.jdat.EpAttr;
import io.jdat.EventDispatcher;
import io.jdat.EventNumber;
import io.jdat.EvdFlags;
import io.jdat.Lmr;
import io.jdat.LmrTriplet;
import io.jdat.Qos;
import io.jdat.engine.channel.TerminateCodes;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A flight recording of loopback connections holds what an operator asks about afterwards: the
 * connections established (both sides), the one nobody listened for, the one a Send without a
 * receive buffer broke (the Terminate on both sides, with its DDP codes) and the EVD that
 * overflowed.
 */
class FlightEventsTest
{
    @Test
    void aRecordingHoldsEstablishedRejectedBrokenAndOverflow(@TempDir final Path dir) throws Exception
    {
        final List<RecordedEvent> events;
        try (Recording recording = new Recording())
        {
            for (final String name : List.of("ConnectionEstablished", "ConnectionRejected", "ConnectionBroken",
                "EvdOverflow", "PeerDeath"))
            {
                recording.enable("io.jdat." + name);
            }
            recording.start();
            try (Fixture f = new Fixture())
            {
                // established, then broken: a Send the server has no buffer for
                final Fixture.Ep[] pair = f.connectedPair(new EpAttr());
                final Lmr src = f.lmr(64);
                pair[0].ep().postSend(1, new LmrTriplet[] {LmrTriplet.of(src, 0, 64)}, 1,
                    CompletionFlags.DEFAULT_FLAG);
                assertTrue(Fixture.next(pair[0].conn()).is(EventNumber.CONNECTION_EVENT_BROKEN));
                assertTrue(Fixture.next(pair[1].conn()).is(EventNumber.CONNECTION_EVENT_BROKEN));

                // rejected: nobody listens on this qualifier
                final Fixture.Ep lonely = f.ep(new EpAttr());
                lonely.ep().connect(f.address, 65_001, 5 * SECOND, null, Qos.BEST_EFFORT, 0);
                final DatEvent refused = Fixture.next(lonely.conn());
                assertTrue(refused.is(EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED), refused.toString());

                // overflow: more completions than the request EVD holds, none dequeued
                final EventDispatcher small = f.evd(2, EvdFlags.DTO_FLAG);
                final EpAttr deep = new EpAttr();
                deep.maxRequestDtos = 16;
                deep.maxRecvDtos = 16;
                final Fixture.Ep client = new Fixture.Ep(f.ia.epCreate(f.pz, null, small, f.evd(8,
                    EvdFlags.CONNECTION_FLAG), deep), null, small, null);
                final Fixture.Ep server = f.ep(deep);
                final Lmr sink = f.lmr(16 * 64);
                for (int i = 0; i < 8; i++)
                {
                    server.ep().postRecv(1, new LmrTriplet[] {LmrTriplet.of(sink, i * 64L, 64)}, i,
                        CompletionFlags.DEFAULT_FLAG);
                }
                final EventDispatcher crEvd = f.evd(4, EvdFlags.CR_FLAG);
                final var psp = f.ia.pspCreateAny(crEvd, io.jdat.PspFlags.CONSUMER_FLAG);
                client.ep().connect(f.address, psp.connQual(), 5 * SECOND, null, Qos.BEST_EFFORT, 0);
                Fixture.next(crEvd).crArrival.crHandle.accept(server.ep(), null);
                assertTrue(Fixture.next(server.conn()).is(EventNumber.CONNECTION_EVENT_ESTABLISHED));
                for (int i = 0; i < 8; i++)
                {
                    client.ep().postSend(1, new LmrTriplet[] {LmrTriplet.of(src, 0, 64)}, i,
                        CompletionFlags.DEFAULT_FLAG);
                }
                for (int i = 0; i < 8; i++)
                {
                    Fixture.next(server.recv());
                }
                final DatEvent async = Fixture.next(f.asyncEvd);
                assertTrue(async.is(EventNumber.ASYNC_ERROR_EVD_OVERFLOW), async.toString());
            }
            recording.stop();
            final Path file = dir.resolve("jdat.jfr");
            recording.dump(file);
            assertTrue(Files.size(file) > 0);
            events = RecordingFile.readAllEvents(file);
        }
        final String all = events.stream().map(RecordedEvent::toString).collect(Collectors.joining("\n"));

        final List<RecordedEvent> established = named(events, "io.jdat.ConnectionEstablished");
        // the broken pair and the overflow pair, each side
        assertEquals(4, established.size(), all);
        assertEquals(2, established.stream().filter(e -> "active".equals(e.getString("side"))).count(), all);

        final List<RecordedEvent> rejected = named(events, "io.jdat.ConnectionRejected");
        assertEquals(1, rejected.size(), all);
        assertEquals("CONNECTION_EVENT_NON_PEER_REJECTED", rejected.get(0).getString("event"));
        assertEquals(65_001, rejected.get(0).getLong("remotePortQual"));

        final List<RecordedEvent> broken = named(events, "io.jdat.ConnectionBroken");
        assertEquals(2, broken.size(), all);
        final RecordedEvent sent = only(broken, "terminate-sent", all);
        final RecordedEvent received = only(broken, "terminate-received", all);
        for (final RecordedEvent e : List.of(sent, received))
        {
            assertEquals(TerminateCodes.LAYER_DDP, e.getInt("terminateLayer"), all);
            assertEquals(TerminateCodes.DDP_UNTAGGED_BUFFER, e.getInt("terminateErrorType"), all);
            assertEquals(TerminateCodes.DDP_UNTAGGED_INVALID_MSN_NO_BUFFER, e.getInt("terminateErrorCode"), all);
        }

        final List<RecordedEvent> overflow = named(events, "io.jdat.EvdOverflow");
        assertEquals(1, overflow.size(), all);
        assertEquals(2, overflow.get(0).getInt("qlen"), all);
    }

    private static List<RecordedEvent> named(final List<RecordedEvent> events, final String name)
    {
        return events.stream().filter(e -> e.getEventType().getName().equals(name)).toList();
    }

    private static RecordedEvent only(final List<RecordedEvent> broken, final String reason, final String all)
    {
        final List<RecordedEvent> matching = broken.stream().filter(e -> reason.equals(e.getString("reason")))
            .toList();
        assertEquals(1, matching.size(), reason + " in\n" + all);
        return matching.get(0);
    }
}

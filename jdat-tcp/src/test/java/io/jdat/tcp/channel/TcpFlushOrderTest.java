package io.jdat.tcp.channel;

import static io.jdat.tcp.channel.TcpNode.next;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.DatEvent;
import io.jdat.DtoStatus;
import io.jdat.EventDispatcher;
import io.jdat.EventNumber;
import io.jdat.EvdFlags;
import io.jdat.Lmr;
import io.jdat.LmrTriplet;
import io.jdat.PspFlags;
import io.jdat.PublicServicePoint;
import io.jdat.RmrTriplet;
import io.jdat.engine.channel.RdmapOpcode;
import io.jdat.tcp.Mpa;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/**
 * Completions come in posting order, and once one is an error every later one is too
 * (dat_ep_disconnect; digest §3.4): an RDMA Read the peer never answers, then Sends the kernel
 * took at once, then the peer resets the connection. The Read is flushed, and so are the Sends
 * behind it, although their bytes left; before the fix they completed SUCCESS after the flushed
 * Read.
 */
class TcpFlushOrderTest
{
    @Test
    void requestsBehindAFlushedReadAreFlushedTooThoughTheirBytesLeft() throws Exception
    {
        try (TcpNode node = TcpNode.open())
        {
            final EventDispatcher crEvd = node.evd(8, EvdFlags.CR_FLAG);
            final PublicServicePoint psp = node.ia.pspCreateAny(crEvd, PspFlags.CONSUMER_FLAG);
            final TcpNode.Ep ep = node.ep(null);
            final Lmr lmr = node.lmr(1 << 16);
            try (RawPeer raw = RawPeer.connect(psp.connQual()))
            {
                raw.write(RawPeer.frame(true, Mpa.FLAG_ENHANCED, Mpa.REVISION_2, Mpa.IrdOrd.of(1, 1), null));
                next(crEvd, EventNumber.CONNECTION_REQUEST_EVENT).crArrival.crHandle.accept(ep.ep(), null);
                next(ep.conn(), EventNumber.CONNECTION_EVENT_ESTABLISHED);
                raw.readFrame(false);
                // RFC 5044: the responder speaks after the initiator's first FPDU; a zero-length Write
                raw.send(RawMessage.write(0, 0, new byte[0]));

                ep.ep().postRdmaRead(1, new LmrTriplet[] {LmrTriplet.of(lmr, 0, 100)}, 1,
                    new RmrTriplet(0x1234_5601, 0x10_0000, 100), 0);
                ep.ep().postSend(1, new LmrTriplet[] {LmrTriplet.of(lmr, 4096, 10)}, 2, 0);
                ep.ep().postSend(1, new LmrTriplet[] {LmrTriplet.of(lmr, 8192, 10)}, 3, 0);
                // the peer got all three: the Sends' bytes left, their completions wait behind the Read
                assertEquals(RdmapOpcode.RDMA_READ_REQUEST, RawPeer.opcode(raw.readFpdu()));
                final ByteBuffer first = raw.readFpdu();
                final ByteBuffer second = raw.readFpdu();
                assertEquals(RdmapOpcode.SEND, RawPeer.opcode(first));
                assertEquals(RdmapOpcode.SEND, RawPeer.opcode(second));
                assertTrue(TcpNode.quiet(ep.req(), 100), "nothing completes before the Read");

                // a reset breaks the connection with the Read unanswered
                raw.socket.setSoLinger(true, 0);
            }
            next(ep.conn(), EventNumber.CONNECTION_EVENT_BROKEN);
            for (long cookie = 1; cookie <= 3; cookie++)
            {
                final DatEvent ev = next(ep.req(), EventNumber.DTO_COMPLETION_EVENT);
                assertEquals(cookie, ev.dto.userCookie, ev.toString());
                assertEquals(DtoStatus.ERR_FLUSHED, ev.dto.status, ev.toString());
            }
            assertTrue(TcpNode.quiet(ep.req(), 100), "each request completes once");
        }
    }
}

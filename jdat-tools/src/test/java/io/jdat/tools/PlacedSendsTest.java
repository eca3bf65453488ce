package io.jdat.tools;

import static io.jdat.tools.ConnectedPair.next;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jdat.CloseFlags;
import io.jdat.CompletionFlags;
import io.jdat.DatEvent;
import io.jdat.DtoStatus;
import io.jdat.EventNumber;
import io.jdat.Lmr;
import io.jdat.LmrTriplet;
import io.jdat.MemPriv;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Where the provider knows that the peer placed a Send (loopback and shm: their channels report
 * a message sent once the peer's engine has it), an abrupt disconnect that follows does not turn
 * it into DAT_DTO_ERR_FLUSHED: every Send the peer received completes SUCCESS, so a consumer that
 * resends flushed Sends duplicates nothing. (tcp reports a Send when the kernel took its bytes,
 * and its FLUSHED may have been delivered: docs/dat-mapping.md.) ShmAbruptDisconnectTest shows
 * on shm that what is flushed is never placed.
 */
class PlacedSendsTest
{
    private static final int SENDS = 16;
    private static final int LEN = 64;
    private static final int ROUNDS = 10;

    @ParameterizedTest
    @ValueSource(strings = {"loopback", "shm"})
    void sendsThePeerPlacedCompleteSuccessfullyDespiteAnAbruptDisconnect(final String provider)
    {
        for (int round = 0; round < ROUNDS; round++)
        {
            try (ConnectedPair p = new ConnectedPair(provider, null))
            {
                final Lmr source = p.lmr(SENDS * LEN, MemPriv.ALL_FLAG);
                final Lmr sink = p.lmr(SENDS * LEN, MemPriv.ALL_FLAG);
                for (int i = 0; i < SENDS * LEN; i++)
                {
                    source.memory().set(ValueLayout.JAVA_BYTE, i, (byte) (i * 13 + round));
                }
                for (int i = 0; i < SENDS; i++)
                {
                    p.server.postRecv(1, new LmrTriplet[] {LmrTriplet.of(sink, (long) i * LEN, LEN)}, i,
                        CompletionFlags.DEFAULT_FLAG);
                }
                for (int i = 0; i < SENDS; i++)
                {
                    p.client.postSend(1, new LmrTriplet[] {LmrTriplet.of(source, (long) i * LEN, LEN)}, i,
                        CompletionFlags.DEFAULT_FLAG);
                }
                for (int i = 0; i < SENDS; i++)
                {
                    final DatEvent recv = next(p.serverRecv, EventNumber.DTO_COMPLETION_EVENT);
                    assertEquals(DtoStatus.SUCCESS, recv.dto.status, recv.toString());
                }
                // the peer has every Send: the disconnect comes before the sender looked
                p.client.disconnect(CloseFlags.ABRUPT_FLAG);
                for (int i = 0; i < SENDS; i++)
                {
                    final DatEvent sent = next(p.clientReq, EventNumber.DTO_COMPLETION_EVENT);
                    assertEquals(i, sent.dto.userCookie);
                    assertEquals(DtoStatus.SUCCESS, sent.dto.status,
                        "round " + round + ", Send " + i + ", which the peer placed: " + sent);
                }
                next(p.clientConn, EventNumber.CONNECTION_EVENT_DISCONNECTED);
                next(p.serverConn, EventNumber.CONNECTION_EVENT_DISCONNECTED);
                assertEquals(-1, sink.memory().mismatch(source.memory()), "the bytes of the Sends");
            }
        }
    }
}

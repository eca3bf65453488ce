package io.jdat.tools;

import static io.jdat.tools.ConnectedPair.empty;
import static io.jdat.tools.ConnectedPair.next;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.jdat.CompletionFlags;
import io.jdat.DatEvent;
import io.jdat.DatException;
import io.jdat.DatReturnSubtype;
import io.jdat.DatReturnType;
import io.jdat.DtoStatus;
import io.jdat.EventNumber;
import io.jdat.Lmr;
import io.jdat.LmrTriplet;
import io.jdat.MemPriv;
import io.jdat.RmrTriplet;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The local triplets of a Send or an RDMA Write are read: their LMR needs
 * DAT_MEM_PRIV_LOCAL_READ_FLAG, else the post fails with DAT_PRIVILEGES_VIOLATION and nothing
 * leaves (dat_ep_post_send, dat_ep_post_rdma_write). LOCAL_WRITE does not stand in for it (the
 * choice named in docs/dat-mapping.md). The sink of an RDMA Read needs LOCAL_WRITE. On every
 * provider.
 */
class LocalReadPrivilegeTest
{
    private static final int LEN = 64;
    /** Every privilege set without local read. */
    private static final int[] NO_LOCAL_READ = {MemPriv.NONE_FLAG, MemPriv.LOCAL_WRITE_FLAG,
        MemPriv.LOCAL_WRITE_FLAG | MemPriv.REMOTE_READ_FLAG | MemPriv.REMOTE_WRITE_FLAG};

    @ParameterizedTest
    @ValueSource(strings = {"loopback", "tcp", "shm"})
    void aSourceWithoutLocalReadIsRefusedAndNothingLeaves(final String provider)
    {
        try (ConnectedPair p = new ConnectedPair(provider, null))
        {
            final Lmr sink = p.lmr(2 * LEN, MemPriv.ALL_FLAG);
            final RmrTriplet remote = new RmrTriplet(sink.rmrContext(), sink.registeredAddress() + LEN, LEN);
            p.server.postRecv(1, new LmrTriplet[] {LmrTriplet.of(sink, 0, LEN)}, 1, CompletionFlags.DEFAULT_FLAG);

            long cookie = 100;
            for (final int privileges : NO_LOCAL_READ)
            {
                final Lmr source = p.lmr(LEN, privileges);
                source.memory().fill((byte) 0x11);
                final LmrTriplet[] iov = {LmrTriplet.of(source, 0, LEN)};
                final String what = "privileges 0x" + Integer.toHexString(privileges);
                refused(DatReturnSubtype.PRIVILEGES_READ, what + ", dat_ep_post_send",
                    () -> p.client.postSend(1, iov, 1, CompletionFlags.DEFAULT_FLAG));
                refused(DatReturnSubtype.PRIVILEGES_READ, what + ", dat_ep_post_send with solicited wait",
                    () -> p.client.postSend(1, iov, 2, CompletionFlags.SOLICITED_WAIT_FLAG));
                refused(DatReturnSubtype.PRIVILEGES_READ, what + ", dat_ep_post_rdma_write",
                    () -> p.client.postRdmaWrite(1, iov, 3, remote, CompletionFlags.DEFAULT_FLAG));
                // the segment with no local read may come after one that has it
                final Lmr good = p.lmr(LEN, MemPriv.LOCAL_READ_FLAG);
                final LmrTriplet[] mixed = {LmrTriplet.of(good, 0, LEN / 2), LmrTriplet.of(source, 0, LEN / 2)};
                refused(DatReturnSubtype.PRIVILEGES_READ, what + ", dat_ep_post_send, second segment",
                    () -> p.client.postSend(2, mixed, 4, CompletionFlags.DEFAULT_FLAG));
                cookie++;
            }

            // an RDMA Read's sink is written: LOCAL_READ alone is not enough there
            final Lmr readOnly = p.lmr(LEN, MemPriv.LOCAL_READ_FLAG);
            refused(DatReturnSubtype.PRIVILEGES_WRITE, "dat_ep_post_rdma_read into a LOCAL_READ sink",
                () -> p.client.postRdmaRead(1, new LmrTriplet[] {LmrTriplet.of(readOnly, 0, LEN)}, 5, remote,
                    CompletionFlags.DEFAULT_FLAG));

            // nothing of the refused posts left: the first Send to arrive is this one, from
            // LOCAL_READ-only memory, and the RDMA Write target (ordered before it) is untouched
            readOnly.memory().fill((byte) 0x5A);
            p.client.postSend(1, new LmrTriplet[] {LmrTriplet.of(readOnly, 0, LEN)}, cookie,
                CompletionFlags.DEFAULT_FLAG);
            final DatEvent sent = next(p.clientReq, EventNumber.DTO_COMPLETION_EVENT);
            assertEquals(DtoStatus.SUCCESS, sent.dto.status, sent.toString());
            assertEquals(cookie, sent.dto.userCookie, "the only request that completes is the allowed Send");
            final DatEvent recv = next(p.serverRecv, EventNumber.DTO_COMPLETION_EVENT);
            assertEquals(DtoStatus.SUCCESS, recv.dto.status, recv.toString());
            assertEquals(LEN, recv.dto.transferredLength);
            assertEquals(-1, sink.memory().asSlice(0, LEN).mismatch(readOnly.memory()), "the allowed Send's bytes");
            assertEquals(-1, sink.memory().asSlice(LEN, LEN).mismatch(MemorySegment.ofArray(new byte[LEN])),
                "the RDMA Write target");
            empty(p.clientReq, "no completion of a refused post");
            empty(p.serverRecv, "nothing else arrived");
        }
    }

    private static void refused(final DatReturnSubtype subtype, final String what, final Executable post)
    {
        final DatException e = assertThrows(DatException.class, post, what);
        assertEquals(DatReturnType.PRIVILEGES_VIOLATION, e.type(), what + ": " + e.getMessage());
        assertEquals(subtype, e.subtype(), what + ": " + e.getMessage());
    }
}

package io.jdat.engine;

import io.jdat.DatException;
import io.jdat.InterfaceAdapter;
import io.jdat.Lmr;
import io.jdat.LmrTriplet;
import io.jdat.ProtectionZone;
import io.jdat.SrqAttr;
import io.jdat.SrqParam;

/**
 * One shared receive queue driven as its endpoints drive it, with no endpoint behind it: posts
 * ({@code dat_srq_post_recv}), takes (an endpoint's placer takes the next buffer for a message),
 * reaps (the consumer dequeued a taken buffer's completion) and resizes. The operations of the
 * SRQ's concurrency proofs.
 */
public final class SrqHarness
{
    private final SrqImpl srq;
    private final LmrTriplet[] iov;
    private final LmrTriplet[] bad;

    /** An SRQ of {@code ia} with {@code maxRecvDtos}; receives name {@code lmr}'s first 8 bytes. */
    public SrqHarness(final InterfaceAdapter ia, final ProtectionZone pz, final Lmr lmr, final int maxRecvDtos)
    {
        final SrqAttr attr = new SrqAttr();
        attr.maxRecvDtos = maxRecvDtos;
        attr.maxRecvIov = 1;
        srq = (SrqImpl) ia.srqCreate(pz, attr);
        iov = new LmrTriplet[] {LmrTriplet.of(lmr, 0, 8)};
        bad = new LmrTriplet[] {new LmrTriplet(0x7fff_fff1, 0, 8)};
    }

    /** dat_srq_post_recv: "SUCCESS" or the error's type; a negative cookie posts a triplet no LMR backs. */
    public String post(final int cookie)
    {
        try
        {
            srq.postRecv(1, cookie < 0 ? bad : iov, cookie);
            return "SUCCESS";
        }
        catch (final DatException e)
        {
            return e.type().name();
        }
    }

    /** An endpoint takes the next buffer into {@code into}: its cookie, or -1 if none is posted. */
    public long take(final Object into)
    {
        final RecvBuffer b = srq.take((RecvBuffer) into);
        return b == null ? -1 : b.cookie();
    }

    /** A buffer an endpoint can take into. */
    public static Object buffer()
    {
        return new RecvBuffer(1);
    }

    /** The consumer reaped the completion of a taken buffer. */
    public void reap()
    {
        srq.reaped();
    }

    /** dat_srq_resize: "SUCCESS" or the error's type. */
    public String resize(final int maxRecvDtos)
    {
        try
        {
            srq.resize(maxRecvDtos);
            return "SUCCESS";
        }
        catch (final DatException e)
        {
            return e.type().name();
        }
    }

    /** dat_srq_query: "max available outstanding". */
    public String query()
    {
        final SrqParam p = new SrqParam();
        srq.query(SrqParam.FIELD_ALL, p);
        return p.maxRecvDtos + " " + p.availableDtoCount + " " + p.outstandingDtoCount;
    }

    /** dat_srq_free. */
    public void free()
    {
        srq.free();
    }
}

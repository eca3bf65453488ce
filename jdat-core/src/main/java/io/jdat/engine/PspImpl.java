package io.jdat.engine;

import io.jdat.DatReturnSubtype;
import io.jdat.EventDispatcher;
import io.jdat.HandleType;
import io.jdat.PspFlags;
import io.jdat.PspParam;
import io.jdat.PublicServicePoint;
import io.jdat.engine.channel.IncomingRequest;
import io.jdat.engine.channel.Listener;
import io.jdat.spi.DatArg;

/**
 * A public service point: a listener whose requests become CRs on its EVD. The EVD's queue is
 * its backlog: when it is full, requests are refused (the active side sees a non-peer rejection)
 * rather than overflowing it.
 */
final class PspImpl extends ServicePointImpl implements PublicServicePoint
{
    final int pspFlags;

    private PspImpl(final IaImpl ia, final EvdImpl evd, final int pspFlags)
    {
        super(ia, HandleType.PSP, evd);
        this.pspFlags = pspFlags;
    }

    static PspImpl create(final IaImpl ia, final long connQual, final boolean any, final EventDispatcher evdHandle,
        final int pspFlags)
    {
        final PspImpl psp;
        synchronized (ia.lock)
        {
            ia.checkLive();
            final EvdImpl evd = crEvd(ia, evdHandle);
            if (pspFlags != PspFlags.CONSUMER_FLAG && pspFlags != PspFlags.PROVIDER_FLAG)
            {
                throw Errors.invalidParameter(DatArg.PSP_CREATE_FLAGS, "psp_flags must be CONSUMER or PROVIDER");
            }
            ia.checkLimit(HandleType.PSP, ia.config.maxPsps, DatReturnSubtype.NO_SUBTYPE, "PSPs");
            psp = new PspImpl(ia, evd, pspFlags);
            ia.register(psp, ia.config.maxPsps, DatReturnSubtype.NO_SUBTYPE, "PSPs");
            psp.attach();
        }
        psp.listen(() -> any ? ia.port().listenAny(psp) : ia.port().listen(connQual, psp));
        return psp;
    }

    @Override
    DatReturnSubtype invalidHandleSubtype()
    {
        return DatReturnSubtype.INVALID_HANDLE_PSP;
    }

    @Override
    public boolean onRequest(final IncomingRequest request)
    {
        synchronized (ia.lock)
        {
            if (isDestroyed())
            {
                return false;
            }
            EpImpl ep = null;
            if (pspFlags == PspFlags.PROVIDER_FLAG)
            {
                try
                {
                    ep = EpImpl.createForRequest(ia, request);
                }
                catch (final io.jdat.DatException e)
                {
                    ia.refusedRequests.incrementAndGet();
                    return false;
                }
            }
            final CrImpl cr = new CrImpl(ia, this, request, ep);
            ia.register(cr, Integer.MAX_VALUE, DatReturnSubtype.NO_SUBTYPE, "CRs");
            if (ep != null)
            {
                ep.cr = cr;
            }
            if (!evd.postConnectionRequest(this, ia.port().address(), request.localConnQual(), cr))
            {
                // backlog full
                cr.markDestroyed();
                ia.forget(cr);
                ia.refusedRequests.incrementAndGet();
                if (ep != null)
                {
                    ep.destroy().run();
                    ia.forget(ep);
                }
                return false;
            }
            return true;
        }
    }

    @Override
    public void query(final long pspParamMask, final PspParam param)
    {
        checkLive();
        Errors.checkQuery(pspParamMask, PspParam.FIELD_ALL, param, DatArg.QUERY_PARAM);
        if (param != null)
        {
            param.iaHandle = ia;
            param.connQual = connQual();
            param.evdHandle = evd;
            param.pspFlags = pspFlags;
        }
    }

    @Override
    public long connQual()
    {
        final Listener l = listener;
        return l == null ? 0 : l.connQual();
    }
}

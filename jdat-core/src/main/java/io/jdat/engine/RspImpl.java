package io.jdat.engine;

import io.jdat.DatReturnSubtype;
import io.jdat.Endpoint;
import io.jdat.EventDispatcher;
import io.jdat.HandleType;
import io.jdat.ReservedServicePoint;
import io.jdat.RspParam;
import io.jdat.engine.channel.IncomingRequest;
import io.jdat.engine.channel.Listener;
import io.jdat.spi.DatArg;

/**
 * A reserved service point: a one-shot listener bound to one endpoint. After its one request it
 * stops listening (later requests are refused as if nobody listened), but the handle stays valid
 * until {@code dat_rsp_free}, and the CR event names it.
 */
final class RspImpl extends ServicePointImpl implements ReservedServicePoint
{
    final long connQual;
    private EpImpl ep;
    private boolean used;

    private RspImpl(final IaImpl ia, final long connQual, final EvdImpl evd, final EpImpl ep)
    {
        super(ia, HandleType.RSP, evd);
        this.connQual = connQual;
        this.ep = ep;
    }

    static RspImpl create(final IaImpl ia, final long connQual, final Endpoint epHandle,
        final EventDispatcher evdHandle)
    {
        final RspImpl rsp;
        synchronized (ia.lock)
        {
            ia.checkLive();
            final EpImpl ep = cast(epHandle, EpImpl.class, ia, DatReturnSubtype.INVALID_HANDLE_EP, true, "ep_handle");
            final EvdImpl evd = crEvd(ia, evdHandle);
            ia.checkLimit(HandleType.RSP, ia.config.maxRsps, DatReturnSubtype.NO_SUBTYPE, "RSPs");
            rsp = new RspImpl(ia, connQual, evd, ep);
            if (ep != null)
            {
                ep.states.reserveFor(rsp);
            }
            ia.register(rsp, ia.config.maxRsps, DatReturnSubtype.NO_SUBTYPE, "RSPs");
            rsp.attach();
        }
        rsp.listen(() -> ia.port().listen(connQual, rsp));
        return rsp;
    }

    @Override
    DatReturnSubtype invalidHandleSubtype()
    {
        return DatReturnSubtype.INVALID_HANDLE_RSP;
    }

    @Override
    public boolean onRequest(final IncomingRequest request)
    {
        final Listener l;
        synchronized (ia.lock)
        {
            if (isDestroyed() || used)
            {
                return false;
            }
            if (ep != null && ep.state() != io.jdat.EpState.RESERVED)
            {
                return false;
            }
            EpImpl target = ep;
            if (target == null)
            {
                try
                {
                    target = EpImpl.createForRequest(ia, request);
                }
                catch (final io.jdat.DatException e)
                {
                    ia.refusedRequests.incrementAndGet();
                    return false;
                }
            }
            final CrImpl cr = new CrImpl(ia, this, request, target);
            ia.register(cr, Integer.MAX_VALUE, DatReturnSubtype.NO_SUBTYPE, "CRs");
            // the endpoint changes state before the event is visible: a consumer that dequeued
            // the request finds its endpoint PASSIVE_CONNECTION_PENDING (dat_ep_query takes no IA lock)
            if (ep != null)
            {
                target.states.requestArrived(cr);
            }
            else
            {
                target.cr = cr;
            }
            if (!evd.postConnectionRequest(this, ia.port().address(), connQual, cr))
            {
                // backlog full: refuse, and leave the endpoint reserved
                cr.markDestroyed();
                ia.forget(cr);
                ia.refusedRequests.incrementAndGet();
                if (ep == null)
                {
                    target.destroy().run();
                    ia.forget(target);
                }
                else
                {
                    target.states.requestWithdrawn();
                }
                return false;
            }
            used = true;
            l = listener;
        }
        // one request only: stop listening
        if (l != null)
        {
            l.close();
        }
        return true;
    }

    /** The reserved endpoint was destroyed (IA close). */
    void endpointGone()
    {
        synchronized (ia.lock)
        {
            ep = null;
        }
    }

    /** Forgets this RSP; an endpoint still only reserved goes back to the consumer. IA lock held. */
    @Override
    void release()
    {
        super.release();
        if (ep != null)
        {
            ep.states.unreserve();
        }
    }

    @Override
    public void query(final long rspParamMask, final RspParam param)
    {
        checkLive();
        Errors.checkQuery(rspParamMask, RspParam.FIELD_ALL, param, DatArg.QUERY_PARAM);
        if (param != null)
        {
            param.iaHandle = ia;
            param.connQual = connQual;
            param.evdHandle = evd;
            param.epHandle = ep;
        }
    }
}

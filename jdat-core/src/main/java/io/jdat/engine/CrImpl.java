package io.jdat.engine;

import io.jdat.CrParam;
import io.jdat.ConnectionRequest;
import io.jdat.DatReturnSubtype;
import io.jdat.Endpoint;
import io.jdat.EpState;
import io.jdat.HandleType;
import io.jdat.ServicePoint;
import io.jdat.engine.channel.IncomingRequest;
import io.jdat.spi.DatArg;

/**
 * A connection request, made by a service point when a request arrives. Accept (on success),
 * reject and handoff destroy it.
 */
final class CrImpl extends EngineObject implements ConnectionRequest
{
    final ServicePoint sp;
    final IncomingRequest request;
    /** The endpoint the request already names: the RSP's, or one the provider created; else null. */
    final EpImpl ep;
    private final byte[] privateData;

    CrImpl(final IaImpl ia, final ServicePoint sp, final IncomingRequest request, final EpImpl ep)
    {
        super(ia, HandleType.CR);
        this.sp = sp;
        this.request = request;
        this.ep = ep;
        this.privateData = request.privateData().clone();
    }

    @Override
    DatReturnSubtype invalidHandleSubtype()
    {
        return DatReturnSubtype.INVALID_HANDLE_CR;
    }

    @Override
    public void query(final long crParamMask, final CrParam param)
    {
        checkLive();
        Errors.checkQuery(crParamMask, CrParam.FIELD_ALL, param, DatArg.QUERY_PARAM);
        if (param == null)
        {
            return;
        }
        param.remoteIaAddress = request.remoteAddress();
        param.remotePortQual = request.remotePortQual();
        param.privateDataSize = privateData.length;
        param.privateData = privateData.clone();
        param.localEpHandle = ep;
    }

    @Override
    public void accept(final Endpoint epHandle, final byte[] data)
    {
        final EpImpl target;
        synchronized (ia.lock)
        {
            checkLive();
            if (ep != null)
            {
                if (epHandle != null)
                {
                    throw Errors.invalidHandle(DatReturnSubtype.INVALID_HANDLE_EP,
                        "this request already names its endpoint: pass DAT_HANDLE_NULL");
                }
                target = ep;
                final EpState s = target.state();
                if (s != EpState.PASSIVE_CONNECTION_PENDING && s != EpState.TENTATIVE_CONNECTION_PENDING)
                {
                    throw Errors.invalidState(EpImpl.stateSubtype(s), "the request's endpoint is " + s);
                }
            }
            else
            {
                target = cast(epHandle, EpImpl.class, ia, DatReturnSubtype.INVALID_HANDLE_EP, false, "ep_handle");
                if (target.state() != EpState.UNCONNECTED)
                {
                    throw Errors.invalidState(EpImpl.stateSubtype(target.state()),
                        "accept needs an UNCONNECTED endpoint");
                }
            }
            final int max = ia.port().maxPrivateDataSize();
            if (data != null && data.length > max)
            {
                throw Errors.invalidParameter(DatArg.CR_ACCEPT_PRIVATE_DATA_SIZE,
                    data.length + " bytes of private data; this provider carries " + max);
            }
            if (target.pz == null || target.connectEvd == null)
            {
                throw Errors.invalidHandle(DatReturnSubtype.INVALID_HANDLE_EP,
                    "the endpoint needs a PZ and a connect EVD before it can accept (dat_ep_modify)");
            }
            markDestroyed();
            ia.forget(this);
        }
        target.states.accept(this, request, data);
    }

    @Override
    public void reject()
    {
        synchronized (ia.lock)
        {
            checkLive();
            markDestroyed();
            ia.forget(this);
            releaseEndpoint();
        }
        request.reject(true);
    }

    @Override
    public void handoff(final long handoffConnQual)
    {
        synchronized (ia.lock)
        {
            checkLive();
            markDestroyed();
            ia.forget(this);
            releaseEndpoint();
        }
        if (!ia.port().handoff(request, handoffConnQual))
        {
            // the request is destroyed either way: refuse it towards the active side
            request.reject(false);
            throw Errors.invalidParameter(DatArg.CR_HANDOFF_HANDOFF,
                "nothing listens on connection qualifier " + handoffConnQual);
        }
    }

    /** The request's endpoint goes back: an RSP's to the consumer, a provider-created one away. IA lock held. */
    private void releaseEndpoint()
    {
        if (ep == null)
        {
            return;
        }
        if (ep.providerCreated)
        {
            ep.destroy().run();
            ia.forget(ep);
        }
        else
        {
            ep.states.released();
        }
    }

    /** IA close: the pending request is refused. IA lock held. */
    Runnable destroy()
    {
        markDestroyed();
        return () -> request.reject(false);
    }
}

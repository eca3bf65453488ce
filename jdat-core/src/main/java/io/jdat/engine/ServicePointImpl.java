package io.jdat.engine;

import io.jdat.DatReturnSubtype;
import io.jdat.EventDispatcher;
import io.jdat.EvdFlags;
import io.jdat.HandleType;
import io.jdat.engine.channel.ListenHandler;
import io.jdat.engine.channel.Listener;
import java.util.function.Supplier;

/**
 * What a public and a reserved service point share: the CR EVD they post to, which counts them
 * among its streams while they live, and the transport's listener, which is closed outside the IA
 * lock when the service point is freed or its IA closes.
 */
abstract class ServicePointImpl extends EngineObject implements ListenHandler
{
    final EvdImpl evd;
    volatile Listener listener;

    ServicePointImpl(final IaImpl ia, final HandleType type, final EvdImpl evd)
    {
        super(ia, type);
        this.evd = evd;
    }

    /** The EVD a service point posts its CRs to: one of this IA's, created with DAT_EVD_CR_FLAG. */
    static EvdImpl crEvd(final IaImpl ia, final EventDispatcher evdHandle)
    {
        final EvdImpl evd = cast(evdHandle, EvdImpl.class, ia, DatReturnSubtype.INVALID_HANDLE_EVD_CR, false,
            "evd_handle");
        if (!evd.accepts(EvdFlags.CR_FLAG))
        {
            throw Errors.invalidHandle(DatReturnSubtype.INVALID_HANDLE_EVD_CR,
                "the EVD was not created with DAT_EVD_CR_FLAG");
        }
        return evd;
    }

    /** Registered: counts this service point among its EVD's streams. IA lock held. */
    final void attach()
    {
        evd.streamRefs++;
        evd.otherStreams++;
    }

    /** Starts listening; a transport that refuses takes the registration back and rethrows. */
    final void listen(final Supplier<Listener> start)
    {
        try
        {
            listener = start.get();
        }
        catch (final RuntimeException e)
        {
            synchronized (ia.lock)
            {
                release();
            }
            throw e;
        }
    }

    /** Forgets this service point and drops its EVD reference. IA lock held. */
    void release()
    {
        detach();
        ia.forget(this);
    }

    private void detach()
    {
        markDestroyed();
        evd.streamRefs--;
        evd.otherStreams--;
    }

    /** {@code dat_psp_free} / {@code dat_rsp_free}. */
    public final void free()
    {
        final Listener l;
        synchronized (ia.lock)
        {
            checkLive();
            l = listener;
            release();
        }
        if (l != null)
        {
            l.close();
        }
    }

    /** IA close (IA lock held): what is left to do outside the lock, closing the listener. */
    final Runnable destroy()
    {
        detach();
        final Listener l = listener;
        return () ->
        {
            if (l != null)
            {
                l.close();
            }
        };
    }
}

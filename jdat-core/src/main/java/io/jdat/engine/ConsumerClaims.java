package io.jdat.engine;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * On a {@code nonthreadsafe} IA: which one endpoint's posts claim an EVD's records as its consumer,
 * with no read-modify-write ({@link EventRing#claimAsConsumer}). DAT's consumer of such an IA
 * serialises its calls per handle, not per IA (the spec digest, section 1.6): two endpoints that
 * share the EVD as their request EVD may post on two threads at once, and two such claims would
 * write one record. The first endpoint to post takes the part; the others claim as any other
 * producer does. It is let go when that endpoint detaches from the EVD (freed, or modified to
 * another request EVD).
 */
final class ConsumerClaims
{
    private static final VarHandle HOLDER;

    static
    {
        try
        {
            HOLDER = MethodHandles.lookup().findVarHandle(ConsumerClaims.class, "holder", EpImpl.class);
        }
        catch (final ReflectiveOperationException e)
        {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** The endpoint that claims as the consumer, or null. */
    private volatile EpImpl holder;

    /**
     * Whether {@code ep}, posting, may claim as the consumer: it already does, or nobody does and
     * it takes the part now (one compare-and-set per endpoint that takes it).
     */
    boolean mayClaim(final EpImpl ep)
    {
        final EpImpl h = holder;
        return h == ep || h == null && HOLDER.compareAndSet(this, null, ep);
    }

    /**
     * {@code ep} no longer completes requests here: another endpoint may take the part. Its last
     * claim came before (its calls are serialised), and this volatile store is what the next
     * taker's compare-and-set reads.
     */
    void letGo(final EpImpl ep)
    {
        if (holder == ep)
        {
            HOLDER.compareAndSet(this, ep, null);
        }
    }
}

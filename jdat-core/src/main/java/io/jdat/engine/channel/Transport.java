package io.jdat.engine.channel;

/**
 * A transport: what a software provider plugs into the engine ({@code loopback}, {@code tcp},
 * {@code shm}). One instance serves one registered IA name.
 */
public interface Transport
{
    /** Short name, for example {@code tcp}. */
    String name();

    /**
     * Opens a port for one new IA instance: binds its address, starts whatever threads the
     * transport needs (named after {@code context.iaName()}), all of which
     * {@link TransportPort#close()} ends.
     */
    TransportPort open(TransportContext context);
}

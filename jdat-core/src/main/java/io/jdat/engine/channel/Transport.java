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

    /**
     * Checks memory a consumer registers as {@code DAT_MEM_TYPE_SHARED_VIRTUAL}.
     *
     * @throws io.jdat.DatException {@code DAT_INVALID_STATE} if this transport cannot treat it
     *     as shared with other processes
     */
    default void checkSharedMemory(final java.lang.foreign.MemorySegment memory, final byte[] cookie)
    {
    }
}

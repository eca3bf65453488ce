package io.jdat.spi;

import io.jdat.InterfaceAdapter;

/**
 * The provider side of one registered IA name: C's {@code struct dat_provider}, reduced to the
 * one entry the registry calls ({@code ia_open_func}). Every other call goes to the objects the
 * returned {@link InterfaceAdapter} creates, each of which knows its provider.
 */
public interface DatProvider
{
    /** {@code device_name}: for diagnostics. */
    String deviceName();

    /**
     * {@code ia_open_func}: opens a new instance of the named IA. Throws
     * {@link io.jdat.DatException} on failure.
     */
    InterfaceAdapter iaOpen(IaOpenRequest request);
}

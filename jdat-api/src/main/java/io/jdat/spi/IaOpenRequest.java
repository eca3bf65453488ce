package io.jdat.spi;

import io.jdat.EventDispatcher;

/**
 * What the registry passes to {@link DatProvider#iaOpen} for a {@code dat_ia_open}.
 *
 * @param iaName          the IA name with any {@code RO_AWARE_} prefix removed
 * @param asyncEvdMinQlen the consumer's {@code async_evd_min_qlen}
 * @param asyncEvd        {@code null} (create one), {@link io.jdat.Dat#EVD_ASYNC_EXISTS}, or an
 *                        existing async EVD of this provider
 * @param roAware         whether the name carried the {@code RO_AWARE_} prefix
 * @param onClose         the provider calls this once, after the instance is closed, so the
 *                        registry can count open instances
 */
public record IaOpenRequest(String iaName, int asyncEvdMinQlen, EventDispatcher asyncEvd, boolean roAware,
    Runnable onClose)
{
}

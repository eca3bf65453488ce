package io.jdat;

/**
 * {@code DAT_SP_HANDLE}: a public or a reserved service point, as {@code dat_cr_query} reports the
 * one a connection request arrived on.
 */
public sealed interface ServicePoint extends DatHandle permits PublicServicePoint, ReservedServicePoint
{
}

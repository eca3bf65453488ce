package io.jdat;

/** {@code DAT_SP_HANDLE}: a public or a reserved service point. */
public sealed interface ServicePoint extends DatHandle permits PublicServicePoint, ReservedServicePoint
{
}

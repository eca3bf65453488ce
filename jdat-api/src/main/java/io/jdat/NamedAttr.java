package io.jdat;

/**
 * {@code DAT_NAMED_ATTR}: a transport-, vendor- or provider-specific attribute, as
 * {@code dat_ia_query} reports it.
 */
public record NamedAttr(String name, String value)
{
}

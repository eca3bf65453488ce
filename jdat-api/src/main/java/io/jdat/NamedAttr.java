package io.jdat;

/** {@code DAT_NAMED_ATTR}: a transport-, vendor- or provider-specific attribute. */
public record NamedAttr(String name, String value)
{
}

package io.jdat;

/**
 * What {@code dat_strerror} returns: the type's name as {@code major} and the subtype's name as
 * {@code minor} (empty when there is no subtype), for example
 * {@code ("DAT_INVALID_HANDLE", "DAT_INVALID_HANDLE_EP")}.
 */
public record ErrorStrings(String major, String minor)
{
}

package io.jdat.tools.kit;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A control message of the tools' protocols: a verb and {@code key=value} fields separated by
 * blanks, for example {@code RUN op=send size=64}. The field {@code why} takes the rest of the
 * line, so it may hold blanks; it must come last.
 *
 * @param verb   the first word
 * @param fields the fields in order
 */
public record Message(String verb, Map<String, String> fields)
{
    /** The field that holds free text (a failure's description). */
    public static final String WHY = "why";
    /** The verb of a message that reports a failure in its {@link #WHY} field. */
    public static final String FAIL = "FAIL";

    /** Parses one message. */
    public static Message parse(final String text)
    {
        final String t = text.strip();
        final int blank = t.indexOf(' ');
        final String verb = blank < 0 ? t : t.substring(0, blank);
        final Map<String, String> fields = new LinkedHashMap<>();
        int i = blank < 0 ? t.length() : blank + 1;
        while (i < t.length())
        {
            if (t.startsWith(WHY + "=", i))
            {
                fields.put(WHY, t.substring(i + WHY.length() + 1));
                break;
            }
            int end = t.indexOf(' ', i);
            if (end < 0)
            {
                end = t.length();
            }
            final String token = t.substring(i, end);
            final int eq = token.indexOf('=');
            if (eq > 0)
            {
                fields.put(token.substring(0, eq), token.substring(eq + 1));
            }
            i = end + 1;
        }
        return new Message(verb, fields);
    }

    /** A failure report: {@code FAIL why=<text>}. */
    public static Message fail(final String why)
    {
        return of(FAIL).with(WHY, why).build();
    }

    /** Starts a message with {@code verb}. */
    public static Builder of(final String verb)
    {
        return new Builder(verb);
    }

    /** A field; throws {@link CheckFailed} when the peer left it out. */
    public String get(final String key)
    {
        final String v = fields.get(key);
        if (v == null)
        {
            throw new CheckFailed("protocol: message " + verb + " has no field '" + key + "'");
        }
        return v;
    }

    /** A field, or {@code fallback} when it is absent. */
    public String get(final String key, final String fallback)
    {
        return fields.getOrDefault(key, fallback);
    }

    /** A numeric field. */
    public long getLong(final String key)
    {
        try
        {
            return Long.parseLong(get(key));
        }
        catch (final NumberFormatException e)
        {
            throw new CheckFailed("protocol: field '" + key + "' of " + verb + " is not a number: " + get(key));
        }
    }

    /** A numeric field that fits an int. */
    public int getInt(final String key)
    {
        return Math.toIntExact(getLong(key));
    }

    /** A boolean field written as 0 or 1. */
    public boolean getFlag(final String key)
    {
        return "1".equals(get(key, "0"));
    }

    /** Throws {@link CheckFailed} unless this message's verb is {@code expected}. */
    public Message expect(final String expected)
    {
        if (verb.equals(FAIL))
        {
            throw new CheckFailed("peer: " + get(WHY, "failed"));
        }
        if (!verb.equals(expected))
        {
            throw new CheckFailed("protocol: expected " + expected + ", got " + this);
        }
        return this;
    }

    @Override
    public String toString()
    {
        final StringBuilder b = new StringBuilder(verb);
        fields.forEach((k, v) -> b.append(' ').append(k).append('=').append(v));
        return b.toString();
    }

    /** Builds a message field by field. */
    public static final class Builder
    {
        private final String verb;
        private final Map<String, String> fields = new LinkedHashMap<>();

        private Builder(final String verb)
        {
            this.verb = verb;
        }

        /** Adds a field; its value may not contain blanks unless the key is {@link #WHY}. */
        public Builder with(final String key, final Object value)
        {
            final String v = String.valueOf(value);
            if (!key.equals(WHY) && (v.isEmpty() || v.indexOf(' ') >= 0))
            {
                throw new IllegalArgumentException("field " + key + " needs a value without blanks: '" + v + "'");
            }
            fields.put(key, v);
            return this;
        }

        /** Adds a 0/1 field. */
        public Builder flag(final String key, final boolean value)
        {
            return with(key, value ? "1" : "0");
        }

        /** The message. */
        public Message build()
        {
            return new Message(verb, new LinkedHashMap<>(fields));
        }

        @Override
        public String toString()
        {
            return build().toString();
        }
    }
}

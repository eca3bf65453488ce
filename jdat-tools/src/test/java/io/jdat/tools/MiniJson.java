package io.jdat.tools;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A strict reader of JSON text (RFC 8259) for the tests: objects become maps, arrays lists,
 * numbers doubles, and anything malformed an IllegalArgumentException.
 */
public final class MiniJson
{
    private final String s;
    private int i;

    private MiniJson(final String s)
    {
        this.s = s;
    }

    /** Parses one JSON text. */
    public static Object parse(final String text)
    {
        final MiniJson p = new MiniJson(text);
        final Object v = p.value();
        p.blank();
        if (p.i != text.length())
        {
            throw p.error("text after the value");
        }
        return v;
    }

    private IllegalArgumentException error(final String what)
    {
        return new IllegalArgumentException(what + " at offset " + i);
    }

    private void blank()
    {
        while (i < s.length() && " \t\r\n".indexOf(s.charAt(i)) >= 0)
        {
            i++;
        }
    }

    private Object value()
    {
        blank();
        if (i >= s.length())
        {
            throw error("end of text");
        }
        final char c = s.charAt(i);
        return switch (c)
        {
            case '{' -> object();
            case '[' -> array();
            case '"' -> string();
            case 't' -> literal("true", Boolean.TRUE);
            case 'f' -> literal("false", Boolean.FALSE);
            case 'n' -> literal("null", null);
            default -> number();
        };
    }

    private Object literal(final String word, final Object v)
    {
        if (!s.startsWith(word, i))
        {
            throw error("bad literal");
        }
        i += word.length();
        return v;
    }

    private Map<String, Object> object()
    {
        final Map<String, Object> m = new LinkedHashMap<>();
        i++;
        blank();
        if (s.charAt(i) == '}')
        {
            i++;
            return m;
        }
        while (true)
        {
            blank();
            final String key = string();
            blank();
            expect(':');
            if (m.put(key, value()) != null)
            {
                throw error("duplicate key " + key);
            }
            blank();
            if (s.charAt(i) == ',')
            {
                i++;
                continue;
            }
            expect('}');
            return m;
        }
    }

    private List<Object> array()
    {
        final List<Object> l = new ArrayList<>();
        i++;
        blank();
        if (s.charAt(i) == ']')
        {
            i++;
            return l;
        }
        while (true)
        {
            l.add(value());
            blank();
            if (s.charAt(i) == ',')
            {
                i++;
                continue;
            }
            expect(']');
            return l;
        }
    }

    private void expect(final char c)
    {
        if (i >= s.length() || s.charAt(i) != c)
        {
            throw error("expected '" + c + "'");
        }
        i++;
    }

    private String string()
    {
        expect('"');
        final StringBuilder b = new StringBuilder();
        while (true)
        {
            if (i >= s.length())
            {
                throw error("unterminated string");
            }
            final char c = s.charAt(i++);
            if (c == '"')
            {
                return b.toString();
            }
            if (c < 0x20)
            {
                throw error("control character in string");
            }
            if (c != '\\')
            {
                b.append(c);
                continue;
            }
            final char e = s.charAt(i++);
            switch (e)
            {
                case '"', '\\', '/' -> b.append(e);
                case 'b' -> b.append('\b');
                case 'f' -> b.append('\f');
                case 'n' -> b.append('\n');
                case 'r' -> b.append('\r');
                case 't' -> b.append('\t');
                case 'u' ->
                {
                    b.append((char) Integer.parseInt(s.substring(i, i + 4), 16));
                    i += 4;
                }
                default -> throw error("bad escape");
            }
        }
    }

    private Double number()
    {
        final int start = i;
        final java.util.regex.Matcher m = java.util.regex.Pattern
            .compile("-?(0|[1-9][0-9]*)(\\.[0-9]+)?([eE][+-]?[0-9]+)?").matcher(s);
        if (!m.find(start) || m.start() != start || m.end() == start)
        {
            throw error("bad number");
        }
        i = m.end();
        return Double.parseDouble(s.substring(start, i));
    }
}

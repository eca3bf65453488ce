package io.jdat.registry;

import io.jdat.ProviderInfo;
import io.jdat.spi.StaticRegistryEntry;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads the static registry file, {@code dat.conf}, in which {@code dat_ia_open} looks IA names up.
 * One entry per line, eight whitespace-separated fields (the eighth may be left out):
 * <pre>
 *   ia-name  api  thread-safety  section  library  provider-version  "instance data"  "platform info"
 *   loopback u1.2 threadsafe     default  loopback jdat.0.1          ""               ""
 * </pre>
 * {@code #} starts a comment, blank lines are ignored, a field with blanks is double-quoted and
 * a backslash escapes a quote or a backslash inside quotes. A malformed line is skipped and
 * reported, never fatal; so is a kDAPL ({@code k...}) line.
 */
public final class DatConf
{
    /** The parsed entries and the lines that were skipped. */
    public record Parsed(List<StaticRegistryEntry> entries, List<String> problems)
    {
    }

    private DatConf()
    {
    }

    /** Parses the text of a {@code dat.conf} file. Never throws for bad input. */
    public static Parsed parse(final String text)
    {
        final List<StaticRegistryEntry> entries = new ArrayList<>();
        final List<String> problems = new ArrayList<>();
        if (text == null)
        {
            return new Parsed(entries, problems);
        }
        final String[] lines = text.split("\r?\n|\r", -1);
        for (int i = 0; i < lines.length; i++)
        {
            final String line = lines[i];
            final List<String> fields = new ArrayList<>();
            final String error = split(line, fields);
            if (error == null && fields.isEmpty())
            {
                continue;
            }
            final String why = error != null ? error : problem(fields);
            if (why != null)
            {
                problems.add("line " + (i + 1) + ": " + why);
                continue;
            }
            entries.add(entry(fields));
        }
        return new Parsed(entries, problems);
    }

    /** Splits one line into fields; returns an error text, or null. Comments are dropped. */
    static String split(final String line, final List<String> fields)
    {
        final int n = line.length();
        int i = 0;
        while (i < n)
        {
            final char c = line.charAt(i);
            if (c == '#')
            {
                break;
            }
            if (Character.isWhitespace(c))
            {
                i++;
                continue;
            }
            final StringBuilder field = new StringBuilder();
            if (c == '"')
            {
                i++;
                boolean closed = false;
                while (i < n)
                {
                    final char q = line.charAt(i);
                    if (q == '\\' && i + 1 < n && (line.charAt(i + 1) == '"' || line.charAt(i + 1) == '\\'))
                    {
                        field.append(line.charAt(i + 1));
                        i += 2;
                    }
                    else if (q == '"')
                    {
                        closed = true;
                        i++;
                        break;
                    }
                    else
                    {
                        field.append(q);
                        i++;
                    }
                }
                if (!closed)
                {
                    return "unterminated quote";
                }
                if (i < n && !Character.isWhitespace(line.charAt(i)) && line.charAt(i) != '#')
                {
                    return "text right after a closing quote";
                }
            }
            else
            {
                while (i < n && !Character.isWhitespace(line.charAt(i)) && line.charAt(i) != '#')
                {
                    if (line.charAt(i) == '"')
                    {
                        return "quote inside an unquoted field";
                    }
                    field.append(line.charAt(i));
                    i++;
                }
            }
            fields.add(field.toString());
        }
        return null;
    }

    private static String problem(final List<String> f)
    {
        if (f.size() < 7 || f.size() > 8)
        {
            return "expected 8 fields, found " + f.size();
        }
        final String name = f.get(0);
        if (name.isEmpty() || name.length() >= io.jdat.Dat.NAME_MAX_LENGTH)
        {
            return "bad IA name";
        }
        final String api = f.get(1);
        if (api.startsWith("k"))
        {
            return "kDAPL entry ignored";
        }
        if (parseVersion(api) == null)
        {
            return "bad API version '" + api + "' (expected u<major>.<minor>)";
        }
        if (!f.get(2).equals("threadsafe") && !f.get(2).equals("nonthreadsafe"))
        {
            return "bad thread safety '" + f.get(2) + "'";
        }
        if (!f.get(3).equals("default") && !f.get(3).equals("nondefault"))
        {
            return "bad section '" + f.get(3) + "'";
        }
        if (f.get(4).isEmpty())
        {
            return "empty library";
        }
        return null;
    }

    private static StaticRegistryEntry entry(final List<String> f)
    {
        final int[] v = parseVersion(f.get(1));
        final ProviderInfo info = new ProviderInfo(f.get(0), v[0], v[1], f.get(2).equals("threadsafe"));
        return new StaticRegistryEntry(info, f.get(3).equals("default"), f.get(4), f.get(5), f.get(6),
            f.size() > 7 ? f.get(7) : "");
    }

    /** {@code u1.2} → {1, 2}; null if malformed. */
    static int[] parseVersion(final String api)
    {
        if (api.length() < 4 || api.charAt(0) != 'u')
        {
            return null;
        }
        final int dot = api.indexOf('.');
        if (dot < 2 || dot == api.length() - 1)
        {
            return null;
        }
        try
        {
            final String major = api.substring(1, dot);
            final String minor = api.substring(dot + 1);
            if (!major.chars().allMatch(Character::isDigit) || !minor.chars().allMatch(Character::isDigit)
                || major.length() > 6 || minor.length() > 6)
            {
                return null;
            }
            return new int[] {Integer.parseInt(major), Integer.parseInt(minor)};
        }
        catch (final NumberFormatException e)
        {
            return null;
        }
    }
}

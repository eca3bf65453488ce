package io.jdat;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every public type of jdat-api opens its Javadoc with a summary sentence that names the
 * {@code dat_*} calls it belongs to, so a DAT user finds the type from the call they know.
 */
class ApiSummaryTest
{
    private static final Path SOURCES = Path.of("src/main/java");
    /** The Javadoc comment right before a public top-level type, annotations allowed between. */
    private static final Pattern TYPE = Pattern.compile(
        "(/\\*\\*(?:(?!\\*/).)*\\*/)\\s*(?:@[\\w.]+(?:\\([^)]*\\))?\\s*)*"
        + "public\\s+(?:(?:final|abstract|sealed|non-sealed|static)\\s+)*"
        + "(?:class|interface|enum|record|@interface)\\s+(\\w+)",
        Pattern.DOTALL);

    @Test
    void everyPublicTypeSummaryNamesItsDatCalls() throws IOException
    {
        final List<String> missing = new ArrayList<>();
        int types = 0;
        try (Stream<Path> files = Files.walk(SOURCES))
        {
            for (final Path f : files.filter(p -> p.toString().endsWith(".java")).sorted().toList())
            {
                final String name = f.getFileName().toString();
                if (name.equals("package-info.java") || name.equals("module-info.java"))
                {
                    continue;
                }
                final String source = Files.readString(f);
                final Matcher m = TYPE.matcher(source);
                if (!m.find() || !source.substring(0, m.start()).matches("(?s)\\s*package [\\w.]+;.*"))
                {
                    missing.add(name + ": no Javadoc before its public type");
                    continue;
                }
                types++;
                final String summary = summary(m.group(1));
                if (!summary.contains("dat_"))
                {
                    missing.add(m.group(2) + ": " + summary);
                }
            }
        }
        assertTrue(types > 60, "found only " + types + " public types under " + SOURCES.toAbsolutePath());
        assertTrue(missing.isEmpty(), "summaries that name no dat_* call:\n  " + String.join("\n  ", missing));
    }

    /** The first sentence of a Javadoc comment, as the Javadoc summary takes it. */
    static String summary(final String comment)
    {
        String text = comment.replaceAll("(?m)^\\s*/?\\*+/?", " ").replaceAll("\\*/\\s*$", "");
        text = text.replaceAll("\\s+", " ").strip();
        text = text.split("\\s@(?:param|return|throws|see|since)\\b", 2)[0];
        // Javadoc's summary ends at the first period followed by white space
        final Matcher end = Pattern.compile("\\.(?=\\s)").matcher(text + " ");
        return end.find() ? text.substring(0, end.end()) : text;
    }
}

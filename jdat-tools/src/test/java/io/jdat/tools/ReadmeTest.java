package io.jdat.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The README's example is this module's {@link ReadmeExample}, verbatim, and it runs. */
class ReadmeTest
{
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

    @Test
    void readmeHoldsTheExampleVerbatim() throws IOException
    {
        final List<String> lines = Files.readAllLines(
            Path.of("src/test/java/io/jdat/tools/ReadmeExample.java"), StandardCharsets.UTF_8);
        final int begin = lines.indexOf("// readme:begin");
        final int end = lines.indexOf("// readme:end");
        assertTrue(begin >= 0 && end > begin, "ReadmeExample.java marks the README part");
        final String example = String.join("\n", lines.subList(begin + 1, end));
        final String readme = Files.readString(ROOT.resolve("README.md"), StandardCharsets.UTF_8);
        assertTrue(readme.contains("```java\n" + example + "\n```"),
            "README.md must hold the code of ReadmeExample.java between its readme markers, verbatim");
    }

    @Test
    void theExampleRuns()
    {
        final PrintStream saved = System.out;
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        System.setOut(new PrintStream(bytes, true, StandardCharsets.UTF_8));
        try
        {
            ReadmeExample.main(new String[0]);
        }
        finally
        {
            System.setOut(saved);
        }
        assertEquals("hello, DAT / hello, DAT", bytes.toString(StandardCharsets.UTF_8).strip());
    }
}

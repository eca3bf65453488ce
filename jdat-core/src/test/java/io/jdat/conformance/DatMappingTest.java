package io.jdat.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

/**
 * Keeps {@code docs/dat-mapping.md} true: one row per function of the API (the list in
 * {@code dat-functions.txt}), each naming a Java method that exists and test classes that exist
 * and name the function in their source.
 */
class DatMappingTest
{
    private static final Path DOC = Path.of("..", "docs", "dat-mapping.md");
    private static final Path TESTS = Path.of("src", "test", "java", "io", "jdat", "conformance");
    private static final Pattern ROW = Pattern.compile("^\\| `(dat_[a-z_]+)` \\| (.+?) \\| (.+?) \\|$");
    private static final Pattern JAVA = Pattern.compile("`([A-Za-z]+)#([a-zA-Z]+)`");
    private static final Pattern TEST = Pattern.compile("`([A-Za-z]+Test)`");

    record Row(String function, String java, String tests)
    {
    }

    private static List<String> functions() throws IOException
    {
        try (InputStream in = DatMappingTest.class.getResourceAsStream("/dat-functions.txt"))
        {
            final String text = new String(in.readAllBytes(), StandardCharsets.US_ASCII);
            return Arrays.stream(text.split("\\s+")).filter(s -> !s.isEmpty()).toList();
        }
    }

    private static Map<String, Row> rows() throws IOException
    {
        final Map<String, Row> rows = new LinkedHashMap<>();
        for (final String line : Files.readAllLines(DOC))
        {
            final Matcher m = ROW.matcher(line);
            if (m.matches())
            {
                final Row previous = rows.put(m.group(1), new Row(m.group(1), m.group(2), m.group(3)));
                assertTrue(previous == null, m.group(1) + " has two rows");
            }
        }
        return rows;
    }

    @Test
    void everyFunctionOfTheApiHasExactlyOneRow() throws IOException
    {
        final List<String> functions = functions();
        assertEquals(72, functions.size(), "the uDAPL 1.2 API has 72 calls");
        assertEquals(new TreeSet<>(functions), new TreeSet<>(rows().keySet()));
    }

    @Test
    void everyRowNamesAJavaMethodThatExists() throws IOException, ClassNotFoundException
    {
        final List<String> missing = new ArrayList<>();
        for (final Row row : rows().values())
        {
            final Matcher m = JAVA.matcher(row.java());
            assertTrue(m.find(), row.function() + ": no `Type#method` in " + row.java());
            do
            {
                final Class<?> type = Class.forName("io.jdat." + m.group(1));
                final String name = m.group(2);
                if (Arrays.stream(type.getMethods()).map(Method::getName).noneMatch(name::equals))
                {
                    missing.add(row.function() + " → " + m.group(1) + "#" + name);
                }
            }
            while (m.find());
        }
        assertEquals(List.of(), missing);
    }

    @Test
    void everyRowNamesTestClassesThatExistAndCoverTheFunction() throws IOException
    {
        for (final Row row : rows().values())
        {
            final Matcher m = TEST.matcher(row.tests());
            assertTrue(m.find(), row.function() + ": no test class in " + row.tests());
            do
            {
                final Path source = TESTS.resolve(m.group(1) + ".java");
                if (!Files.exists(source))
                {
                    fail(row.function() + ": test class " + m.group(1) + " does not exist");
                }
                final String text = Files.readString(source);
                final String method = javaMethodName(row.java());
                assertTrue(text.contains(row.function()) || text.contains("." + method + "("),
                    row.function() + ": " + m.group(1) + " neither names it nor calls " + method);
            }
            while (m.find());
        }
    }

    private static String javaMethodName(final String java)
    {
        final Matcher m = JAVA.matcher(java);
        return m.find() ? m.group(2) : "";
    }
}

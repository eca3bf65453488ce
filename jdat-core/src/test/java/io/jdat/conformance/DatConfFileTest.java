package io.jdat.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jdat.ProviderInfo;
import io.jdat.registry.DatConf;
import io.jdat.spi.StaticRegistryEntry;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The static registry file: an entry written as a line reads back as itself.
 */
class DatConfFileTest
{
    /** Fields that need quotes get them, so the line reads back as the same entry. */
    @ParameterizedTest
    @ValueSource(strings = {"with blank", "with\"quote", "hash#", "back\\slash", ""})
    void anEntryWrittenAsALineReadsBackAsItself(final String field)
    {
        final String name = field.isEmpty() ? "n" : field;
        final StaticRegistryEntry e = new StaticRegistryEntry(ProviderInfo.of(name, true), true,
            field.isEmpty() ? "lib" : field, field, "a \"b\" \\c", field);
        final DatConf.Parsed back = DatConf.parse(e.toConfLine());
        assertEquals(List.of(), back.problems(), e.toConfLine());
        assertEquals(List.of(e), back.entries(), e.toConfLine());
    }
}

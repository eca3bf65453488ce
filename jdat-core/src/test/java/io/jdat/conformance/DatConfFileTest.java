package io.jdat.conformance;

import static io.jdat.conformance.Fixture.expect;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.CloseFlags;
import io.jdat.Dat;
import io.jdat.DatException;
import io.jdat.DatReturnSubtype;
import io.jdat.DatReturnType;
import io.jdat.ProviderInfo;
import io.jdat.registry.DatConf;
import io.jdat.registry.Registry;
import io.jdat.spi.StaticRegistryEntry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The static registry file as the consumer meets it: what a {@code dat.conf} line says reaches
 * {@code dat_ia_open} only as an IA or a documented {@code DAT_RETURN} (digest §2.1), and an entry
 * written as a line reads back as itself. Regressions of inputs {@code DatConfFuzzTest} found.
 */
class DatConfFileTest
{
    private Path file;

    @BeforeEach
    void file() throws IOException
    {
        file = Files.createTempFile("jdat-", ".conf");
    }

    @AfterEach
    void restore() throws IOException
    {
        System.clearProperty(Registry.CONF_PROPERTY);
        Registry.reload();
        Files.deleteIfExists(file);
    }

    private void conf(final String text) throws IOException
    {
        Files.writeString(file, text);
        System.setProperty(Registry.CONF_PROPERTY, file.toString());
        Registry.reload();
    }

    /**
     * Instance data a provider library cannot use makes the name unregistered, as a C
     * {@code dat_provider_init} that registers nothing would: DAT_PROVIDER_NOT_FOUND, not an
     * exception out of {@code dat_ia_open}.
     */
    @ParameterizedTest
    @ValueSource(strings = {"max_eps=many", "max_eps=0x", "max_private_data=lots", "any_qual_range=5",
        "any_qual_range=a-b"})
    void instanceDataTheLibraryRefusesIsProviderNotFound(final String instanceData) throws IOException
    {
        conf("good u1.2 threadsafe default loopback jdat.0.1 \"max_eps=4\" \"\"\n"
            + "bad u1.2 threadsafe default loopback jdat.0.1 \"" + instanceData + "\" \"\"\n");
        final DatException e = expect(DatReturnType.PROVIDER_NOT_FOUND, () -> Dat.iaOpen("bad", 8, null));
        assertEquals(DatReturnSubtype.NAME_NOT_REGISTERED, e.subtype());
        assertTrue(e.getMessage().contains("'bad'") && e.getMessage().contains("'loopback'"), e.getMessage());
        // the refusal leaves the registry as it was: the other entry opens, the bad one is still refused
        Dat.iaOpen("good", 8, null).close(CloseFlags.ABRUPT_FLAG);
        expect(DatReturnType.PROVIDER_NOT_FOUND, () -> Dat.iaOpen("bad", 8, null));
        assertTrue(Registry.get().dynamicEntries().stream().noneMatch(k -> k.iaName().equals("bad")));
    }

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

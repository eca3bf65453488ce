package io.jdat.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.jdat.CloseFlags;
import io.jdat.Dat;
import io.jdat.DatException;
import io.jdat.DatReturnType;
import io.jdat.InterfaceAdapter;
import io.jdat.registry.DatConf;
import io.jdat.registry.Registry;
import io.jdat.spi.StaticRegistryEntry;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Fuzz target: the static registry file, {@code dat.conf}, from its bytes to {@code dat_ia_open}
 * of what it names.
 *
 * <p>Input: byte 0 bit 0 writes the rest to the file as it is (any bytes, so also text that is
 * not UTF-8); otherwise the rest is read as Latin-1 text and written as UTF-8. For every input:
 * <ul>
 *   <li>{@link DatConf#parse} throws nothing; each non-blank, non-comment line is an entry or a
 *       problem naming its line; an entry has a name of 1 to 255 characters, a version
 *       {@code u<major>.<minor>} and a library;</li>
 *   <li>an entry written back as a line ({@link StaticRegistryEntry#toConfLine()}) reads back as
 *       the same entry;</li>
 *   <li>{@link Registry#reload()} with the file throws nothing and reports what it skipped;</li>
 *   <li>opening each default entry with its own version and thread safety gives an IA or one of
 *       the {@code DAT_RETURN}s {@code dat_ia_open} documents (PROVIDER_NOT_FOUND,
 *       INVALID_PARAMETER, INSUFFICIENT_RESOURCES), never another exception.</li>
 * </ul>
 */
class DatConfFuzzTest
{
    private static final Set<DatReturnType> IA_OPEN_RETURNS = EnumSet.of(DatReturnType.PROVIDER_NOT_FOUND,
        DatReturnType.INVALID_PARAMETER, DatReturnType.INSUFFICIENT_RESOURCES);

    private static Path file;

    @BeforeAll
    static void file() throws IOException
    {
        file = Files.createTempFile("jdat-fuzz-", ".conf");
    }

    @AfterAll
    static void restore() throws IOException
    {
        System.clearProperty(Registry.CONF_PROPERTY);
        Registry.reload();
        Files.deleteIfExists(file);
    }

    static Stream<Arguments> confs()
    {
        return Stream.of(
            arguments(text("""
                # name      api  thread safety  section  library   version   instance data   platform
                small u1.2 threadsafe default loopback jdat.0.1 "max_eps=4 max_private_data=64" ""
                ranged u1.2 threadsafe default loopback jdat.0.1 "any_qual_range=1000-2000 address=here" "x"
                old u1.1 nonthreadsafe nondefault loopback jdat.0.1 "" ""
                kernel k1.2 threadsafe default loopback jdat.0.1 "" ""
                "quoted \\"name\\"" u1.2 threadsafe default nowhere jdat.0.1 "a\\\\b" ""
                """)),
            arguments(text("lonely u1.2 threadsafe default loopback jdat.0.1 \"max_evd_qlen=16 evd_spin_us=0\"\n")),
            arguments(new byte[] {1, 'x', ' ', 'u', '1', '.', '2', (byte) 0xC3, (byte) 0x28, '\n'}));
    }

    private static byte[] text(final String s)
    {
        final byte[] t = s.getBytes(StandardCharsets.ISO_8859_1);
        final byte[] b = new byte[t.length + 1];
        System.arraycopy(t, 0, b, 1, t.length);
        return b;
    }

    @MethodSource("confs")
    @FuzzTest(maxDuration = "3s")
    void datConf(final byte[] input) throws IOException
    {
        if (input == null || input.length == 0)
        {
            return;
        }
        final boolean raw = (input[0] & 1) != 0;
        final byte[] rest = Arrays.copyOfRange(input, 1, input.length);
        final String text = new String(rest, raw ? StandardCharsets.UTF_8 : StandardCharsets.ISO_8859_1);

        final DatConf.Parsed parsed = DatConf.parse(text);
        final int lines = text.split("\r?\n|\r", -1).length;
        assertTrue(parsed.entries().size() + parsed.problems().size() <= lines, "more results than lines");
        for (final String problem : parsed.problems())
        {
            assertTrue(problem.matches("(?s)line [0-9]+: .+"), problem);
            final int line = Integer.parseInt(problem.substring(5, problem.indexOf(':')));
            assertTrue(line >= 1 && line <= lines, problem);
        }
        for (final StaticRegistryEntry e : parsed.entries())
        {
            final String name = e.info().iaName();
            assertTrue(!name.isEmpty() && name.length() < Dat.NAME_MAX_LENGTH, name);
            assertTrue(e.info().daplVersionMajor() >= 0 && e.info().daplVersionMinor() >= 0, e.toString());
            assertFalse(e.library().isEmpty(), e.toString());
            assertNotNull(e.providerVersion());
            assertNotNull(e.instanceData());
            assertNotNull(e.platformInfo());
            final DatConf.Parsed again = DatConf.parse(e.toConfLine());
            assertEquals(List.of(e), again.entries(), "read back from '" + e.toConfLine() + "': " + again.problems());
        }

        Files.write(file, raw ? rest : text.getBytes(StandardCharsets.UTF_8));
        System.setProperty(Registry.CONF_PROPERTY, file.toString());
        try
        {
            final Registry registry = Registry.reload();
            if (!raw)
            {
                assertTrue(registry.problems().containsAll(parsed.problems()), registry.problems().toString());
            }
            for (final StaticRegistryEntry e : registry.staticEntries())
            {
                open(e);
            }
        }
        finally
        {
            System.clearProperty(Registry.CONF_PROPERTY);
            Registry.reload();
        }
    }

    /** dat_ia_openv of an entry: an IA, or a documented return. */
    private static void open(final StaticRegistryEntry e)
    {
        final InterfaceAdapter ia;
        try
        {
            ia = Registry.get().iaOpen(e.info().iaName(), 8, null, e.info().daplVersionMajor(),
                e.info().daplVersionMinor(), e.info().isThreadSafe());
        }
        catch (final DatException x)
        {
            assertTrue(IA_OPEN_RETURNS.contains(x.type()), "dat_ia_open of " + e + ": " + x);
            return;
        }
        ia.close(CloseFlags.ABRUPT_FLAG);
    }
}

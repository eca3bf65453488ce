package io.jdat.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.Dat;
import io.jdat.DatException;
import io.jdat.DatOut;
import io.jdat.DatReturnSubtype;
import io.jdat.DatReturnType;
import io.jdat.EventDispatcher;
import io.jdat.registry.Registry;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The library on the machine the tests run on. Where there is no RDMA device (CI, most hosts) it
 * must say so in one line, and {@code dat_ia_open("verbs")} must fail with a DAT error that says
 * why; the interop suite (interop/verbs-interop) runs the provider on Linux siw in a qemu guest.
 */
class VerbsLibraryTest
{
    private static boolean noDevice()
    {
        return Devices.scan().devices().isEmpty();
    }

    @Test
    void theRegistryHasAVerbsEntryServedByThisLibrary()
    {
        assertTrue(Registry.get().libraries().get("verbs") instanceof VerbsLibrary);
        assertTrue(Registry.get().staticEntries().stream()
            .anyMatch(e -> e.info().iaName().equals("verbs") && e.library().equals("verbs")));
    }

    @Test
    void theReportListsTheDevicesOrSaysPlainlyThereAreNone()
    {
        final List<String> lines = new VerbsLibrary().report();
        assertFalse(lines.isEmpty());
        final Devices.Inventory inv = Devices.scan();
        if (inv.devices().isEmpty())
        {
            assertEquals(1, lines.size(), lines.toString());
            assertTrue(lines.getFirst().startsWith("no RDMA device found")
                || lines.getFirst().contains("cannot be loaded"),
                lines.getFirst());
        }
        else
        {
            assertEquals(inv.devices().size(), lines.size(), lines.toString());
            for (int i = 0; i < lines.size(); i++)
            {
                assertTrue(lines.get(i).startsWith(inv.devices().get(i).name() + ": "), lines.get(i));
            }
        }
    }

    @Test
    void openingWithoutADeviceFailsWithAResourceErrorThatSaysWhy()
    {
        if (!noDevice())
        {
            System.err.println("VerbsLibraryTest: SKIPPED the no-device open: this machine has an RDMA device");
            Assumptions.abort("this machine has an RDMA device");
        }
        final DatException e = assertThrows(DatException.class,
            () -> Dat.iaOpen("verbs", 8, new DatOut<EventDispatcher>()));
        assertEquals(DatReturnType.INSUFFICIENT_RESOURCES, e.type());
        assertEquals(DatReturnSubtype.RESOURCE_DEVICE, e.subtype());
        assertTrue(e.getMessage().contains("no RDMA device") || e.getMessage().contains("cannot be loaded"),
            e.getMessage());
    }

    @Test
    void instanceDataNamingNoDeviceFailsWithAResourceErrorThatNamesIt()
    {
        final VerbsProvider p = new VerbsProvider(io.jdat.ProviderInfo.of("verbs-x", true), "no-such-if0 0");
        final DatException e = assertThrows(DatException.class, p::address);
        assertEquals(DatReturnType.INSUFFICIENT_RESOURCES, e.type());
        if (!noDevice())
        {
            assertTrue(e.getMessage().contains("no-such-if0"), e.getMessage());
        }
    }
}

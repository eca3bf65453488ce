package io.jdat.conformance;

import static io.jdat.conformance.Fixture.expect;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.CloseFlags;
import io.jdat.Dat;
import io.jdat.DatCount;
import io.jdat.DatException;
import io.jdat.DatReturnSubtype;
import io.jdat.DatReturnType;
import io.jdat.InterfaceAdapter;
import io.jdat.ProviderInfo;
import io.jdat.registry.Registry;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code dat_registry_list_providers}, {@code dat_registry_add_provider} and
 * {@code dat_registry_remove_provider} (digest §2.1), on the registry this JVM loaded.
 */
class RegistryTest
{
    private static int staticCount()
    {
        final DatCount n = new DatCount(-1);
        expect(DatReturnType.INVALID_PARAMETER, () -> Dat.registryListProviders(0, n, null));
        return n.value;
    }

    @Test
    void listProvidersCopiesEveryStaticEntryIncludingBothLoopbackFlavours()
    {
        final int total = staticCount();
        final ProviderInfo[] list = new ProviderInfo[total];
        final DatCount n = new DatCount(-1);
        Dat.registryListProviders(total, n, list);
        assertEquals(total, n.value);
        final List<ProviderInfo> entries = Arrays.asList(list);
        assertTrue(entries.contains(ProviderInfo.of("loopback", true)), entries.toString());
        assertTrue(entries.contains(ProviderInfo.of("loopback", false)), entries.toString());
        for (final ProviderInfo p : list)
        {
            assertNotNull(p);
            assertTrue(p.iaName().length() < Dat.NAME_MAX_LENGTH, p.iaName());
        }
    }

    @Test
    void listProvidersWithMaxZeroIsInvalidParameterAndReportsTheCount()
    {
        // trap T-37: the sizing idiom returns the count together with DAT_INVALID_PARAMETER
        final DatCount n = new DatCount(-1);
        final DatException e = expect(DatReturnType.INVALID_PARAMETER, () -> Dat.registryListProviders(0, n, null));
        assertEquals(DatReturnSubtype.INVALID_ARG1, e.subtype());
        assertEquals(Registry.get().staticEntries().size(), n.value);
        assertTrue(n.value >= 2);
    }

    @Test
    void listProvidersWithTooSmallArrayIsInvalidParameterAndReportsTheCount()
    {
        final int total = staticCount();
        final ProviderInfo[] list = new ProviderInfo[total - 1];
        final DatCount n = new DatCount(-1);
        final DatException e = expect(DatReturnType.INVALID_PARAMETER,
            () -> Dat.registryListProviders(total - 1, n, list));
        assertEquals(DatReturnSubtype.INVALID_ARG3, e.subtype());
        assertEquals(total, n.value);
    }

    @Test
    void listProvidersWithNullListIsInvalidParameter()
    {
        final int total = staticCount();
        final DatCount n = new DatCount(-1);
        final DatException e = expect(DatReturnType.INVALID_PARAMETER, () -> Dat.registryListProviders(total, n, null));
        assertEquals(DatReturnSubtype.INVALID_ARG3, e.subtype());
        assertEquals(total, n.value);
    }

    @Test
    void listProvidersWithoutCountHolderIsInvalidParameter()
    {
        final DatException e = expect(DatReturnType.INVALID_PARAMETER,
            () -> Dat.registryListProviders(8, null, new ProviderInfo[8]));
        assertEquals(DatReturnSubtype.INVALID_ARG2, e.subtype());
    }

    @Test
    void listProvidersHasNoSideEffectsAndIgnoresTheDynamicRegistry()
    {
        final int total = staticCount();
        final ProviderInfo[] first = new ProviderInfo[total + 3];
        final ProviderInfo[] second = new ProviderInfo[total + 3];
        final DatCount n = new DatCount();
        Dat.registryListProviders(first.length, n, first);
        // a name added to the dynamic registry is not a static entry
        final RegisteredLoopback added = RegisteredLoopback.create("");
        try
        {
            Dat.registryListProviders(second.length, n, second);
            assertEquals(total, n.value);
            assertArrayEquals(first, second);
            assertFalse(Arrays.asList(second).contains(added.info()));
        }
        finally
        {
            added.unregister();
        }
    }

    @Test
    void addProviderMakesTheNameOpenable()
    {
        final RegisteredLoopback r = RegisteredLoopback.create("");
        try
        {
            assertTrue(Registry.get().dynamicEntries().contains(r.info()));
            final InterfaceAdapter ia = Dat.iaOpen(r.name(), 8, null);
            assertEquals(1, r.provider().openInstances());
            ia.close(CloseFlags.GRACEFUL_FLAG);
            assertEquals(0, r.provider().openInstances());
        }
        finally
        {
            r.unregister();
        }
    }

    @Test
    void addProviderOfARegisteredNameIsProviderAlreadyRegistered()
    {
        final RegisteredLoopback r = RegisteredLoopback.create("");
        try
        {
            expect(DatReturnType.PROVIDER_ALREADY_REGISTERED, () -> Dat.registryAddProvider(r.provider(), r.info()));
            // another provider object under the same key is refused too: names are unique
            final RegisteredLoopback other = RegisteredLoopback.create("");
            try
            {
                expect(DatReturnType.PROVIDER_ALREADY_REGISTERED,
                    () -> Dat.registryAddProvider(other.provider(), r.info()));
            }
            finally
            {
                other.unregister();
            }
        }
        finally
        {
            r.unregister();
        }
    }

    @Test
    void addProviderWithNullProviderIsInvalidParameter()
    {
        final DatException e = expect(DatReturnType.INVALID_PARAMETER,
            () -> Dat.registryAddProvider(null, ProviderInfo.of(RegisteredLoopback.unregisteredName(), true)));
        assertEquals(DatReturnSubtype.INVALID_ARG1, e.subtype());
    }

    @Test
    void addProviderWithBadProviderInfoIsInvalidParameter()
    {
        final RegisteredLoopback r = RegisteredLoopback.create("");
        try
        {
            for (final ProviderInfo bad : new ProviderInfo[] {null, new ProviderInfo(null, 1, 2, true),
                ProviderInfo.of("", true), ProviderInfo.of("x".repeat(Dat.NAME_MAX_LENGTH), true)})
            {
                final DatException e = expect(DatReturnType.INVALID_PARAMETER,
                    () -> Dat.registryAddProvider(r.provider(), bad));
                assertEquals(DatReturnSubtype.INVALID_ARG2, e.subtype(), String.valueOf(bad));
            }
            // 255 characters is the longest name (DAT_NAME_MAX_LENGTH counts C's NUL)
            final ProviderInfo longest = ProviderInfo.of("y".repeat(Dat.NAME_MAX_LENGTH - 1), true);
            Dat.registryAddProvider(r.provider(), longest);
            Dat.registryRemoveProvider(r.provider(), longest);
        }
        finally
        {
            r.unregister();
        }
    }

    @Test
    void addProviderBeyondTheRegistryCapacityIsInsufficientResources()
    {
        final String before = System.getProperty(Registry.MAX_PROVIDERS_PROPERTY);
        System.setProperty(Registry.MAX_PROVIDERS_PROPERTY, "2");
        try
        {
            Registry.reload();
            final RegisteredLoopback first = RegisteredLoopback.create("");
            final RegisteredLoopback second = RegisteredLoopback.create("");
            assertEquals(2, Registry.get().dynamicEntries().size());
            final ProviderInfo third = ProviderInfo.of(RegisteredLoopback.unregisteredName(), true);
            expect(DatReturnType.INSUFFICIENT_RESOURCES, () -> Dat.registryAddProvider(first.provider(), third));
            assertFalse(Registry.get().dynamicEntries().contains(third));
            // removing one makes room again
            second.unregister();
            Dat.registryAddProvider(first.provider(), third);
            Dat.registryRemoveProvider(first.provider(), third);
            first.unregister();
        }
        finally
        {
            if (before == null)
            {
                System.clearProperty(Registry.MAX_PROVIDERS_PROPERTY);
            }
            else
            {
                System.setProperty(Registry.MAX_PROVIDERS_PROPERTY, before);
            }
            Registry.reload();
        }
    }

    @Test
    void removeProviderPreventsNewOpens()
    {
        final RegisteredLoopback r = RegisteredLoopback.create("");
        Dat.iaOpen(r.name(), 8, null).close(CloseFlags.ABRUPT_FLAG);
        Dat.registryRemoveProvider(r.provider(), r.info());
        assertFalse(Registry.get().dynamicEntries().contains(r.info()));
        final DatException e = expect(DatReturnType.PROVIDER_NOT_FOUND, () -> Dat.iaOpen(r.name(), 8, null));
        assertEquals(DatReturnSubtype.NAME_NOT_REGISTERED, e.subtype());
    }

    @Test
    void removeProviderWithOpenInstancesIsProviderInUse()
    {
        final RegisteredLoopback r = RegisteredLoopback.create("");
        try
        {
            final InterfaceAdapter a = Dat.iaOpen(r.name(), 8, null);
            final InterfaceAdapter b = Dat.iaOpen(r.name(), 8, null);
            expect(DatReturnType.PROVIDER_IN_USE, () -> Dat.registryRemoveProvider(r.provider(), r.info()));
            a.close(CloseFlags.ABRUPT_FLAG);
            expect(DatReturnType.PROVIDER_IN_USE, () -> Dat.registryRemoveProvider(r.provider(), r.info()));
            // the refused removal changed nothing: the name still opens
            Dat.iaOpen(r.name(), 8, null).close(CloseFlags.ABRUPT_FLAG);
            b.close(CloseFlags.GRACEFUL_FLAG);
            Dat.registryRemoveProvider(r.provider(), r.info());
        }
        finally
        {
            if (Registry.get().dynamicEntries().contains(r.info()))
            {
                r.unregister();
            }
        }
    }

    @Test
    void removeProviderThatIsNotRegisteredIsInvalidParameter()
    {
        final RegisteredLoopback r = RegisteredLoopback.create("");
        final RegisteredLoopback other = RegisteredLoopback.create("");
        try
        {
            // not the provider registered under that key
            expect(DatReturnType.INVALID_PARAMETER, () -> Dat.registryRemoveProvider(other.provider(), r.info()));
            expect(DatReturnType.INVALID_PARAMETER, () -> Dat.registryRemoveProvider(r.provider(), null));
            expect(DatReturnType.INVALID_PARAMETER, () -> Dat.registryRemoveProvider(null, r.info()));
            expect(DatReturnType.INVALID_PARAMETER,
                () -> Dat.registryRemoveProvider(r.provider(), ProviderInfo.of(r.name(), !r.info().isThreadSafe())));
            Dat.registryRemoveProvider(r.provider(), r.info());
            // removed twice
            expect(DatReturnType.INVALID_PARAMETER, () -> Dat.registryRemoveProvider(r.provider(), r.info()));
        }
        finally
        {
            other.unregister();
        }
    }
}

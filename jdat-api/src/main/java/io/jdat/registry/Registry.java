package io.jdat.registry;

import io.jdat.Dat;
import io.jdat.DatCount;
import io.jdat.DatException;
import io.jdat.DatReturnSubtype;
import io.jdat.DatReturnType;
import io.jdat.EventDispatcher;
import io.jdat.InterfaceAdapter;
import io.jdat.ProviderInfo;
import io.jdat.spi.DatProvider;
import io.jdat.spi.DatProviderLibrary;
import io.jdat.spi.IaOpenRequest;
import io.jdat.spi.StaticRegistryEntry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.Set;

/**
 * The DAT registry behind {@code dat_ia_open}, {@code dat_registry_list_providers},
 * {@code dat_registry_add_provider} and {@code dat_registry_remove_provider}: a static part
 * (entries from {@code dat.conf} and from the provider libraries found by {@link ServiceLoader})
 * and a dynamic part (IA names providers registered with {@link Dat#registryAddProvider}).
 * {@code dat_ia_open} initialises a static entry's library on first use, then opens through the
 * dynamic registry; the last close of a name the registry initialised calls the library's
 * {@code dat_provider_fini}.
 *
 * <p>The static registry file is the first of: system property {@value #CONF_PROPERTY},
 * environment variable {@value #CONF_ENV}, {@value #DEFAULT_CONF}. A missing file is an empty
 * registry, not an error.
 */
public final class Registry
{
    public static final String CONF_PROPERTY = "jdat.conf";
    public static final String CONF_ENV = "DAT_OVERRIDE";
    public static final String DEFAULT_CONF = "/etc/dat.conf";
    /** System property: how many names the dynamic registry holds (default 1024). */
    public static final String MAX_PROVIDERS_PROPERTY = "jdat.registry.maxProviders";

    private static Registry instance;

    private final Path confPath;
    private final List<StaticRegistryEntry> staticEntries;
    private final List<String> problems;
    private final Map<String, DatProviderLibrary> libraries;
    private final int maxProviders;
    private final Map<ProviderInfo, DatProvider> dynamic = new LinkedHashMap<>();
    private final Map<ProviderInfo, Integer> openCount = new HashMap<>();
    private final Set<ProviderInfo> initialisedByRegistry = new HashSet<>();

    private Registry(final Path confPath, final List<StaticRegistryEntry> confEntries, final List<String> problems,
        final Map<String, DatProviderLibrary> libraries)
    {
        this.confPath = confPath;
        this.problems = List.copyOf(problems);
        this.libraries = libraries;
        final Map<ProviderInfo, StaticRegistryEntry> byKey = new LinkedHashMap<>();
        // dat.conf first: the first entry for a key wins
        for (final StaticRegistryEntry e : confEntries)
        {
            if (e.isDefault())
            {
                byKey.putIfAbsent(e.info(), e);
            }
        }
        for (final DatProviderLibrary lib : libraries.values())
        {
            for (final StaticRegistryEntry e : lib.defaultEntries())
            {
                if (e.isDefault())
                {
                    byKey.putIfAbsent(e.info(), e);
                }
            }
        }
        this.staticEntries = List.copyOf(byKey.values());
        this.maxProviders = Integer.getInteger(MAX_PROVIDERS_PROPERTY, 1024);
    }

    /** The registry, loaded on first use. */
    public static synchronized Registry get()
    {
        if (instance == null)
        {
            instance = load();
        }
        return instance;
    }

    /**
     * Reads the static registry again and forgets the dynamic one. IA instances already open
     * keep working; their closes no longer reach the new registry. For tools and tests.
     */
    public static synchronized Registry reload()
    {
        instance = load();
        return instance;
    }

    private static Registry load()
    {
        final Path path = confPath();
        String text = null;
        final List<String> problems = new ArrayList<>();
        if (path != null && Files.isRegularFile(path))
        {
            try
            {
                text = Files.readString(path);
            }
            catch (final IOException | RuntimeException e)
            {
                problems.add(path + ": " + e.getMessage());
            }
        }
        final DatConf.Parsed parsed = DatConf.parse(text);
        problems.addAll(parsed.problems());
        final Map<String, DatProviderLibrary> libs = new LinkedHashMap<>();
        for (final DatProviderLibrary lib : ServiceLoader.load(DatProviderLibrary.class))
        {
            libs.putIfAbsent(lib.libraryName(), lib);
        }
        if (libs.isEmpty())
        {
            // a context class loader that cannot see the libraries (containers, tests)
            for (final DatProviderLibrary lib : ServiceLoader.load(DatProviderLibrary.class,
                Registry.class.getClassLoader()))
            {
                libs.putIfAbsent(lib.libraryName(), lib);
            }
        }
        return new Registry(path, parsed.entries(), problems, libs);
    }

    /** Where the static registry file is looked for (it may not exist). */
    public static Path confPath()
    {
        final String prop = System.getProperty(CONF_PROPERTY);
        if (prop != null && !prop.isEmpty())
        {
            return Path.of(prop);
        }
        final String env = System.getenv(CONF_ENV);
        if (env != null && !env.isEmpty())
        {
            return Path.of(env);
        }
        return Path.of(DEFAULT_CONF);
    }

    /** The file this registry was read from. */
    public Path path()
    {
        return confPath;
    }

    /** The lines of the file that were skipped, and why. */
    public List<String> problems()
    {
        return problems;
    }

    /** The static registry, in lookup order. */
    public List<StaticRegistryEntry> staticEntries()
    {
        return staticEntries;
    }

    /** The provider libraries found by {@link ServiceLoader}, by library name. */
    public Map<String, DatProviderLibrary> libraries()
    {
        return Collections.unmodifiableMap(libraries);
    }

    /** {@code dat_ia_openv}. */
    public InterfaceAdapter iaOpen(final String iaName, final int asyncEvdMinQlen, final EventDispatcher asyncEvd,
        final int major, final int minor, final boolean threadSafe)
    {
        if (iaName == null || iaName.isEmpty() || iaName.length() >= Dat.NAME_MAX_LENGTH)
        {
            throw new DatException(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG1,
                "IA name must have 1 to " + (Dat.NAME_MAX_LENGTH - 1) + " characters");
        }
        final boolean roAware = iaName.startsWith(Dat.RO_AWARE_PREFIX);
        final String name = roAware ? iaName.substring(Dat.RO_AWARE_PREFIX.length()) : iaName;
        final ProviderInfo key;
        final DatProvider provider;
        synchronized (this)
        {
            key = resolve(name, major, minor, threadSafe);
            provider = dynamic.get(key);
            if (provider == null)
            {
                throw new DatException(DatReturnType.PROVIDER_NOT_FOUND, DatReturnSubtype.NAME_NOT_REGISTERED,
                    "IA '" + name + "' is registered but its provider did not register it");
            }
            openCount.merge(key, 1, Integer::sum);
        }
        try
        {
            return provider.iaOpen(new IaOpenRequest(name, asyncEvdMinQlen, asyncEvd, roAware,
                new CloseOnce(this, key)));
        }
        catch (final RuntimeException e)
        {
            closed(key);
            throw e;
        }
    }

    /** Finds the key to open, initialising a static entry's library when needed. */
    private ProviderInfo resolve(final String name, final int major, final int minor, final boolean threadSafe)
    {
        // exact match first, then the highest minor at or above the requested one
        ProviderInfo best = null;
        StaticRegistryEntry bestStatic = null;
        for (final ProviderInfo k : dynamic.keySet())
        {
            if (matches(k, name, major, minor, threadSafe) && (best == null || better(k, best, minor)))
            {
                best = k;
            }
        }
        for (final StaticRegistryEntry e : staticEntries)
        {
            final ProviderInfo k = e.info();
            if (matches(k, name, major, minor, threadSafe) && (best == null || better(k, best, minor)))
            {
                best = k;
                bestStatic = e;
            }
        }
        if (best == null)
        {
            throw new DatException(DatReturnType.PROVIDER_NOT_FOUND, notFoundSubtype(name, major, minor),
                "no registry entry for IA '" + name + "' (uDAPL " + major + "." + minor + ", "
                + (threadSafe ? "threadsafe" : "nonthreadsafe") + ")");
        }
        if (bestStatic != null && !dynamic.containsKey(best))
        {
            final DatProviderLibrary lib = libraries.get(bestStatic.library());
            if (lib == null)
            {
                throw new DatException(DatReturnType.PROVIDER_NOT_FOUND, DatReturnSubtype.NAME_NOT_REGISTERED,
                    "IA '" + name + "': provider library '" + bestStatic.library() + "' is not on the path");
            }
            try
            {
                lib.providerInit(best, bestStatic.instanceData());
            }
            catch (final RuntimeException e)
            {
                // dat_provider_init cannot fail in C; a name it did not register is not found (libdat)
                throw new DatException(DatReturnType.PROVIDER_NOT_FOUND, DatReturnSubtype.NAME_NOT_REGISTERED,
                    "IA '" + name + "': provider library '" + bestStatic.library()
                    + "' refused the instance data of its dat.conf entry: " + e.getMessage());
            }
            initialisedByRegistry.add(best);
        }
        return best;
    }

    private static boolean matches(final ProviderInfo k, final String name, final int major, final int minor,
        final boolean threadSafe)
    {
        return k.iaName().equals(name) && k.daplVersionMajor() == major && k.daplVersionMinor() >= minor
            && k.isThreadSafe() == threadSafe;
    }

    /** An exact minor beats any other; otherwise the higher minor wins. */
    private static boolean better(final ProviderInfo k, final ProviderInfo best, final int minor)
    {
        if (best.daplVersionMinor() == minor)
        {
            return false;
        }
        return k.daplVersionMinor() == minor || k.daplVersionMinor() > best.daplVersionMinor();
    }

    private DatReturnSubtype notFoundSubtype(final String name, final int major, final int minor)
    {
        final List<ProviderInfo> all = new ArrayList<>(dynamic.keySet());
        staticEntries.forEach(e -> all.add(e.info()));
        if (all.stream().noneMatch(k -> k.iaName().equals(name)))
        {
            return DatReturnSubtype.NAME_NOT_REGISTERED;
        }
        if (all.stream().noneMatch(k -> k.iaName().equals(name) && k.daplVersionMajor() == major))
        {
            return DatReturnSubtype.MAJOR_NOT_FOUND;
        }
        if (all.stream().noneMatch(k -> k.iaName().equals(name) && k.daplVersionMajor() == major
            && k.daplVersionMinor() >= minor))
        {
            return DatReturnSubtype.MINOR_NOT_FOUND;
        }
        return DatReturnSubtype.THREAD_SAFETY_NOT_FOUND;
    }

    /** An IA instance of {@code key} was closed. */
    synchronized void closed(final ProviderInfo key)
    {
        final Integer n = openCount.get(key);
        if (n == null)
        {
            return;
        }
        if (n > 1)
        {
            openCount.put(key, n - 1);
            return;
        }
        openCount.remove(key);
        if (initialisedByRegistry.remove(key))
        {
            for (final StaticRegistryEntry e : staticEntries)
            {
                if (e.info().equals(key))
                {
                    final DatProviderLibrary lib = libraries.get(e.library());
                    if (lib != null)
                    {
                        lib.providerFini(key);
                    }
                    break;
                }
            }
            // a provider that did not remove itself is removed for it
            dynamic.remove(key);
        }
    }

    /** How many IA instances of {@code key} are open. */
    public synchronized int openInstances(final ProviderInfo key)
    {
        return openCount.getOrDefault(key, 0);
    }

    /** {@code dat_registry_list_providers}. */
    public synchronized ProviderInfo[] listProviders(final int maxToReturn, final DatCount numberEntries,
        final ProviderInfo[] providerList)
    {
        final int total = staticEntries.size();
        if (numberEntries == null)
        {
            throw new DatException(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG2,
                "number_entries is null");
        }
        if (maxToReturn <= 0)
        {
            // deliberate: the sizing idiom returns the count together with INVALID_PARAMETER
            numberEntries.value = total;
            throw new DatException(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG1,
                "max_to_return must be positive; " + total + " entries");
        }
        if (providerList == null || providerList.length < Math.min(maxToReturn, total) || maxToReturn < total)
        {
            numberEntries.value = total;
            throw new DatException(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG3,
                "room for " + maxToReturn + " entries, the registry holds " + total);
        }
        for (int i = 0; i < total; i++)
        {
            providerList[i] = staticEntries.get(i).info();
        }
        numberEntries.value = total;
        return providerList;
    }

    /** {@code dat_registry_add_provider}. */
    public synchronized void addProvider(final DatProvider provider, final ProviderInfo info)
    {
        if (provider == null)
        {
            throw new DatException(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG1, "provider is null");
        }
        if (info == null || info.iaName() == null || info.iaName().isEmpty()
            || info.iaName().length() >= Dat.NAME_MAX_LENGTH)
        {
            throw new DatException(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG2,
                "provider info must name an IA of 1 to " + (Dat.NAME_MAX_LENGTH - 1) + " characters");
        }
        if (dynamic.containsKey(info))
        {
            throw new DatException(DatReturnType.PROVIDER_ALREADY_REGISTERED, info + " is already registered");
        }
        if (dynamic.size() >= maxProviders)
        {
            throw new DatException(DatReturnType.INSUFFICIENT_RESOURCES,
                "the registry already holds " + maxProviders + " providers");
        }
        dynamic.put(info, provider);
    }

    /** {@code dat_registry_remove_provider}. */
    public synchronized void removeProvider(final DatProvider provider, final ProviderInfo info)
    {
        if (info == null || provider == null || dynamic.get(info) != provider)
        {
            throw new DatException(DatReturnType.INVALID_PARAMETER, "provider " + info + " is not registered");
        }
        if (openCount.getOrDefault(info, 0) > 0)
        {
            throw new DatException(DatReturnType.PROVIDER_IN_USE,
                info.iaName() + " has " + openCount.get(info) + " open instances");
        }
        dynamic.remove(info);
    }

    /** The names in the dynamic registry. */
    public synchronized List<ProviderInfo> dynamicEntries()
    {
        return List.copyOf(dynamic.keySet());
    }

    /** Calls {@link Registry#closed} once, however often it runs. */
    private static final class CloseOnce implements Runnable
    {
        private final Registry registry;
        private final ProviderInfo key;
        private boolean done;

        CloseOnce(final Registry registry, final ProviderInfo key)
        {
            this.registry = registry;
            this.key = key;
        }

        @Override
        public void run()
        {
            synchronized (this)
            {
                if (done)
                {
                    return;
                }
                done = true;
            }
            registry.closed(key);
        }
    }
}

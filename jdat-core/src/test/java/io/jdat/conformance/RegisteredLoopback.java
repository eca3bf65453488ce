package io.jdat.conformance;

import io.jdat.Dat;
import io.jdat.ProviderInfo;
import io.jdat.engine.SoftwareProvider;
import io.jdat.loopback.LoopbackLibrary;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A loopback IA name a test registers itself (as {@code dat_provider_init} would), keeping the
 * {@link SoftwareProvider} that serves it so the test can look at its open instances and threads
 * and remove it from the dynamic registry again.
 *
 * @param name     the IA name, unique in this JVM; also the loopback address
 * @param info     the registry key
 * @param library  the library instance that registered it
 * @param provider the provider behind the name
 */
record RegisteredLoopback(String name, ProviderInfo info, LoopbackLibrary library, SoftwareProvider provider)
{
    private static final AtomicInteger NAMES = new AtomicInteger();

    /** Registers a fresh thread-safe uDAPL 1.2 loopback name with this instance data. */
    static RegisteredLoopback create(final String instanceData)
    {
        return create(ProviderInfo.of("loopback-r" + NAMES.incrementAndGet(), Dat.THREADSAFE), instanceData);
    }

    /** Registers the given key (any name, version and thread safety) as a loopback provider. */
    static RegisteredLoopback create(final ProviderInfo info, final String instanceData)
    {
        final LoopbackLibrary library = new LoopbackLibrary();
        library.providerInit(info, instanceData);
        return new RegisteredLoopback(info.iaName(), info, library, library.provider(info));
    }

    /** A fresh name that no provider registered. */
    static String unregisteredName()
    {
        return "no-such-ia-" + NAMES.incrementAndGet();
    }

    /** {@code dat_provider_fini}: removes the name from the dynamic registry. */
    void unregister()
    {
        library.providerFini(info);
    }
}

package io.jdat.shm;

import io.jdat.EventDispatcher;
import io.jdat.EventNumber;
import io.jdat.EvdFlags;
import io.jdat.PspFlags;
import io.jdat.PublicServicePoint;
import io.jdat.Qos;
import io.jdat.engine.SoftwareProvider;
import io.jdat.testkit.ProviderNode;
import io.jdat.testkit.Transaction;
import java.nio.file.Path;

/**
 * Test plumbing: an shm IA name registered for one test (its own directory and address), opened,
 * with a PZ, an arena for registered memory and endpoint helpers ({@link ProviderNode}). Closing
 * closes the IA abruptly and removes the name again.
 */
final class ShmNode extends ProviderNode
{
    /** The two-process transaction of this provider's tests (Sends of 1000 + 7000 i bytes). */
    static final Transaction TRANSACTION = new Transaction(7000);

    private final ShmLibrary library;

    private ShmNode(final ShmLibrary library, final String instanceData)
    {
        super("shm", library, instanceData);
        this.library = library;
    }

    /** Registers and opens an shm IA on {@code address} in {@code dir}, with more instance data. */
    static ShmNode open(final Path dir, final String address, final String more)
    {
        return new ShmNode(new ShmLibrary(), "dir=" + dir + " address=" + address + " " + more);
    }

    SoftwareProvider provider()
    {
        return library.provider(info);
    }

    /** Connects {@code client} to {@code server} through a PSP on {@code qual}: {client EP, server EP}. */
    static Ep[] connect(final ShmNode client, final ShmNode server, final long qual)
    {
        final EventDispatcher crEvd = server.evd(8, EvdFlags.CR_FLAG);
        final PublicServicePoint psp = server.ia.pspCreate(qual, crEvd, PspFlags.CONSUMER_FLAG);
        final Ep c = client.ep(null);
        final Ep s = server.ep(null);
        c.ep().connect(server.address, qual, 5 * SECOND, null, Qos.BEST_EFFORT, 0);
        next(crEvd, EventNumber.CONNECTION_REQUEST_EVENT).crArrival.crHandle.accept(s.ep(), null);
        next(c.conn(), EventNumber.CONNECTION_EVENT_ESTABLISHED);
        next(s.conn(), EventNumber.CONNECTION_EVENT_ESTABLISHED);
        psp.free();
        return new Ep[] {c, s};
    }
}

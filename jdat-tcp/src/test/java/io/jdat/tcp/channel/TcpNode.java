package io.jdat.tcp.channel;

import io.jdat.IaAttr;
import io.jdat.engine.SoftwareProvider;
import io.jdat.testkit.ProviderNode;
import io.jdat.testkit.Transaction;

/**
 * Test plumbing: a tcp IA name registered for one test with its own instance data, opened, with a
 * PZ, an arena for registered memory and endpoint helpers ({@link ProviderNode}). Closing closes
 * the IA abruptly and removes the name again.
 */
final class TcpNode extends ProviderNode
{
    /** The two-process transaction of this provider's tests (Sends of 1000 + 9000 i bytes). */
    static final Transaction TRANSACTION = new Transaction(9000);

    private final TcpLibrary library;

    private TcpNode(final TcpLibrary library, final String instanceData)
    {
        super("tcp", library, instanceData);
        this.library = library;
    }

    /** Registers and opens a tcp IA with this instance data (for example {@code "crc=true mss=1448"}). */
    static TcpNode open(final String instanceData)
    {
        return new TcpNode(new TcpLibrary(), instanceData);
    }

    static TcpNode open()
    {
        return open("");
    }

    IaAttr query()
    {
        final IaAttr a = new IaAttr();
        ia.query(IaAttr.FIELD_ALL, a, 0, null);
        return a;
    }

    SoftwareProvider provider()
    {
        return library.provider(info);
    }
}

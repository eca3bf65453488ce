package io.jdat.tcp.channel;

import io.jdat.EventDispatcher;
import io.jdat.EvdFlags;
import io.jdat.IaAddress;
import io.jdat.InterfaceAdapter;
import io.jdat.PspFlags;
import io.jdat.PublicServicePoint;
import io.jdat.testkit.ProtectionMatrix;
import org.junit.jupiter.api.Test;

/**
 * The protection matrix over tcp: both IAs in this JVM, every access through a real TCP
 * connection; and one violation with the target in a second JVM ({@link #main} is that target).
 */
class TcpProtectionTest extends ProtectionMatrix
{

    @Override
    protected String provider()
    {
        return "tcp";
    }

    @Override
    protected InterfaceAdapter open(final String role)
    {
        return openRegistered(new TcpLibrary(), "");
    }

    /** As in iWARP, a Write completes once the kernel took its bytes, before the target checked it. */
    @Override
    protected boolean writeCompletesWhenPlaced()
    {
        return false;
    }

    @Test
    void violationAcrossTwoProcessesChangesNoByteAtTheTarget() throws Exception
    {
        try (SecondJvm target = new SecondJvm(IaAddress.parse("127.0.0.1"), 0, TcpProtectionTest.class))
        {
            violationAcrossTwoProcesses(target);
        }
    }

    /** The target in the second JVM: a tcp IA on 127.0.0.1 listening on a free port. */
    public static void main(final String[] args)
    {
        final int code;
        try (TcpNode node = TcpNode.open())
        {
            final EventDispatcher crEvd = node.evd(4, EvdFlags.CR_FLAG);
            final PublicServicePoint psp = node.ia.pspCreateAny(crEvd, PspFlags.CONSUMER_FLAG);
            code = runTarget(node.ia, crEvd, Long.toString(psp.connQual()));
        }
        System.exit(code);
    }
}

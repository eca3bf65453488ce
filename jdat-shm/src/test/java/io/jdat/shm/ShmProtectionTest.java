package io.jdat.shm;

import io.jdat.EventDispatcher;
import io.jdat.EvdFlags;
import io.jdat.IaAddress;
import io.jdat.InterfaceAdapter;
import io.jdat.PspFlags;
import io.jdat.testkit.ProtectionMatrix;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The protection matrix over shm: both IAs in this JVM, each on its own address of one
 * directory, every access through the rings of a real connection file; and one violation with
 * the target in a second JVM ({@link #main} is that target).
 */
class ShmProtectionTest extends ProtectionMatrix
{
    private static final long QUAL = 5000;
    private final Path dir = TestFiles.freshDir();

    @Override
    protected String provider()
    {
        return "shm";
    }

    @Override
    protected InterfaceAdapter open(final String role)
    {
        return openRegistered(new ShmLibrary(), "dir=" + dir + " address=" + role);
    }

    @Override
    protected void closed()
    {
        TestFiles.delete(dir);
    }

    /** A Write completes once the target consumed its last record, which it does after placing it. */
    @Override
    protected boolean writeCompletesWhenPlaced()
    {
        return true;
    }

    @Test
    void violationAcrossTwoProcessesChangesNoByteAtTheTarget() throws Exception
    {
        try (SecondJvm target = new SecondJvm(IaAddress.named("remote"), QUAL, ShmProtectionTest.class,
            dir.toString()))
        {
            violationAcrossTwoProcesses(target);
        }
    }

    /** The target in the second JVM: {@code ShmProtectionTest DIR} listens on address "remote" of DIR. */
    public static void main(final String[] args)
    {
        final int code;
        try (ShmNode node = ShmNode.open(Path.of(args[0]), "remote", ""))
        {
            final EventDispatcher crEvd = node.evd(4, EvdFlags.CR_FLAG);
            node.ia.pspCreate(QUAL, crEvd, PspFlags.CONSUMER_FLAG);
            code = runTarget(node.ia, crEvd, null);
        }
        System.exit(code);
    }
}

package io.jdat.conformance;

import io.jdat.Dat;
import io.jdat.DatOut;
import io.jdat.EventDispatcher;
import io.jdat.InterfaceAdapter;
import io.jdat.testkit.ProtectionMatrix;

/** The protection matrix on loopback: two IAs of their own names, connected in this JVM. */
class LoopbackProtectionTest extends ProtectionMatrix
{
    @Override
    protected String provider()
    {
        return "loopback";
    }

    @Override
    protected InterfaceAdapter open(final String role)
    {
        return Dat.iaOpen(Fixture.loopbackWith(""), 64, new DatOut<EventDispatcher>());
    }

    /** The loopback channel completes a Write after the target's engine validated and placed it. */
    @Override
    protected boolean writeCompletesWhenPlaced()
    {
        return true;
    }
}

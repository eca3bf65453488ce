package io.jdat.tools.dapltest;

import io.jdat.CompletionFlags;
import io.jdat.DatEvent;
import io.jdat.EpAttr;
import io.jdat.EventNumber;
import io.jdat.IaAddress;
import io.jdat.Lmr;
import io.jdat.LmrTriplet;
import io.jdat.MemPriv;
import io.jdat.tools.kit.CheckFailed;
import io.jdat.tools.kit.Completion;
import io.jdat.tools.kit.Link;
import io.jdat.tools.kit.Node;
import java.lang.foreign.MemorySegment;
import java.util.function.Consumer;

/**
 * The client's side of dapltest's control connection ({@code dapl_client.c}): connect to the
 * server's port without private data, Send {@code Client_Info} and the command (8192 bytes each,
 * {@link DapltestWire}), receive {@code Server_Info}, and see the server close the connection,
 * which it does once it answered.
 */
final class DapltestControl
{
    private static final long CTRL_COOKIE = 0xc0;

    private DapltestControl()
    {
    }

    /**
     * Asks the server at {@code address:port} for a test; returns the first port of its test
     * connections.
     *
     * @param command writes the command into the 8192 bytes it is given
     * @param commandName what the command is called in errors ({@code Transaction_Cmd}, ...)
     */
    static long ask(final Node node, final IaAddress address, final long port, final DapltestWire.TestType type,
        final int totalThreads, final String commandName, final Consumer<MemorySegment> command,
        final long timeoutMicros)
    {
        final EpAttr attr = new EpAttr();
        attr.maxRecvDtos = 2;
        attr.maxRequestDtos = 4;
        final Link ctrl = node.link("client control", attr, Completion.WAIT, timeoutMicros);
        final Lmr buf = node.register(3L * DapltestWire.CONTROL_SIZE, MemPriv.LOCAL_READ_FLAG
            | MemPriv.LOCAL_WRITE_FLAG);
        try
        {
            final MemorySegment m = buf.memory();
            final LmrTriplet[] one = {LmrTriplet.of(buf, 2L * DapltestWire.CONTROL_SIZE, DapltestWire.CONTROL_SIZE)};
            ctrl.ep.postRecv(1, one, CTRL_COOKIE, CompletionFlags.DEFAULT_FLAG);
            ctrl.connect(address, port, null);
            DapltestWire.clientInfo(m, type, totalThreads);
            command.accept(m.asSlice(DapltestWire.CONTROL_SIZE, DapltestWire.CONTROL_SIZE));
            for (int i = 0; i < 2; i++)
            {
                one[0] = LmrTriplet.of(buf, (long) i * DapltestWire.CONTROL_SIZE, DapltestWire.CONTROL_SIZE);
                ctrl.ep.postSend(1, one, CTRL_COOKIE + 1 + i, CompletionFlags.DEFAULT_FLAG);
                ctrl.expectRequest(i == 0 ? "Send of Client_Info" : "Send of " + commandName, CTRL_COOKIE + 1 + i,
                    DapltestWire.CONTROL_SIZE);
            }
            final DatEvent ev = ctrl.expectRecv("Recv of Server_Info", CTRL_COOKIE, -1);
            final long first = DapltestWire.firstPort(m.asSlice(2L * DapltestWire.CONTROL_SIZE),
                ev.dto.transferredLength);
            final DatEvent gone = ctrl.nextConnectionEvent("the server's close of the control connection");
            if (!gone.is(EventNumber.CONNECTION_EVENT_DISCONNECTED) && !gone.is(EventNumber.CONNECTION_EVENT_BROKEN))
            {
                throw new CheckFailed("control connection: expected the server's close, saw " + gone);
            }
            return first;
        }
        finally
        {
            ctrl.abort();
            ctrl.free();
            buf.free();
        }
    }

    /** {@code dapltest -T Q}: asks the server to stop once its running tests end. */
    static void quit(final Node node, final IaAddress address, final long port, final long timeoutMicros)
    {
        ask(node, address, port, DapltestWire.TestType.QUIT, 0, "Quit_Cmd",
            m -> DapltestWire.quitCmd(m, address.toString(), node.iaName), timeoutMicros);
    }
}

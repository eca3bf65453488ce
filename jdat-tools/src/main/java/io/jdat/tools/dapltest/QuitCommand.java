package io.jdat.tools.dapltest;

import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.ParentCommand;

/** {@code jdat test client quit}: dapltest {@code -T Q}, the server finishes its tests and exits. */
@Command(name = "quit", mixinStandardHelpOptions = true,
    description = {"Asks the server to finish the tests it is running and exit (dapltest -T Q).",
        "It speaks OFED dapltest's wire, so --server may be a real 'dapltest -T S'; --jdat-protocol speaks jdat's "
            + "own to a 'jdat test server'."})
public final class QuitCommand implements Callable<Integer>
{
    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    @ParentCommand
    private ClientCommand client;

    @Mixin
    private WireOptions wire;

    @Override
    public Integer call()
    {
        final CommandLine cl = spec.commandLine();
        client.validate(cl);
        wire.validate(cl);
        final PrintWriter out = cl.getOut();
        if (wire.testPorts() != null)
        {
            throw new CommandLine.ParameterException(cl, "a quit has no test connections: --test-ports has no use");
        }
        if (!wire.jdatProtocol())
        {
            return WireOptions.onDapltestWire(client, cl, "quit", "dapltest quit", (node, server) ->
            {
                DapltestControl.quit(node, server.address(), server.port(), client.timeoutMicros());
                out.println("jdat test quit: server " + server + " answered the quit and stops");
                return 0;
            });
        }
        return client.withServer(out, cl.getErr(), "quit", (node, ctrl, server) ->
        {
            ctrl.call(io.jdat.tools.kit.Message.of("QUIT").build()).expect("BYE");
            out.println("jdat test quit: server " + server + " said BYE");
            return 0;
        });
    }
}

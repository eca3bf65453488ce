package io.jdat.tools.dapltest;

import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.ParentCommand;

/** {@code jdat test client quit}: dapltest {@code -T Q}, the server finishes its tests and exits. */
@Command(name = "quit", mixinStandardHelpOptions = true,
    description = "Asks the server to finish the tests it is running and exit (dapltest -T Q).")
public final class QuitCommand implements Callable<Integer>
{
    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    @ParentCommand
    private ClientCommand client;

    @Override
    public Integer call()
    {
        final CommandLine cl = spec.commandLine();
        client.validate(cl);
        final PrintWriter out = cl.getOut();
        return client.withServer(out, cl.getErr(), "quit", (node, ctrl, server) ->
        {
            ctrl.call(io.jdat.tools.kit.Message.of("QUIT").build()).expect("BYE");
            out.println("jdat test quit: server " + server + " said BYE");
            return 0;
        });
    }
}

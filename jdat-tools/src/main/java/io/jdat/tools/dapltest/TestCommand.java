package io.jdat.tools.dapltest;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code jdat test}: dapltest for jdat, a server and a client. */
@Command(name = "test", mixinStandardHelpOptions = true,
    description = {"Runs dapltest for DAT: transaction, performance, limit and FFT tests.",
        "'jdat test server' serves until a client says quit; 'jdat test client [--server A:N] "
            + "transaction|performance|limit|fft|quit ...' runs one test. Without --server the client starts a "
            + "server in its own process (the only way with loopback)."},
    subcommands = {ServerCommand.class, ClientCommand.class})
public final class TestCommand implements Runnable
{
    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    @Override
    public void run()
    {
        throw new CommandLine.ParameterException(spec.commandLine(), "say 'server' or 'client'");
    }
}

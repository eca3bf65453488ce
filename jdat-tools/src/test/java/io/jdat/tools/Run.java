package io.jdat.tools;

import java.io.PrintWriter;
import java.io.StringWriter;

/**
 * One in-process run of the {@code jdat} command with its output captured.
 *
 * @param code the exit code
 * @param out  what it printed to stdout
 * @param err  what it printed to stderr
 */
record Run(int code, String out, String err)
{
    /** Runs {@code jdat args…} in this JVM. */
    static Run jdat(final String... args)
    {
        final StringWriter out = new StringWriter();
        final StringWriter err = new StringWriter();
        final int code = Jdat.execute(new PrintWriter(out, true), new PrintWriter(err, true), args);
        return new Run(code, out.toString(), err.toString());
    }

    /** Everything printed, for assertion messages. */
    String all()
    {
        return "exit " + code + "\n--- stdout\n" + out + "--- stderr\n" + err;
    }

    /** Whether stderr is exactly one line and holds no stack trace. */
    boolean oneErrorLine()
    {
        final String e = err.strip();
        return !e.isEmpty() && e.lines().count() == 1 && !e.contains("Exception") && !e.contains("\tat ");
    }
}

package io.jdat.tools;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;

/**
 * Prints a tool's steps as it goes and counts its checks, for the summary at the end.
 */
public final class Steps
{
    private final PrintWriter out;
    private final List<String> verified = new ArrayList<>();
    private int step;
    private int checks;

    /** Steps printed to {@code out}. */
    public Steps(final PrintWriter out)
    {
        this.out = out;
    }

    /** Prints a numbered step. */
    public void step(final String what)
    {
        out.printf("  [%2d] %s%n", ++step, what);
        out.flush();
    }

    /** Prints a detail of the current step. */
    public void detail(final String what)
    {
        out.println("       " + what);
        out.flush();
    }

    /** Counts {@code n} checks that passed. */
    public void passed(final int n)
    {
        checks += n;
    }

    /** Records one line for the summary of what was verified. */
    public void verified(final String what)
    {
        verified.add(what);
    }

    /** How many checks passed. */
    public int checks()
    {
        return checks;
    }

    /** Prints the summary: what was verified and how many checks passed. */
    public void summary()
    {
        out.println("Verified:");
        verified.forEach(v -> out.println("  - " + v));
        out.println("all checks passed (" + checks + " checks)");
        out.flush();
    }
}

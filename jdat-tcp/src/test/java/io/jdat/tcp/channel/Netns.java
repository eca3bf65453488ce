package io.jdat.tcp.channel;

import io.jdat.testkit.RequiredTools;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Two network namespaces of this test run, {@code jdat-PID-a} and {@code jdat-PID-b}, joined by
 * a veth pair ({@code jdat0} in a, 10.213.7.1/24; {@code jdat1} in b, 10.213.7.2/24), and the
 * faults the tests put on that link. Creating them first removes what an earlier run that died
 * left behind (namespaces of a process that no longer exists, and what still runs in them);
 * {@link #close()} removes them. Needs root and iproute2's {@code ip} and {@code tc}: without
 * them the tests skip, or fail where tools are required ({@link RequiredTools}).
 *
 * <p>Faults are {@code tc netem} qdiscs on both ends of the pair. A kernel built without netem
 * ({@code CONFIG_NET_SCH_NETEM}) gets the same faults from classifiers it has: a classic-BPF
 * filter on each end's ingress picks packets at random (the {@code rand} ancillary load) and
 * {@code mirred} drops them (redirected to an ifb device that is down), duplicates them
 * (mirrored back into the same ingress) or reorders them (redirected through an ifb device
 * whose token bucket holds them back); a fixed delay has no such counterpart: the tests then
 * delay the byte stream with a relay ({@link DelayRelay}) instead of the link.
 */
final class Netns implements AutoCloseable
{
    static final String ADDRESS_A = "10.213.7.1";
    static final String ADDRESS_B = "10.213.7.2";
    static final String DEVICE_A = "jdat0";
    static final String DEVICE_B = "jdat1";
    private static final Pattern OURS = Pattern.compile("^jdat-(\\d+)-[ab]$");

    final String a;
    final String b;
    /** Whether the kernel has netem (else faults are made with filters, see above). */
    final boolean netem;
    private boolean closed;

    /** A fault of the link, both ways, as netem arguments and as the share of packets a filter picks. */
    enum Fault
    {
        LOSS("loss 5%", 0.05),
        DELAY("delay 50ms", 0),
        REORDER("delay 10ms reorder 25% 50%", 0.25),
        DUPLICATE("duplicate 5%", 0.05);

        final String netem;
        final double share;

        Fault(final String netem, final double share)
        {
            this.netem = netem;
            this.share = share;
        }
    }

    private Netns(final String a, final String b, final boolean netem)
    {
        this.a = a;
        this.b = b;
        this.netem = netem;
    }

    /** Creates the namespaces and the link, or skips (fails where tools are required) saying why not. */
    static Netns create() throws IOException, InterruptedException
    {
        RequiredTools.require(RequiredTools.onPath("ip") && RequiredTools.onPath("tc"),
            "iproute2 (ip, tc) is not installed: the network namespace tests of the tcp provider cannot run");
        RequiredTools.require(RequiredTools.root(), "not root: the network namespace tests of the tcp provider "
            + "need root to create namespaces and a veth pair");
        removeLeftovers();
        final long pid = ProcessHandle.current().pid();
        final Netns n = new Netns("jdat-" + pid + "-a", "jdat-" + pid + "-b", false);
        final Result made = run("ip", "netns", "add", n.a);
        RequiredTools.require(made.ok(), "cannot create a network namespace here: " + made.output());
        boolean done = false;
        try
        {
            check("ip", "netns", "add", n.b);
            check("ip", "link", "add", DEVICE_A, "netns", n.a, "type", "veth", "peer", "name", DEVICE_B, "netns", n.b);
            n.configure(n.a, DEVICE_A, ADDRESS_A);
            n.configure(n.b, DEVICE_B, ADDRESS_B);
            // does the kernel have netem?
            final boolean netem = run(n.tc(n.a, "qdisc", "add", "dev", DEVICE_A, "root", "netem", "delay", "0ms")).ok();
            if (netem)
            {
                check(n.tc(n.a, "qdisc", "del", "dev", DEVICE_A, "root"));
            }
            else
            {
                System.err.println("note: this kernel has no netem qdisc; link faults are made with BPF filters "
                    + "and mirred instead (and a fixed delay by a relay, DelayRelay)");
            }
            done = true;
            return new Netns(n.a, n.b, netem);
        }
        finally
        {
            if (!done)
            {
                n.close();
            }
        }
    }

    private void configure(final String ns, final String device, final String address)
        throws IOException, InterruptedException
    {
        check("ip", "-n", ns, "link", "set", "lo", "up");
        check("ip", "-n", ns, "addr", "add", address + "/24", "dev", device);
        // one TCP segment per packet, so that a fault's share counts wire segments
        run("ip", "-n", ns, "link", "set", device, "gso_max_segs", "1");
        check("ip", "-n", ns, "link", "set", device, "up");
    }

    /** The command prefix that runs a program in namespace {@code ns}. */
    static List<String> in(final String ns)
    {
        return List.of("ip", "netns", "exec", ns);
    }

    private String[] tc(final String ns, final String... args)
    {
        final List<String> c = new ArrayList<>(in(ns));
        c.add("tc");
        c.addAll(List.of(args));
        return c.toArray(new String[0]);
    }

    /** Puts {@code fault} on both ends of the link; skips if the kernel cannot make it. */
    void apply(final Fault fault) throws IOException, InterruptedException
    {
        if (netem)
        {
            for (final String[] end : ends())
            {
                final List<String> c = new ArrayList<>(List.of(tc(end[0], "qdisc", "add", "dev", end[1], "root",
                    "netem")));
                c.addAll(List.of(fault.netem.split(" ")));
                check(c.toArray(new String[0]));
            }
            return;
        }
        if (fault == Fault.DELAY)
        {
            throw new IllegalArgumentException("a fixed link delay needs netem, which this kernel lacks: "
                + "delay the stream with DelayRelay instead");
        }
        // rand > threshold picks the share: ld rand; jgt #T, match, no match; ret -1 (match); ret 0
        final long threshold = (long) ((1 - fault.share) * 4294967296.0);
        final String picker = "4,32 0 0 4294963256,37 0 1 " + threshold + ",6 0 0 4294967295,6 0 0 0";
        for (final String[] end : ends())
        {
            final String ns = end[0];
            final String device = end[1];
            final List<String> action = switch (fault)
            {
                case LOSS ->
                {
                    check("ip", "-n", ns, "link", "add", "jdatdrop", "type", "ifb");
                    yield List.of("mirred", "egress", "redirect", "dev", "jdatdrop");
                }
                case DUPLICATE -> List.of("mirred", "ingress", "mirror", "dev", device);
                default ->
                {
                    check("ip", "-n", ns, "link", "add", "jdatslow", "type", "ifb");
                    check("ip", "-n", ns, "link", "set", "jdatslow", "up");
                    check(tc(ns, "qdisc", "add", "dev", "jdatslow", "root", "tbf", "rate", "20mbit", "burst", "3000",
                        "latency", "100ms"));
                    yield List.of("mirred", "egress", "redirect", "dev", "jdatslow");
                }
            };
            check(tc(ns, "qdisc", "add", "dev", device, "clsact"));
            final List<String> c = new ArrayList<>(List.of(tc(ns, "filter", "add", "dev", device, "ingress", "prio",
                "1", "protocol", "ip", "bpf", "bytecode", picker, "action")));
            c.addAll(action);
            check(c.toArray(new String[0]));
        }
    }

    /**
     * Everything that arrives in namespace {@code ns} from now on is lost (an ingress filter that
     * takes every IP packet to an ifb device that is down): the other end's data and TCP ACKs.
     */
    void dropArrivals(final String ns) throws IOException, InterruptedException
    {
        final String device = ns.equals(a) ? DEVICE_A : DEVICE_B;
        check("ip", "-n", ns, "link", "add", "jdatdrop", "type", "ifb");
        check(tc(ns, "qdisc", "add", "dev", device, "clsact"));
        // ret -1: every packet matches
        check(tc(ns, "filter", "add", "dev", device, "ingress", "prio", "1", "protocol", "ip", "bpf", "bytecode",
            "1,6 0 0 4294967295", "action", "mirred", "egress", "redirect", "dev", "jdatdrop"));
    }

    /** Takes every fault off the link again. */
    void clear() throws IOException, InterruptedException
    {
        for (final String[] end : ends())
        {
            run(tc(end[0], "qdisc", "del", "dev", end[1], "root"));
            run(tc(end[0], "qdisc", "del", "dev", end[1], "clsact"));
            run("ip", "-n", end[0], "link", "del", "jdatdrop");
            run("ip", "-n", end[0], "link", "del", "jdatslow");
        }
    }

    private String[][] ends()
    {
        return new String[][] {{a, DEVICE_A}, {b, DEVICE_B}};
    }

    /** Takes namespace a's end of the pair down (both ends lose the link). */
    void linkDown() throws IOException, InterruptedException
    {
        check("ip", "-n", a, "link", "set", DEVICE_A, "down");
    }

    /** Brings it up again and waits until both ends have the link. */
    void linkUp() throws IOException, InterruptedException
    {
        check("ip", "-n", a, "link", "set", DEVICE_A, "up");
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (!run("ip", "-n", a, "link", "show", DEVICE_A).output().contains("LOWER_UP")
            || !run("ip", "-n", b, "link", "show", DEVICE_B).output().contains("LOWER_UP"))
        {
            if (System.nanoTime() - deadline > 0)
            {
                throw new IOException("the link did not come up");
            }
            Thread.sleep(20);
        }
    }

    /** The kernel's TCP counters of both namespaces added up ({@code /proc/net/snmp} and {@code netstat}). */
    Map<String, Long> tcpCounters() throws IOException, InterruptedException
    {
        final Map<String, Long> sum = new HashMap<>();
        for (final String ns : new String[] {a, b})
        {
            final List<String> c = new ArrayList<>(in(ns));
            c.addAll(List.of("cat", "/proc/net/snmp", "/proc/net/netstat"));
            final List<String> lines = check(c.toArray(new String[0])).lines().toList();
            for (int i = 0; i + 1 < lines.size(); i++)
            {
                final String[] names = lines.get(i).split("\\s+");
                final String[] values = lines.get(i + 1).split("\\s+");
                if (names.length == values.length && names[0].equals(values[0])
                    && (names[0].equals("Tcp:") || names[0].equals("TcpExt:")) && !values[1].matches(".*[A-Za-z].*"))
                {
                    for (int k = 1; k < names.length; k++)
                    {
                        sum.merge(names[k], Long.parseLong(values[k]), Long::sum);
                    }
                }
            }
        }
        return sum;
    }

    @Override
    public void close() throws IOException
    {
        if (closed)
        {
            return;
        }
        closed = true;
        // an interrupt does not leave a namespace behind: the cleanup runs to its end, then the
        // caller sees the interrupt
        boolean interrupted = false;
        for (final String ns : new String[] {a, b})
        {
            while (true)
            {
                try
                {
                    killInside(ns);
                    run("ip", "netns", "del", ns);
                    break;
                }
                catch (final InterruptedException e)
                {
                    interrupted = true;
                }
            }
        }
        if (interrupted)
        {
            Thread.currentThread().interrupt();
        }
    }

    /** Namespaces of earlier runs whose process is gone: what runs in them is killed, they are removed. */
    private static void removeLeftovers() throws IOException, InterruptedException
    {
        for (final String line : run("ip", "netns", "list").output().lines().toList())
        {
            final String name = line.trim().split("\\s+")[0];
            final Matcher m = OURS.matcher(name);
            if (m.matches() && ProcessHandle.of(Long.parseLong(m.group(1))).isEmpty())
            {
                killInside(name);
                run("ip", "netns", "del", name);
            }
        }
    }

    private static void killInside(final String ns) throws IOException, InterruptedException
    {
        for (final String pid : run("ip", "netns", "pids", ns).output().lines().toList())
        {
            if (pid.trim().matches("\\d+"))
            {
                ProcessHandle.of(Long.parseLong(pid.trim())).ifPresent(ProcessHandle::destroyForcibly);
            }
        }
    }

    /** A command's exit status and output. */
    record Result(int status, String output)
    {
        boolean ok()
        {
            return status == 0;
        }
    }

    static Result run(final String... command) throws IOException, InterruptedException
    {
        final Path out = Files.createTempFile("jdat-netns", ".out");
        try
        {
            final Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(out.toFile())
                .start();
            if (!p.waitFor(10, TimeUnit.SECONDS))
            {
                p.destroyForcibly();
                throw new IOException("did not end within 10 s: " + String.join(" ", command));
            }
            return new Result(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8));
        }
        finally
        {
            Files.deleteIfExists(out);
        }
    }

    /** Runs a command that must succeed; its output. */
    static String check(final String... command) throws IOException, InterruptedException
    {
        final Result r = run(command);
        if (!r.ok())
        {
            throw new IOException(String.join(" ", command) + " failed (" + r.status() + "): " + r.output());
        }
        return r.output();
    }
}

package io.jdat.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.Writer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code jdat rping}: a server and a client in this JVM on loopback and on tcp (real sockets),
 * every byte of every ping verified; a corrupted echo and a server that leaves early end the
 * client with exit 1 and one line saying what was seen.
 */
class RpingTest
{
    /** A server started on a thread; its output is watched for the listening line. */
    private static final class Server
    {
        final StringWriter text = new StringWriter();
        final CountDownLatch listening = new CountDownLatch(1);
        final StringWriter err = new StringWriter();
        final CompletableFuture<Integer> exit;
        volatile long port;

        Server(final String... args)
        {
            final Writer watch = new Writer()
            {
                @Override
                public void write(final char[] buf, final int off, final int len)
                {
                    text.write(buf, off, len);
                    final Matcher m = Pattern.compile("listening on \\S+ port (\\d+)").matcher(text.toString());
                    if (listening.getCount() > 0 && m.find())
                    {
                        port = Long.parseLong(m.group(1));
                        listening.countDown();
                    }
                }

                @Override
                public void flush()
                {
                }

                @Override
                public void close()
                {
                }
            };
            exit = CompletableFuture.supplyAsync(() -> Jdat.execute(new PrintWriter(watch, true),
                new PrintWriter(err, true), args),
                task -> Thread.ofPlatform().daemon().name("rping-server").start(task));
        }

        long awaitListening() throws InterruptedException
        {
            assertTrue(listening.await(20, TimeUnit.SECONDS), "the server never listened: " + text + err);
            return port;
        }

        int exit() throws Exception
        {
            return exit.get(30, TimeUnit.SECONDS);
        }

        String all()
        {
            return "--- server stdout\n" + text + "--- server stderr\n" + err;
        }
    }

    @ParameterizedTest(name = "{0} -S {2} -C {3}")
    @CsvSource({"loopback, loopback, 64, 10", "loopback, loopback, 65536, 20", "tcp, 127.0.0.1, 64, 10",
        "tcp, 127.0.0.1, 65536, 100"})
    void clientAndServerExitZeroWithEveryPingVerified(final String provider, final String address, final int size,
        final int count) throws Exception
    {
        final Server server = new Server("rping", "--provider", provider, "-s", "-a", address, "-p", "0", "-C",
            Integer.toString(count), "-S", Integer.toString(size), "--timeout", "20");
        final long port = server.awaitListening();
        final Run client = Run.jdat("rping", "--provider", provider, "-c", "-a", address, "-p", Long.toString(port),
            "-C", Integer.toString(count), "-S", Integer.toString(size), "-v", "--timeout", "20");
        assertEquals(0, client.code(), client.all() + server.all());
        assertEquals(0, server.exit(), server.all());
        assertTrue(client.out().contains("rping client: " + count + " pings of " + size
            + " bytes, every byte verified"),
            client.all());
        assertTrue(server.text.toString().contains("rping server: " + count + " pings"), server.all());
        // -v prints each ping's text as rping does: "rdma-ping-N: " and the letters from 'A' + N
        assertEquals(count, client.out().lines().filter(l -> l.startsWith("ping data: rdma-ping-")).count(),
            client.all());
        assertTrue(client.out().contains("\nping data: rdma-ping-1: BCDEFGH"), client.all());
    }

    @org.junit.jupiter.api.Test
    void onShmBothSidesLeaveOutTheAddressAndTheClientFindsTheServerOfThisHost() throws Exception
    {
        final Server server = new Server("rping", "--provider", "shm", "-s", "-p", "0", "-C", "100", "-S", "65536",
            "--timeout", "20");
        final long port = server.awaitListening();
        final Run client = Run.jdat("rping", "--provider", "shm", "-c", "-p", Long.toString(port), "-C", "100",
            "-S", "65536", "-v", "--timeout", "20");
        assertEquals(0, client.code(), client.all() + server.all());
        assertEquals(0, server.exit(), server.all());
        assertTrue(client.out().contains("rping client: 100 pings of 65536 bytes, every byte verified"), client.all());
    }

    @ParameterizedTest
    @ValueSource(strings = {"loopback", "tcp"})
    void aServerWithoutCountServesUntilTheClientLeaves(final String provider) throws Exception
    {
        final String address = provider.equals("tcp") ? "127.0.0.1" : "loopback";
        final Server server = new Server("rping", "--provider", provider, "-s", "-p", "0", "--timeout", "20");
        final long port = server.awaitListening();
        final Run client = Run.jdat("rping", "--provider", provider, "-c", "-a", address, "-p", Long.toString(port),
            "-C", "7", "--timeout", "20");
        assertEquals(0, client.code(), client.all() + server.all());
        assertEquals(0, server.exit(), server.all());
        assertTrue(server.text.toString().contains("rping server: 7 pings"), server.all());
    }

    @ParameterizedTest
    @ValueSource(strings = {"loopback", "tcp"})
    void aCorruptedEchoFailsTheClientWithOneLine(final String provider) throws Exception
    {
        final String address = provider.equals("tcp") ? "127.0.0.1" : "loopback";
        final Server server = new Server("rping", "--provider", provider, "-s", "-p", "0", "-C", "5", "-S",
            "1000", "--corrupt-ping", "3", "--timeout", "5");
        final long port = server.awaitListening();
        final Run client = Run.jdat("rping", "--provider", provider, "-c", "-a", address, "-p", Long.toString(port),
            "-C", "5", "-S", "1000", "--timeout", "5");
        assertEquals(Jdat.EXIT_FAILED, client.code(), client.all());
        assertTrue(client.oneErrorLine(), client.all());
        assertTrue(client.err().contains("data mismatch in ping 3 at byte 500"), client.all());
        server.exit();
    }

    @ParameterizedTest
    @ValueSource(strings = {"loopback", "tcp"})
    void aServerThatLeavesEarlyEndsTheClientWithTheEventItSaw(final String provider) throws Exception
    {
        final String address = provider.equals("tcp") ? "127.0.0.1" : "loopback";
        final Server server = new Server("rping", "--provider", provider, "-s", "-p", "0", "-C", "3", "--timeout",
            "10");
        final long port = server.awaitListening();
        final Run client = Run.jdat("rping", "--provider", provider, "-c", "-a", address, "-p", Long.toString(port),
            "-C", "10", "--timeout", "10");
        assertEquals(0, server.exit(), server.all());
        assertEquals(Jdat.EXIT_FAILED, client.code(), client.all());
        assertTrue(client.oneErrorLine(), client.all());
        assertTrue(client.err().matches("(?s)jdat rping: connection ended in ping 3: "
            + "CONNECTION_EVENT_(DISCONNECTED|BROKEN) \\(.* completed with ERR_FLUSHED\\)\\s*"), client.all());
    }

    @ParameterizedTest
    @ValueSource(strings = {"rping -c -a 127.0.0.1 -S 10", "rping -s -c", "rping -a 127.0.0.1", "rping -c -P tcp"})
    void badCommandLinesAreUsageErrors(final String line)
    {
        final Run r = Run.jdat(line.split(" "));
        assertEquals(Jdat.EXIT_USAGE, r.code(), r.all());
        assertTrue(r.oneErrorLine(), r.all());
    }
}

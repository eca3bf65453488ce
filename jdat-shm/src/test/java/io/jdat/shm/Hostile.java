package io.jdat.shm;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * A peer that does not follow the protocol: it speaks the rendezvous by hand (so it can forge the
 * request) and then writes whatever a test wants into the rings and their control words.
 */
final class Hostile implements AutoCloseable
{
    private static final AtomicLong IDS = new AtomicLong(0xF000_0000L);
    /**
     * Interrupts of a test thread that nothing in the test asked for. Under the fuzzer something
     * outside the provider sets the interrupt status of an input's thread now and then (no Java
     * caller of Thread.interrupt() was seen); the waits of the hostile harness resume after one,
     * so that an input never ends half way and leaves its events to the next one.
     */
    static final java.util.concurrent.atomic.AtomicInteger STRAY_INTERRUPTS =
        new java.util.concurrent.atomic.AtomicInteger();

    final ConnectionFile file;
    /** What this side writes (active to passive) and what the victim writes. */
    final SpscRing tx;
    final SpscRing rx;

    private Hostile(final ConnectionFile file)
    {
        this.file = file;
        this.tx = file.ring(true);
        this.rx = file.ring(false);
    }

    /** Asks the listener on {@code qual} of an address directory, after {@code forge} changed the request. */
    static Hostile request(final Path addressDir, final long qual, final Consumer<ConnectionFile> forge)
    {
        final long id = Liveness.SELF_PID << 32 | IDS.incrementAndGet();
        final ConnectionFile f = ShmDirectory.locked(addressDir, () -> ConnectionFile.create(addressDir, id, 65536));
        f.writeRequest(qual, "hostile", new byte[0], 4, 4);
        forge.accept(f);
        final ListenerFile lf = ListenerFile.open(ShmDirectory.listenerPath(addressDir, qual));
        try
        {
            if (lf.post(id) < 0)
            {
                throw new IllegalStateException("backlog full");
            }
        }
        finally
        {
            lf.unmap();
        }
        return new Hostile(f);
    }

    /** Waits for the victim's accept and confirms it. */
    void establish() throws InterruptedException
    {
        final long deadline = System.nanoTime() + 5_000_000_000L;
        while (file.state() != ConnectionFile.ACCEPTED)
        {
            if (System.nanoTime() > deadline)
            {
                throw new AssertionError("not accepted: state " + file.state());
            }
            pause();
        }
        if (!file.transition(ConnectionFile.ACCEPTED, ConnectionFile.ESTABLISHED))
        {
            throw new AssertionError("could not confirm");
        }
    }

    /**
     * Writes one record through the ring's own rules: header fields (those its type's header
     * holds, {@link Frame#headerLength}), then {@code payload}.
     */
    void record(final int type, final int flags, final int msn, final int stag, final int mo, final long to,
        final byte[] payload)
    {
        final int header = Frame.headerLength(type, flags);
        final long at = tx.claim(header + payload.length);
        if (at < 0)
        {
            throw new IllegalStateException("ring full");
        }
        final MemorySegment d = tx.data();
        Frame.header(d, at, type, flags);
        d.set(ValueLayout.JAVA_INT, at + Frame.MSN, msn);
        d.set(ValueLayout.JAVA_INT, at + Frame.MO, mo);
        if (header >= Frame.STAG + 4)
        {
            d.set(ValueLayout.JAVA_INT, at + Frame.STAG, stag);
            d.set(ValueLayout.JAVA_LONG, at + Frame.TO, to);
        }
        MemorySegment.copy(payload, 0, d, ValueLayout.JAVA_BYTE, at + header, payload.length);
        tx.commit();
    }

    /** The type of the first record the victim wrote, waiting up to 2 s; -1 if it wrote none. */
    int awaitVictimRecord() throws InterruptedException
    {
        final long deadline = System.nanoTime() + 2_000_000_000L;
        while (rx.available() == 0)
        {
            if (System.nanoTime() > deadline)
            {
                return -1;
            }
            pause();
        }
        return Frame.typeAt(rx.data(), rx.readIndex());
    }

    /** Waits a little between looks at the shared file; an interrupt does not end it. */
    static void pause()
    {
        if (Thread.interrupted())
        {
            STRAY_INTERRUPTS.incrementAndGet();
        }
        java.util.concurrent.locks.LockSupport.parkNanos(100_000);
    }

    @Override
    public void close()
    {
        file.unlink();
        file.unmap();
    }
}

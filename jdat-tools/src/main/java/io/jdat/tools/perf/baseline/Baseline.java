package io.jdat.tools.perf.baseline;

import io.jdat.IaAddress;
import io.jdat.tools.kit.Message;
import io.jdat.tools.perf.RowSpec;
import java.lang.foreign.MemorySegment;

/**
 * A plain-Java reference that {@code jdat perf --baseline} measures with the same harness,
 * between the same two threads (or processes), right beside jdat: the same sizes, iterations and
 * windows, so each jdat figure can be shown as a ratio to it.
 */
public interface Baseline
{
    /** The name {@code --baseline} selects and the JSON {@code baseline} field holds. */
    String name();

    /** What is measured, in one line for the table header. */
    String description();

    /**
     * The client's end of one measurement. It adds to {@code run} what the server needs; it is
     * complete once {@link End#ready} has seen the server's READY.
     */
    End client(RowSpec row, int depth, IaAddress server, Message.Builder run);

    /** The server's end of one measurement, from the client's RUN; adds to {@code ready} what the client needs. */
    End server(RowSpec row, int depth, Message run, Message.Builder ready);

    /** One side of a measurement: a way out, a way in, and the buffers of this side. */
    interface End extends AutoCloseable
    {
        /** Completes the setup: the client with the server's READY, the server with null (after READY was sent). */
        void ready(Message ready);

        /** Messages to the peer. */
        Sender out();

        /** Messages from the peer. */
        Receiver in();

        /** This side's source buffer (the size of the row). */
        MemorySegment src();

        /** This side's destination buffer. */
        MemorySegment dst();

        @Override
        void close();
    }

    /** The sending half of a one-way pipe. */
    interface Sender
    {
        /**
         * Sends {@code size} bytes of {@code src} if there is room now (a partial message resumes next call); true once
         * it is all sent.
         */
        boolean trySend(MemorySegment src, long size);
    }

    /** The receiving half of a one-way pipe. */
    interface Receiver
    {
        /** Receives one message of {@code size} bytes into {@code dst} if it is there; true once it is all in. */
        boolean tryReceive(MemorySegment dst, long size);
    }
}

package io.jdat.tools.perf;

/** What {@code jdat perf} measures: perftest's send, write and read tests. */
public enum Op
{
    /** Send/Recv: ping-pong latency, streaming bandwidth with receive credits. */
    send,
    /** RDMA Write: ping-pong latency polling the last byte (as ib_write_lat), windowed bandwidth. */
    write,
    /** RDMA Read: post-to-completion latency, windowed bandwidth. */
    read;

    /** Whether the latency figure is half a round trip (send, write) rather than one operation (read). */
    public boolean halfRoundTrip()
    {
        return this != read;
    }
}

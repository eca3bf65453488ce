package io.jdat.tools.perf;

import io.jdat.tools.kit.Message;

/**
 * One measurement: an operation, latency or bandwidth, a message size and counts. The client
 * sends it to the server in a {@code RUN} message so both sides run the same thing.
 *
 * @param op            send, write or read
 * @param kind          latency (ping-pong) or bandwidth (stream)
 * @param size          message size in bytes
 * @param iters         measured iterations (round trips or messages)
 * @param warmup        iterations before the measured ones
 * @param bidirectional bandwidth only: both sides stream at once
 * @param seed          the data pattern of this measurement
 */
public record RowSpec(Op op, Kind kind, long size, int iters, int warmup, boolean bidirectional, long seed)
{
    /** Latency or bandwidth. */
    public enum Kind
    {
        lat, bw
    }

    /** Iterations in all, warm-up included. */
    public int total()
    {
        return warmup + iters;
    }

    /** The pattern seed of the client's source buffer. */
    public long clientSeed()
    {
        return seed * 2 + 1;
    }

    /** The pattern seed of the server's source buffer. */
    public long serverSeed()
    {
        return seed * 2 + 2;
    }

    /** A {@code RUN} message for this measurement. */
    public Message.Builder toMessage(final String what)
    {
        return Message.of("RUN").with("what", what).with("op", op).with("kind", kind).with("size", size)
            .with("iters", iters).with("warmup", warmup).flag("bidir", bidirectional).with("seed", seed);
    }

    /** The measurement a {@code RUN} message describes. */
    public static RowSpec from(final Message m)
    {
        return new RowSpec(Op.valueOf(m.get("op")), Kind.valueOf(m.get("kind")), m.getLong("size"),
            m.getInt("iters"), m.getInt("warmup"), m.getFlag("bidir"), m.getLong("seed"));
    }

    @Override
    public String toString()
    {
        return op + " " + kind + " " + Sizes.format(size) + (bidirectional ? " bidirectional" : "");
    }
}

package io.jdat.engine;

/**
 * The words of a {@link Connection} that two threads write once per message, each on lines of its
 * own. The thread placing an inbound Send (on loopback the peer's sending thread) writes the
 * receive in progress and the next MSN it expects; the endpoint's own posting thread writes the
 * next MSN it sends. In one object with the fields both read (the channel, the endpoint, whether it
 * closed) they shared a cache line, which moved between the two cores twice per message, and the
 * placing thread's store came before its completion's in the store order.
 *
 * <pre>
 *   [ header | 68 bytes padding | received expectedSendMsn current | 64 bytes |
 *     sendMsn readMsn | 64 bytes | the Connection's own fields ]
 * </pre>
 * A superclass's fields come first in an object and each level's fields fill it without gaps, so
 * no field of a subclass lands between them.
 */
abstract class ConnectionWords extends ConnectionOutbound
{
    @SuppressWarnings("unused")
    private long r0;
    @SuppressWarnings("unused")
    private long r1;
    @SuppressWarnings("unused")
    private long r2;
    @SuppressWarnings("unused")
    private long r3;
    @SuppressWarnings("unused")
    private long r4;
    @SuppressWarnings("unused")
    private long r5;
    @SuppressWarnings("unused")
    private long r6;
    @SuppressWarnings("unused")
    private long r7;
}

/** The posting thread's: the next outbound MSN of Sends (queue 0) and Read Requests (queue 1). */
abstract class ConnectionOutbound extends ConnectionGap
{
    int sendMsn = 1;
    int readMsn = 1;
}

/** Between the two threads' words. */
@SuppressWarnings("unused")
abstract class ConnectionGap extends ConnectionInbound
{
    private long q0;
    private long q1;
    private long q2;
    private long q3;
    private long q4;
    private long q5;
    private long q6;
    private long q7;
}

/** The placing thread's: the receive in progress (its buffer, its bytes so far), the next Send MSN expected. */
abstract class ConnectionInbound extends ConnectionLead
{
    RecvBuffer current;
    long received;
    int expectedSendMsn = 1;
}

/** Ahead of the placing thread's words. */
@SuppressWarnings("unused")
abstract class ConnectionLead
{
    private int p0;
    private long p1;
    private long p2;
    private long p3;
    private long p4;
    private long p5;
    private long p6;
    private long p7;
    private long p8;
}

package io.jdat.shm;

import io.jdat.engine.channel.TerminateCodes;
import io.jdat.engine.channel.TerminateInfo;

/**
 * The peer broke the shared-memory protocol (an impossible ring position, a record that does not
 * fit, an unknown record type): the connection is terminated with {@link #info}. Never thrown
 * while the peer follows the protocol.
 */
final class Corrupt extends RuntimeException
{
    private static final long serialVersionUID = 1L;

    final transient TerminateInfo info;

    private Corrupt(final TerminateInfo info, final String message)
    {
        super(message, null, false, false);
        this.info = info;
    }

    /**
     * Record framing is broken: the shared-memory counterpart of a damaged FPDU (RFC 5044 LLP
     * error "FPDU or marker mismatch").
     */
    static Corrupt framing(final String message)
    {
        return new Corrupt(TerminateInfo.of(TerminateCodes.LAYER_LLP, 0, TerminateCodes.LLP_FPDU_MARKER_MISMATCH),
            message);
    }

    /** A record of a type no RDMAP message has (RFC 5040 remote operation error, unexpected opcode). */
    static Corrupt opcode(final String message)
    {
        return new Corrupt(TerminateInfo.of(TerminateCodes.LAYER_RDMAP, TerminateCodes.RDMAP_REMOTE_OPERATION,
            TerminateCodes.RDMAP_UNEXPECTED_OPCODE), message);
    }
}

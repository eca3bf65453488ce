package io.jdat.engine.channel;

/**
 * A Terminate message (RFC 5040 RDMAP opcode 7): who found the error (layer), its kind (error
 * type) and code, and, when known, the header of the segment that caused it, so the initiator
 * can tell which of its operations failed.
 * <pre>
 *   layer  0 RDMAP   etype 0 local catastrophic, 1 remote protection, 2 remote operation
 *          1 DDP     etype 0 local catastrophic, 1 tagged buffer, 2 untagged buffer, 3 reserved
 *          2 LLP     (MPA) etype 0, codes 1 TCP lost, 2 CRC, 3 marker/FPDU, 4 bad request/reply,
 *                    5 local catastrophic, 6 insufficient IRD, 7 no matching RTR
 * </pre>
 *
 * @param layer    {@link TerminateCodes} layer
 * @param etype    error type within the layer
 * @param code     error code within the type
 * @param hdrKnown whether the offending segment's header fields below are meaningful
 * @param opcode   the offending segment's RDMAP opcode
 * @param tagged   whether it was tagged
 * @param stag     tagged: its STag
 * @param to       tagged: its TO
 * @param queue    untagged: its queue number
 * @param msn      untagged: its MSN
 * @param mo       untagged: its MO
 */
public record TerminateInfo(int layer, int etype, int code, boolean hdrKnown, int opcode, boolean tagged, int stag,
    long to, int queue, int msn, int mo)
{
    /** A Terminate that names no offending header. */
    public static TerminateInfo of(final int layer, final int etype, final int code)
    {
        return new TerminateInfo(layer, etype, code, false, 0, false, 0, 0, 0, 0, 0);
    }

    /** A Terminate about a tagged segment. */
    public static TerminateInfo tagged(final int layer, final int etype, final int code, final int opcode,
        final int stag, final long to)
    {
        return new TerminateInfo(layer, etype, code, true, opcode, true, stag, to, 0, 0, 0);
    }

    /** A Terminate about an untagged segment. */
    public static TerminateInfo untagged(final int layer, final int etype, final int code, final int opcode,
        final int queue, final int msn, final int mo)
    {
        return new TerminateInfo(layer, etype, code, true, opcode, false, 0, 0, queue, msn, mo);
    }

    @Override
    public String toString()
    {
        return "Terminate[" + TerminateCodes.describe(layer, etype, code)
            + (hdrKnown ? ", " + RdmapOpcode.name(opcode)
                + (tagged ? String.format(" stag=0x%08x to=0x%x", stag, to)
                    : " qn=" + queue + " msn=" + msn + " mo=" + mo) : "")
            + "]";
    }
}

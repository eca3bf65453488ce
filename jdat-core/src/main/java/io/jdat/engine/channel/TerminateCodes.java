package io.jdat.engine.channel;

/** Layers, error types and codes of a Terminate message (RFC 5040, RFC 5041, RFC 5044). */
public final class TerminateCodes
{
    public static final int LAYER_RDMAP = 0;
    public static final int LAYER_DDP = 1;
    public static final int LAYER_LLP = 2;

    // RDMAP error types
    public static final int RDMAP_LOCAL_CATASTROPHIC = 0;
    public static final int RDMAP_REMOTE_PROTECTION = 1;
    public static final int RDMAP_REMOTE_OPERATION = 2;

    // RDMAP error codes (remote protection and remote operation)
    public static final int RDMAP_INVALID_STAG = 0x00;
    public static final int RDMAP_BASE_BOUNDS = 0x01;
    public static final int RDMAP_ACCESS_RIGHTS = 0x02;
    public static final int RDMAP_STAG_NOT_ASSOCIATED = 0x03;
    public static final int RDMAP_TO_WRAP = 0x04;
    public static final int RDMAP_INVALID_VERSION = 0x05;
    public static final int RDMAP_UNEXPECTED_OPCODE = 0x06;
    public static final int RDMAP_CATASTROPHIC_STREAM = 0x07;
    public static final int RDMAP_CATASTROPHIC_GLOBAL = 0x08;
    public static final int RDMAP_CANNOT_INVALIDATE = 0x09;
    public static final int RDMAP_UNSPECIFIED = 0xFF;

    // DDP error types
    public static final int DDP_LOCAL_CATASTROPHIC = 0;
    public static final int DDP_TAGGED_BUFFER = 1;
    public static final int DDP_UNTAGGED_BUFFER = 2;

    // DDP tagged buffer codes
    public static final int DDP_TAGGED_INVALID_STAG = 0x00;
    public static final int DDP_TAGGED_BASE_BOUNDS = 0x01;
    public static final int DDP_TAGGED_STAG_NOT_ASSOCIATED = 0x02;
    public static final int DDP_TAGGED_TO_WRAP = 0x03;
    public static final int DDP_TAGGED_INVALID_VERSION = 0x04;

    // DDP untagged buffer codes
    public static final int DDP_UNTAGGED_INVALID_QN = 0x01;
    public static final int DDP_UNTAGGED_INVALID_MSN_NO_BUFFER = 0x02;
    public static final int DDP_UNTAGGED_INVALID_MSN_RANGE = 0x03;
    public static final int DDP_UNTAGGED_INVALID_MO = 0x04;
    public static final int DDP_UNTAGGED_MSG_TOO_LONG = 0x05;
    public static final int DDP_UNTAGGED_INVALID_VERSION = 0x06;

    // LLP (MPA) error codes, error type 0
    public static final int LLP_TCP_LOST = 0x01;
    public static final int LLP_CRC_ERROR = 0x02;
    public static final int LLP_FPDU_MARKER_MISMATCH = 0x03;
    public static final int LLP_BAD_REQUEST_REPLY = 0x04;
    public static final int LLP_LOCAL_CATASTROPHIC = 0x05;
    public static final int LLP_INSUFFICIENT_IRD = 0x06;
    public static final int LLP_NO_MATCHING_RTR = 0x07;

    private TerminateCodes()
    {
    }

    /** A readable name for a layer/etype/code triple. */
    public static String describe(final int layer, final int etype, final int code)
    {
        return switch (layer)
        {
            case LAYER_RDMAP -> "RDMAP " + switch (etype)
            {
                case RDMAP_LOCAL_CATASTROPHIC -> "local catastrophic";
                case RDMAP_REMOTE_PROTECTION -> "remote protection";
                case RDMAP_REMOTE_OPERATION -> "remote operation";
                default -> "etype " + etype;
            } + " / " + switch (code)
            {
                case RDMAP_INVALID_STAG -> "invalid STag";
                case RDMAP_BASE_BOUNDS -> "base or bounds violation";
                case RDMAP_ACCESS_RIGHTS -> "access rights violation";
                case RDMAP_STAG_NOT_ASSOCIATED -> "STag not associated with the stream";
                case RDMAP_TO_WRAP -> "TO wrap";
                case RDMAP_INVALID_VERSION -> "invalid RDMAP version";
                case RDMAP_UNEXPECTED_OPCODE -> "unexpected opcode";
                case RDMAP_CATASTROPHIC_STREAM -> "catastrophic error, localized to the stream";
                case RDMAP_CATASTROPHIC_GLOBAL -> "catastrophic error, global";
                case RDMAP_CANNOT_INVALIDATE -> "STag cannot be invalidated";
                case RDMAP_UNSPECIFIED -> "unspecified";
                default -> "code " + code;
            };
            case LAYER_DDP -> "DDP " + switch (etype)
            {
                case DDP_LOCAL_CATASTROPHIC -> "local catastrophic";
                case DDP_TAGGED_BUFFER -> "tagged buffer / " + switch (code)
                {
                    case DDP_TAGGED_INVALID_STAG -> "invalid STag";
                    case DDP_TAGGED_BASE_BOUNDS -> "base or bounds violation";
                    case DDP_TAGGED_STAG_NOT_ASSOCIATED -> "STag not associated with the stream";
                    case DDP_TAGGED_TO_WRAP -> "TO wrap";
                    case DDP_TAGGED_INVALID_VERSION -> "invalid DDP version";
                    default -> "code " + code;
                };
                case DDP_UNTAGGED_BUFFER -> "untagged buffer / " + switch (code)
                {
                    case DDP_UNTAGGED_INVALID_QN -> "invalid queue number";
                    case DDP_UNTAGGED_INVALID_MSN_NO_BUFFER -> "invalid MSN, no buffer available";
                    case DDP_UNTAGGED_INVALID_MSN_RANGE -> "invalid MSN range";
                    case DDP_UNTAGGED_INVALID_MO -> "invalid MO";
                    case DDP_UNTAGGED_MSG_TOO_LONG -> "message too long for the buffer";
                    case DDP_UNTAGGED_INVALID_VERSION -> "invalid DDP version";
                    default -> "code " + code;
                };
                default -> "etype " + etype + " code " + code;
            };
            case LAYER_LLP -> "LLP " + switch (code)
            {
                case LLP_TCP_LOST -> "TCP connection lost";
                case LLP_CRC_ERROR -> "CRC error";
                case LLP_FPDU_MARKER_MISMATCH -> "FPDU or marker mismatch";
                case LLP_BAD_REQUEST_REPLY -> "invalid MPA request or reply";
                case LLP_LOCAL_CATASTROPHIC -> "local catastrophic";
                case LLP_INSUFFICIENT_IRD -> "insufficient IRD";
                case LLP_NO_MATCHING_RTR -> "no matching RTR";
                default -> "code " + code;
            };
            default -> "layer " + layer + " etype " + etype + " code " + code;
        };
    }
}

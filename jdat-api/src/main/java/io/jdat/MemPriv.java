package io.jdat;

/**
 * {@code DAT_MEM_PRIV_FLAGS}: what an LMR or RMR lets local DTOs and remote peers do, given to
 * {@code dat_lmr_create} and {@code dat_rmr_bind}.
 */
public final class MemPriv
{
    public static final int NONE_FLAG = 0x00;
    public static final int LOCAL_READ_FLAG = 0x01;
    public static final int REMOTE_READ_FLAG = 0x02;
    public static final int LOCAL_WRITE_FLAG = 0x10;
    public static final int REMOTE_WRITE_FLAG = 0x20;
    public static final int ALL_FLAG = 0x33;
    /** 1.0 name: local and remote read. */
    public static final int READ_FLAG = 0x03;
    /** 1.0 name: local and remote write. */
    public static final int WRITE_FLAG = 0x30;
    /** Solaris: disable relaxed ordering for this LMR (accepted, no effect in jdat). */
    public static final int RO_DISABLE_FLAG = 0x100;

    private MemPriv()
    {
    }
}

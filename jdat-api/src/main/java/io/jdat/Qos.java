package io.jdat;

/**
 * {@code DAT_QOS}: requested quality of service of a connection (a bit set), the {@code qos}
 * argument of {@code dat_ep_connect} and {@code dat_ep_dup_connect}.
 */
public final class Qos
{
    public static final int BEST_EFFORT = 0x00;
    public static final int HIGH_THROUGHPUT = 0x01;
    public static final int LOW_LATENCY = 0x02;
    public static final int ECONOMY = 0x04;
    public static final int PREMIUM = 0x08;

    private Qos()
    {
    }
}

package io.jdat.engine;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The limits and options of one software IA, read from the static registry's instance data:
 * {@code key=value} pairs separated by blanks or commas, for example
 * {@code "max_eps=4 max_evd_qlen=64"}. Keys the engine does not know are left for the
 * transport ({@link #get}). Every limit is what {@code dat_ia_query} reports, and what the engine
 * enforces, so tests can exhaust them quickly.
 */
public final class EngineConfig
{
    private final Map<String, String> values;

    /** IA instances of this name that may be open at once. */
    public final int maxIas;
    public final int maxEps;
    public final int maxEvds;
    public final int maxEvdQlen;
    public final int maxCnos;
    public final int maxPzs;
    public final int maxLmrs;
    public final int maxRmrs;
    public final int maxSrqs;
    public final int maxPsps;
    public final int maxRsps;
    /** Outstanding DTOs per EP queue ({@code max_dto_per_ep}). */
    public final int maxDtoPerEp;
    /** Segments per DTO. */
    public final int maxIov;
    public final long maxMessageSize;
    public final long maxRdmaSize;
    /** IRD/ORD cap per endpoint ({@code max_rdma_read_per_ep_in/out}). */
    public final int maxRdmaReadPerEp;
    /** Outstanding RDMA Reads per IA ({@code max_rdma_read_in/out}). */
    public final int maxRdmaReadPerIa;
    public final int maxRecvPerSrq;
    public final int maxEpPerSrq;
    public final long maxLmrBlockSize;
    /** How long {@code dat_evd_wait} spins before it parks, microseconds. */
    public final long evdSpinMicros;
    /**
     * Whether the receive EVD of one endpoint with nothing else behind it takes its events from the
     * receive queue's slots ({@code evd_direct}; {@code -Djdat.evd.direct}; see {@code EvdImpl}).
     * On unless either says {@code off}.
     */
    public final boolean evdDirect;
    /**
     * How often that spin gives its core away ({@code Thread.yield()}), nanoseconds
     * ({@code evd_spin_yield_ns}; 0, the engine's default: never; a library may start its IAs
     * from another, {@link SoftwareLibrary#defaultInstanceData()}). When the two threads of a
     * ping-pong share one core, a spin that never yields keeps the peer that would answer it off
     * the core for the whole spin; but a yield also hands the core to any other runnable thread,
     * which costs a transport whose threads never end up sharing a core in its tail.
     */
    public final long evdSpinYieldNanos;

    private EngineConfig(final Map<String, String> values)
    {
        this.values = values;
        maxIas = intValue("max_ias", 4096);
        maxEps = intValue("max_eps", 1 << 20);
        maxEvds = intValue("max_evds", 1 << 20);
        maxEvdQlen = intValue("max_evd_qlen", 1 << 22);
        maxCnos = intValue("max_cnos", 1 << 16);
        maxPzs = intValue("max_pzs", 1 << 16);
        maxLmrs = intValue("max_lmrs", 1 << 22);
        maxRmrs = intValue("max_rmrs", 1 << 20);
        maxSrqs = intValue("max_srqs", 1 << 16);
        maxPsps = intValue("max_psps", 1 << 16);
        maxRsps = intValue("max_rsps", 1 << 16);
        maxDtoPerEp = intValue("max_dto_per_ep", 1 << 16);
        maxIov = intValue("max_iov", 64);
        maxMessageSize = longValue("max_message_size", 0xFFFF_FFFFL);
        maxRdmaSize = longValue("max_rdma_size", 0xFFFF_FFFFL);
        maxRdmaReadPerEp = intValue("max_rdma_read_per_ep", 128);
        maxRdmaReadPerIa = intValue("max_rdma_read_per_ia", 1 << 20);
        maxRecvPerSrq = intValue("max_recv_per_srq", 1 << 20);
        maxEpPerSrq = intValue("max_ep_per_srq", 1 << 20);
        maxLmrBlockSize = longValue("max_lmr_block_size", Long.MAX_VALUE);
        evdSpinMicros = longValue("evd_spin_us", Long.getLong("jdat.evd.spinMicros", 20L));
        evdSpinYieldNanos = longValue("evd_spin_yield_ns", Long.getLong("jdat.evd.spinYieldNanos", 0L));
        evdDirect = flag("evd_direct", bool("-Djdat.evd.direct", System.getProperty("jdat.evd.direct", "true")));
    }

    /**
     * Parses instance data. Pairs without a value are kept as given.
     *
     * @throws IllegalArgumentException if a limit is not a number
     */
    public static EngineConfig parse(final String instanceData)
    {
        final Map<String, String> map = new LinkedHashMap<>();
        if (instanceData != null)
        {
            for (final String token : instanceData.trim().split("[\\s,]+"))
            {
                if (token.isEmpty())
                {
                    continue;
                }
                final int eq = token.indexOf('=');
                if (eq <= 0)
                {
                    map.put(token, "");
                }
                else
                {
                    map.put(token.substring(0, eq), token.substring(eq + 1));
                }
            }
        }
        return new EngineConfig(map);
    }

    /** The raw value of a key, or {@code null}: transports read their own keys here. */
    public String get(final String key)
    {
        return values.get(key);
    }

    /** Every key and value given. */
    public Map<String, String> values()
    {
        return Collections.unmodifiableMap(values);
    }

    /**
     * A transport's number option: {@code fallback} when absent or empty, else decimal, hex
     * ({@code 0x}) or octal as {@link Long#decode} reads it.
     *
     * @throws IllegalArgumentException if the value is not a number or lies outside {@code min..max}
     */
    public long bounded(final String key, final long fallback, final long min, final long max)
    {
        final long n = longValue(key, fallback);
        if (n < min || n > max)
        {
            throw new IllegalArgumentException("instance data: " + key + "=" + values.get(key) + " is outside " + min
                + ".." + max);
        }
        return n;
    }

    /**
     * A transport's range option, {@code LO-HI} with each end read as {@link #bounded} reads a
     * number: {@code {fallbackLow, fallbackHigh}} when absent or empty.
     *
     * @throws IllegalArgumentException if the value is not two numbers joined by {@code -}, or
     *     not {@code min <= LO <= HI <= max}
     */
    public long[] range(final String key, final long fallbackLow, final long fallbackHigh, final long min,
        final long max)
    {
        final String v = values.get(key);
        if (v == null || v.isEmpty())
        {
            return new long[] {fallbackLow, fallbackHigh};
        }
        // the first '-' after the first character: LO itself may not be negative, so no sign
        final int dash = v.indexOf('-', 1);
        final long low;
        final long high;
        try
        {
            if (dash < 0)
            {
                throw new NumberFormatException();
            }
            low = Long.decode(v.substring(0, dash));
            high = Long.decode(v.substring(dash + 1));
        }
        catch (final NumberFormatException e)
        {
            throw new IllegalArgumentException("instance data: " + key + "=" + v + " is not a range LO-HI", e);
        }
        if (low < min || high > max || low > high)
        {
            throw new IllegalArgumentException("instance data: " + key + "=" + v + " is not a range within " + min
                + ".." + max + " with LO <= HI");
        }
        return new long[] {low, high};
    }

    /**
     * A transport's yes/no option: {@code fallback} when absent; a key given without a value,
     * {@code 1}, {@code true}, {@code yes} or {@code on} is true; {@code 0}, {@code false},
     * {@code no} or {@code off} is false (any case).
     *
     * @throws IllegalArgumentException for any other value
     */
    public boolean flag(final String key, final boolean fallback)
    {
        final String v = values.get(key);
        if (v == null)
        {
            return fallback;
        }
        return bool("instance data: " + key, v);
    }

    /** A boolean as instance data and the JVM's properties spell it; {@code what} names it when refused. */
    private static boolean bool(final String what, final String v)
    {
        return switch (v.toLowerCase(Locale.ROOT))
        {
            case "", "1", "true", "yes", "on" -> true;
            case "0", "false", "no", "off" -> false;
            default -> throw new IllegalArgumentException(what + "=" + v + " is not a boolean");
        };
    }

    private int intValue(final String key, final int fallback)
    {
        final long v = longValue(key, fallback);
        return (int) Math.max(0, Math.min(Integer.MAX_VALUE, v));
    }

    private long longValue(final String key, final long fallback)
    {
        final String v = values.get(key);
        if (v == null || v.isEmpty())
        {
            return fallback;
        }
        try
        {
            return Long.decode(v);
        }
        catch (final NumberFormatException e)
        {
            throw new IllegalArgumentException("instance data: " + key + "=" + v + " is not a number", e);
        }
    }
}

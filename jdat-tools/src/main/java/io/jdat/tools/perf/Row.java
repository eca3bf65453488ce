package io.jdat.tools.perf;

/**
 * One line of {@code jdat perf}'s table and one object of its JSON: jdat's figures for an
 * operation and size, and the baseline's beside them when one was measured.
 *
 * @param provider the IA name
 * @param op       the operation
 * @param size     bytes per message
 * @param iters    measured iterations
 * @param lat      latency (null when not measured)
 * @param bw       bandwidth (null when not measured)
 * @param baseline the baseline's name (null without one)
 * @param baseLat  the baseline's latency
 * @param baseBw   the baseline's bandwidth
 */
public record Row(String provider, Op op, long size, int iters, Figures.Latency lat, Figures.Bandwidth bw,
    String baseline, Figures.Latency baseLat, Figures.Bandwidth baseBw)
{
    /** jdat's median latency over the baseline's: lower is better; null when either is missing. */
    public Double latencyRatio()
    {
        return lat == null || baseLat == null ? null : ratio(lat.p50(), baseLat.p50());
    }

    /** jdat's bandwidth over the baseline's: higher is better; null when either is missing. */
    public Double bandwidthRatio()
    {
        return bw == null || baseBw == null ? null : ratio(bw.mbPerS(), baseBw.mbPerS());
    }

    /** {@code ours / theirs}, or null when {@code theirs} is 0. */
    public static Double ratio(final double ours, final double theirs)
    {
        return theirs == 0 ? null : ours / theirs;
    }
}

package io.jdat.tools.perf;

import java.awt.BasicStroke;
import java.awt.Color;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleFunction;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * {@code --plot FILE.png}: two XChart charts side by side, median latency and bandwidth against
 * message size on logarithmic axes, one series per operation, each baseline dashed in its
 * operation's colour. Drawn headless.
 */
final class Plot
{
    /** Width of each of the two charts. */
    static final int CHART_WIDTH = 800;
    /** Height of the image. */
    static final int HEIGHT = 600;

    private static final Map<Op, Color> COLORS = Map.of(Op.send, new Color(0x1f77b4), Op.write,
        new Color(0xd62728), Op.read, new Color(0x2ca02c));
    private static final BasicStroke SOLID = new BasicStroke(2.2f);
    /** Long dashes, so that a baseline reads as dashed, not dotted, at this size. */
    private static final BasicStroke DASHED = new BasicStroke(1.8f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_ROUND, 10f,
        new float[] {9f, 6f}, 0f);

    private Plot()
    {
    }

    static void write(final Path file, final List<Row> rows, final String title) throws IOException
    {
        if (System.getProperty("java.awt.headless") == null)
        {
            System.setProperty("java.awt.headless", "true");
        }
        final XYChart lat = chart(title + ": median latency", "latency p50 (us)");
        final XYChart bw = chart(title + ": bandwidth", "bandwidth (MB/s)");
        for (final Op op : Op.values())
        {
            final List<Row> mine = rows.stream().filter(r -> r.op() == op).toList();
            add(lat, op.name(), mine, r -> r.lat() == null ? Double.NaN : r.lat().p50(), op, false);
            add(lat, op + " " + baselineName(mine), mine,
                r -> r.baseLat() == null ? Double.NaN : r.baseLat().p50(), op, true);
            add(bw, op.name(), mine, r -> r.bw() == null ? Double.NaN : r.bw().mbPerS(), op, false);
            add(bw, op + " " + baselineName(mine), mine,
                r -> r.baseBw() == null ? Double.NaN : r.baseBw().mbPerS(), op, true);
        }
        try (OutputStream out = Files.newOutputStream(file))
        {
            BitmapEncoder.saveBitmap(List.of(lat, bw), 1, 2, out, BitmapEncoder.BitmapFormat.PNG);
        }
    }

    private static String baselineName(final List<Row> rows)
    {
        return rows.isEmpty() || rows.getFirst().baseline() == null ? "baseline"
            : "baseline (" + rows.getFirst().baseline() + ")";
    }

    private static XYChart chart(final String title, final String yTitle)
    {
        final XYChart c = new XYChartBuilder().width(CHART_WIDTH).height(HEIGHT).title(title)
            .xAxisTitle("message size (bytes)").yAxisTitle(yTitle).build();
        final var s = c.getStyler();
        s.setXAxisLogarithmic(true);
        s.setYAxisLogarithmic(true);
        s.setLegendPosition(Styler.LegendPosition.InsideNW);
        s.setChartBackgroundColor(Color.WHITE);
        s.setPlotGridLinesColor(new Color(0xdddddd));
        s.setMarkerSize(5);
        s.setXAxisDecimalPattern("#,###");
        s.setYAxisDecimalPattern("#,##0.##");
        return c;
    }

    private static void add(final XYChart chart, final String name, final List<Row> rows,
        final ToDoubleFunction<Row> value, final Op op, final boolean dashed)
    {
        final List<Double> x = new ArrayList<>();
        final List<Double> y = new ArrayList<>();
        for (final Row r : rows)
        {
            final double v = value.applyAsDouble(r);
            if (!Double.isNaN(v) && v > 0)
            {
                x.add((double) r.size());
                y.add(v);
            }
        }
        if (x.isEmpty())
        {
            return;
        }
        final XYSeries s = chart.addSeries(name, x, y);
        s.setLineColor(COLORS.get(op));
        s.setMarkerColor(COLORS.get(op));
        s.setMarker(dashed ? SeriesMarkers.NONE : SeriesMarkers.CIRCLE);
        s.setLineStyle(dashed ? DASHED : SOLID);
    }
}

/**
 * The {@code jdat} command: providers, demo, the transaction and limit tests, perf, dtest, rping.
 * It compiles against the API alone; the providers arrive at run time as for every consumer.
 */
// progressbar and HdrHistogram ship no module descriptor; their automatic module names are what
// the jars say (progressbar) or what the JDK derives from the file name (HdrHistogram)
@SuppressWarnings("requires-automatic")
module io.jdat.tools
{
    requires io.jdat.api;
    requires info.picocli;
    requires me.tongfei.progressbar;
    requires org.jctools.core;
    requires org.knowm.xchart;
    // HdrHistogram's jar names no module: this is the name the JDK derives from its file name
    requires HdrHistogram;
    // the perf plots draw with java.awt (headless)
    requires java.desktop;
    // jdat perf --alloc reads the per-thread allocation counter of com.sun.management.ThreadMXBean
    requires jdk.management;

    // picocli reads and sets the commands' annotated fields reflectively
    opens io.jdat.tools to info.picocli;
    opens io.jdat.tools.dapltest to info.picocli;
    opens io.jdat.tools.demo to info.picocli;
    opens io.jdat.tools.dtest to info.picocli;
    opens io.jdat.tools.perf to info.picocli;
    opens io.jdat.tools.providers to info.picocli;
    opens io.jdat.tools.rping to info.picocli;

    uses io.jdat.spi.DatProviderLibrary;
}

/**
 * The JMH benchmarks of jdat beside their baselines, and the shm side-by-side with Aeron IPC.
 * They speak the consumer API alone: the loopback and shm providers arrive at run time. The
 * runnable uber-jar runs on the class path (its shade drops every module descriptor, this one
 * too). On the module path the benchmarks run in the JVM that starts them ({@code -f 0}: JMH's
 * forks take the class path) with
 * {@code --add-modules io.jdat.bench,jdk.unsupported -m jmh.core/org.openjdk.jmh.Main}.
 */
// JMH's jar has no module descriptor and no Automatic-Module-Name: jmh.core is the name the JDK
// derives from its file name; Aeron's jar names itself io.aeron.all in its manifest
@SuppressWarnings("requires-automatic")
module io.jdat.bench
{
    requires io.jdat.api;
    // the benchmarks, their @State classes and the classes JMH generates from them
    requires jmh.core;
    // the baselines: Aeron IPC with Agrona, one jar (ShmSideBySide, MessageRateBenchmark), and
    // JCTools queues (HopCost, EvdPoll, PingPong, MessageRate)
    requires io.aeron.all;
    requires org.jctools.core;

    // JMH's runner loads the generated benchmark classes and calls them reflectively; the @State
    // classes they extend need nothing, the generated code reaches them from inside the module
    opens io.jdat.bench.jmh_generated to jmh.core;
}

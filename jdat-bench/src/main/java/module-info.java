/**
 * The JMH benchmarks of jdat beside their baselines, and the shm side-by-side with Aeron IPC.
 * They speak the consumer API alone: the loopback and shm providers arrive at run time. The
 * runnable uber-jar runs on the class path (its shade drops every module descriptor, this one
 * too); this declaration holds the benchmarks to the same module boundaries as any consumer.
 */
// JMH's jar has no module descriptor and no Automatic-Module-Name: jmh.core is the name the JDK
// derives from its file name; Aeron's jar names itself io.aeron.all in its manifest
@SuppressWarnings("requires-automatic")
module io.jdat.bench
{
    requires io.jdat.api;
    // the benchmarks, their @State classes and the classes JMH generates from them
    requires jmh.core;
    // ShmSideBySide's baselines: Aeron IPC (with Agrona, in the same jar) and a JCTools queue
    requires io.aeron.all;
    requires org.jctools.core;

    // JMH's runner instantiates the generated benchmark classes and the @State classes
    // reflectively
    opens io.jdat.bench to jmh.core;
    opens io.jdat.bench.jmh_generated to jmh.core;
}

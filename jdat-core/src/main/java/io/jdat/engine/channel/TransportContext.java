package io.jdat.engine.channel;

import java.util.concurrent.ThreadFactory;

/**
 * What the engine tells a transport when it opens a port.
 *
 * @param iaName       the IA name the instance was opened as
 * @param instanceId   a number that tells IA instances of this JVM apart
 * @param threads      makes named daemon threads that belong to this IA instance
 */
public record TransportContext(String iaName, int instanceId, ThreadFactory threads)
{
}

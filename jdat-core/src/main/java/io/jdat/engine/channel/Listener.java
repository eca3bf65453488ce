package io.jdat.engine.channel;

/** A listening connection qualifier. */
public interface Listener
{
    long connQual();

    /**
     * Stops listening; later requests for the qualifier are refused as if nobody listened.
     * Requests already delivered are not affected.
     */
    void close();
}

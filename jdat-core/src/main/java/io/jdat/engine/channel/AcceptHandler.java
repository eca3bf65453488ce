package io.jdat.engine.channel;

/** The passive side's engine half of one accepted connection. */
public interface AcceptHandler extends ChannelHandler
{
    /** The connection is up. */
    void established(Channel channel);

    /** The connection could not be completed. */
    void acceptFailed();
}

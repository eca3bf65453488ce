package io.jdat.engine.channel;

import io.jdat.IaAddress;

/**
 * What the active side asks for.
 *
 * @param remoteAddress  the IA address to connect to
 * @param remoteConnQual the connection qualifier listening there
 * @param privateData    the consumer's private data, delivered whole to the listener
 * @param ird            RDMA Reads this side will serve at once (its {@code max_rdma_read_in})
 * @param ord            RDMA Reads this side wants outstanding at once (its {@code max_rdma_read_out})
 */
public record ConnectRequest(IaAddress remoteAddress, long remoteConnQual, byte[] privateData, int ird, int ord)
{
}

/**
 * {@code jdat test}: dapltest for DAT, a server and a client with transaction, performance,
 * limit, FFT and quit tests. The client speaks OFED dapltest's messages
 * ({@link io.jdat.tools.dapltest.DapltestWire}) by default, so its server may be a real
 * {@code dapltest -T S}; the server serves OFED dapltest clients and jdat's. With
 * {@code --jdat-protocol} client and server speak jdat's own
 * {@link io.jdat.tools.dapltest.Protocol}, whose server reports its checks back.
 */
package io.jdat.tools.dapltest;

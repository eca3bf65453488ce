/**
 * {@code jdat test}: dapltest for DAT, a server and a client with transaction, performance,
 * limit, FFT and quit tests. Between two jdat ends the control connection speaks
 * {@link io.jdat.tools.dapltest.Protocol}; the server also serves OFED dapltest clients, and the
 * transaction client can test against an OFED dapltest server, on dapltest's own messages
 * ({@link io.jdat.tools.dapltest.DapltestWire}).
 */
package io.jdat.tools.dapltest;

/**
 * The {@code tcp} provider: DAT over TCP in the iWARP wire format, on the engine's channel SPI.
 *
 * <p><b>Addresses.</b> The IA address is the IP address the IA binds ({@code address=IP} in the
 * instance data, default 127.0.0.1; 0.0.0.0 and IPv6 work too). A connection qualifier is a TCP
 * port: {@code dat_psp_create} listens on it, {@code dat_psp_create_any} lets the kernel pick a
 * free one. An endpoint's local port qualifier is the TCP port of its connection. One endpoint
 * connection is one TCP connection.
 *
 * <p><b>Connection setup</b> ({@code TcpAttempt}, {@code TcpRequest}) is the MPA exchange of
 * RFC 5044 with the enhanced establishment of RFC 6581, as Linux siw speaks it: the initiator
 * sends a Rev 2 Request with the enhanced flag, the IRD/ORD word (the endpoint's
 * {@code max_rdma_read_in/out}) and the consumer's private data (252 bytes at most), then nothing
 * until the Reply. The responder hands the Request to the PSP or RSP as a connection request;
 * {@code dat_cr_accept} answers with a Reply carrying the accepted IRD/ORD and private data,
 * {@code dat_cr_reject} with a Reply that has R set (the initiator's EP gets
 * {@code PEER_REJECTED}); a provider refusal (backlog, IA closing) resets the connection, and a
 * refused or reset TCP connect is {@code NON_PEER_REJECTED}, as is nobody listening; no route is
 * {@code UNREACHABLE}; the engine's connect timer gives {@code TIMED_OUT}. CRC32C is used when
 * either side asks ({@code crc=true}); markers are refused; Rev 1 peers are accepted and can be
 * spoken to ({@code mpa_revision=1}). By default the initiator proposes peer-to-peer mode with a
 * zero-length RDMA Write as the ready-to-receive message, so the responder may send first; a
 * responder without that waits for the initiator's first FPDU before it sends (RFC 5044 startup
 * rule), for at most {@code responder_wait_ms} (default 1 s; 0 or {@code responder_waits=false}:
 * not at all): OFED dapltest's performance test has the server Send first to an initiator (siw's)
 * that proposes no peer-to-peer mode and so never speaks first.
 * Accepted connections whose MPA Request has not arrived are bounded and counted
 * ({@code HalfOpen}: {@code max_half_open}, {@code mpa_timeout_ms}); {@code TcpListener} opens and
 * closes the listening sockets.
 *
 * <p><b>Data</b> ({@code TcpChannel}) uses the codecs of {@link io.jdat.tcp}: each message
 * becomes DDP segments of at most one MSS (the local interface's MTU less IP and TCP headers,
 * or {@code mss=N}) with its MSN and MO or STag and TO; messages are encoded one after the other,
 * so segments of two messages never interleave. A message counts as sent when the kernel took its
 * last byte. The payload of a message of 4 KiB or more in native memory is not copied: one
 * gathering write ({@code FpduWrite}) takes the headers, pads and CRCs from a frame buffer and the
 * payload from the registered memory it was posted from, and the CRC is computed over it there;
 * bytes the kernel does not take stay where they are until the socket is writable. Incoming FPDUs
 * are checked (CRC, length, versions, opcode, queue number) and handed to the engine, which checks
 * MSN, STag, PZ, rights and bounds before it places a byte; any violation is answered with a
 * Terminate carrying the RFC's layer, type and code, and the connection breaks on both sides with
 * nothing placed. The payload of a large RDMA Write, Read Response or Send segment (8 KiB or more
 * of it still to come, or already read) is read from the socket straight into its memory
 * ({@code DirectReader}) once its header arrived, passed the
 * decoder's checks and the engine's ({@code writeTarget}, {@code readResponseTarget},
 * {@code sendTarget}: for a Send, the receive buffer at the head of the receive queue, when the
 * segment fits it and lands in one of its LMR segments; SRQ endpoints' Sends are copied). With
 * CRC the CRC is taken over each piece right after it landed and compared when the FPDU's end
 * arrives, as Linux siw does: a mismatch earns an LLP CRC-error Terminate and breaks the
 * connection; the Read Response or Send segment is never completed (the Read and the receive are
 * flushed), and bytes already placed stay in the memory the engine had checked for them, never
 * reported as good. Writes into placed memory end before the engine's close returns
 * ({@link io.jdat.engine.channel.PlacementClaim}), so none lands in a receive buffer after it was flushed.
 *
 * <p><b>Progress and threads.</b> Each IA instance has exactly one thread,
 * {@code jdat-tcp-IA-N-io}, running an NIO selector over all its listeners and connections
 * ({@code TcpPort}); IA close ends it. All progress (reading, decoding, placing, encoding,
 * writing, every engine callback) happens under the port's progress lock, so callbacks of one
 * connection never overlap; the I/O thread holds it only while it works, never while it sleeps in
 * {@code select}. Two kinds of consumer thread make progress themselves when the lock is free,
 * which saves a thread wake-up per message: a thread that posts encodes and writes its message at
 * once (posting never blocks: when the lock is busy, the message is queued for its holder), and a
 * thread that polls an EVD ({@code dat_evd_dequeue}, or the spin phase of {@code dat_evd_wait})
 * reads the connections that have bytes waiting, found through a second selector used only with
 * {@code selectNow} (with four connections or fewer it simply tries to read each: in seven polls
 * of eight only those whose endpoints complete into the polled EVD, in the eighth all of them, so
 * that no connection waits unread for more than a few microseconds while someone polls); this
 * consumer side of progress is {@code InlineProgress}. A waiter whose
 * spin phase ends blocks in a select of its own over the IA's connections instead of parking,
 * and reads what wakes it: one thread wake-up per message, as for a plain blocking socket, where
 * parking would cost two (the I/O thread's, then the waiter's). Only one waiter at a time blocks
 * there; others park. While consumers poll or a waiter blocks there, the I/O thread stops
 * watching connections for reading or writing (it would only wake to find the bytes gone, or
 * contend with the consumer that carries a blocked send on) and looks back every 10 ms (a
 * poller that parks tells it at once).
 * One thread per IA was chosen over a thread per connection: the engine's placement is a copy
 * per segment, far cheaper than the socket calls around it, and the thread count does not grow
 * with the number of endpoints. The figures are in {@code docs/perf.md}.
 *
 * <p><b>Liveness.</b> A peer that closes or resets ends the connection at once
 * ({@code DISCONNECTED} or {@code BROKEN}). A peer that goes silent is found within
 * {@code liveness_ms} (default 5000, reported as the IA's transport attribute
 * {@code jdat.tcp.liveness_ms}): TCP keepalive probes an idle connection; a connection whose
 * sending made no progress for that long, or that waits for an RDMA Read Response and received
 * nothing for that long, is broken; and so is one whose peer sent nothing and acknowledged none
 * of the bytes the kernel still holds for it for that long ({@code PeerWatch}). That last case, Sends and Writes the
 * kernel took (their DTOs completed) to a peer that vanished without a reset, keepalive cannot
 * see (it probes only while nothing is in flight); the JDK offers no {@code TCP_USER_TIMEOUT},
 * so the channel reads the unacknowledged bytes from Linux's {@code /proc/self/net/tcp} and
 * {@code tcp6} ({@code KernelQueues}), once per quarter of the bound and only while some
 * connection has been silent for half of it. Elsewhere than Linux that case is noticed only
 * when TCP's own retransmissions give up, or when later posts fill the socket.
 */
package io.jdat.tcp.channel;

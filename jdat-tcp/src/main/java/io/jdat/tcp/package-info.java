/**
 * The {@code tcp} transport's wire codecs: iWARP over plain TCP, byte-compatible with Linux
 * SoftiWARP (siw). One file per layer, its layout drawn at the top:
 * <ul>
 *   <li>{@link io.jdat.tcp.Mpa}: the MPA Request/Reply handshake (RFC 5044) with the RFC 6581
 *       IRD/ORD word, and the negotiation rules siw applies (CRC if either side asks, no markers,
 *       Rev 2 enhanced answered in kind, 256 bytes of private data at most).</li>
 *   <li>{@link io.jdat.tcp.Fpdu}: MPA framing of one DDP segment (length, pad, CRC32c).</li>
 *   <li>{@link io.jdat.tcp.DdpRdmap}: DDP (RFC 5041) and RDMAP (RFC 5040) headers, the Read
 *       Request and the Terminate.</li>
 *   <li>{@link io.jdat.tcp.FpduEncoder} and {@link io.jdat.tcp.FpduDecoder}: channel SPI
 *       messages to FPDUs and back, segmenting, checking, delivering without copies.</li>
 * </ul>
 *
 * <p>A connection's life on the wire, as a channel drives these classes:
 * <ol>
 *   <li>Initiator: {@link io.jdat.tcp.Mpa#encodeRequest} (Rev 2 enhanced with an IRD/ORD word,
 *       as siw sends), then nothing until the Reply; {@link io.jdat.tcp.Mpa#decode} it
 *       ({@code expectRequest = false}), {@link io.jdat.tcp.Mpa#checkReply}, then CRC per
 *       {@link io.jdat.tcp.Mpa#crcInUse}. The initiator sends the first FPDU.</li>
 *   <li>Responder: {@link io.jdat.tcp.Mpa#decode} the Request ({@code expectRequest = true});
 *       refuse with {@link io.jdat.tcp.Mpa#encodeReject} (markers, short enhanced private
 *       data, consumer reject) or accept with {@link io.jdat.tcp.Mpa#encodeReply}; then send
 *       nothing until the initiator's first FPDU has arrived.</li>
 *   <li>Both: one {@link io.jdat.tcp.FpduEncoder} for the sending direction and one
 *       {@link io.jdat.tcp.FpduDecoder} for the receiving one, both built with the negotiated
 *       CRC setting. Neither is thread-safe; neither allocates per message.</li>
 * </ol>
 * Sockets, threads and connection management live in {@link io.jdat.tcp.channel}; nothing here
 * blocks or does I/O.
 */
package io.jdat.tcp;

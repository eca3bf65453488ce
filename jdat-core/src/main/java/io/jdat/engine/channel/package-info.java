/**
 * The channel SPI: the narrow contract between the engine and a transport.
 *
 * <p>A {@link io.jdat.engine.channel.Transport} opens one {@link io.jdat.engine.channel.TransportPort}
 * per IA instance. A port listens on connection qualifiers and connects to remote ones, carrying
 * private data and the RDMA-read limits (IRD/ORD) both ways; an established connection is a
 * {@link io.jdat.engine.channel.Channel}. A channel carries RDMA messages in order (Send,
 * Send with Solicited Event, RDMA Write, RDMA Read Request, RDMA Read Response, Terminate), each
 * delivered to the other side's {@link io.jdat.engine.channel.ChannelHandler} as one or more
 * segments in DDP terms: untagged segments (Send, Read Request) carry a message sequence number
 * (MSN) and a message offset (MO), tagged segments (Write, Read Response) carry a steering tag
 * (STag) and a tagged offset (TO).
 *
 * <p>The transport knows nothing of DAT objects: every check of an incoming segment (MSN, MO,
 * STag, protection zone, privileges, bounds) and every placement into registered memory happens
 * in the engine, once, for every transport.
 *
 * <p>What network transports share lives here too, so that each keeps none of its own: an
 * {@link io.jdat.engine.channel.OutboundMessage} is one descriptor class the engine fills; an
 * {@link io.jdat.engine.channel.OutboundQueue} takes what the engine posts, without a lock; a
 * {@link io.jdat.engine.channel.SentLog} keeps the messages written and not yet reported sent; a
 * {@link io.jdat.engine.channel.PeerOffer} is what an {@link io.jdat.engine.channel.IncomingRequest}
 * reports of the active side; a {@link io.jdat.engine.channel.ThreadedPort} is the open-and-close
 * life of a port moved by an I/O thread of its own.
 * Options come from {@link io.jdat.engine.EngineConfig} ({@code bounded}, {@code flag}).
 *
 * <p>Threading rules, which keep engine and transports free of lock cycles:
 * <ul>
 *   <li>{@link io.jdat.engine.channel.Channel#post} never blocks and never calls back into the
 *       engine; the engine may call it while holding an endpoint's lock, so that messages enter
 *       a channel in the order their sequence numbers were assigned.</li>
 *   <li>Every other call into a transport is made with no engine lock held, and may call back
 *       into the engine on the calling thread.</li>
 *   <li>Callbacks for one connection are never concurrent with each other; they may come from
 *       any thread.</li>
 *   <li>Nothing in a transport blocks waiting for another thread while inside a callback.</li>
 * </ul>
 */
package io.jdat.engine.channel;

/**
 * The {@code shm} transport: DAT between processes of one host through shared memory.
 *
 * <p><b>Rendezvous.</b> The IA address is a host-local name; it names a directory under the
 * provider's root ({@code ShmDirectory}). A listening connection qualifier is a file
 * {@code l-QUAL} there ({@code ListenerFile}) with a small array of slots. To connect,
 * a process creates a connection file {@code c-PID-SEQ} ({@code ConnectionFile}) with
 * its request and private data, puts the file's id into a free slot and rings the listener's
 * doorbell. The listener's I/O thread picks it up and hands it to the engine as a connection
 * request; accepting or rejecting is a compare-and-set of the file's state, which the active side
 * confirms (or cancels). Files of processes that died are recognised by process id and start time
 * and removed, never trusted.
 *
 * <p><b>Data path.</b> The connection file holds one single-producer single-consumer ring per
 * direction ({@code SpscRing}) of records that carry the RDMA messages in order
 * ({@code Frame}): Send, Send with Solicited Event, RDMA Write, Read Request, Read
 * Response, Terminate, and a graceful close. The engine validates and places every incoming
 * segment; the channel checks the framing first, reads each header field once, and breaks the
 * connection when the peer writes something impossible. A message counts as sent when the peer
 * has consumed its last record, which it does only after its engine placed it.
 *
 * <p><b>Progress and waiting.</b> One thread per IA instance ({@code jdat-shm-IA-N-io}) moves
 * every connection of the instance and waits with a spin, yield, park backoff
 * ({@code Backoff}); posting threads and consumers polling an EVD move it inline
 * when the thread is not busy.
 *
 * <p><b>Peer death.</b> Each side watches the other's process (id and start time, zombies count
 * as dead) and its "gone" word in the file; a peer that dies or goes breaks the connection after
 * what it wrote before is delivered, so the engine flushes the endpoint's work and no waiter
 * hangs. Connection files are unlinked as soon as the connection is set up, so the kernel frees
 * their memory when the last process unmaps them, even after a crash.
 */
package io.jdat.shm;

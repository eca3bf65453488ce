package io.jdat.tools.perf.baseline;

import io.jdat.IaAddress;
import io.jdat.tools.kit.CheckFailed;
import io.jdat.tools.kit.Message;
import io.jdat.tools.perf.RowSpec;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.jctools.queues.atomic.SpscAtomicArrayQueue;

/**
 * The {@code loopback} baseline: the same bytes handed between the same two threads of one JVM
 * through JCTools SPSC queues, one {@code MemorySegment.copy} per message from the sender's
 * buffer into the receiver's (what the loopback channel does, without DAT). The two ends meet
 * through a token in this JVM.
 */
public final class QueueBaseline implements Baseline
{
    private static final Map<String, Rendezvous> OPEN = new ConcurrentHashMap<>();
    private static final AtomicLong TOKENS = new AtomicLong();
    private static final Object MESSAGE = new Object();

    /** Both ends' buffers and the two queues of one measurement. */
    private record Rendezvous(Arena arena, SpscAtomicArrayQueue<Object> toServer,
        SpscAtomicArrayQueue<Object> toClient, MemorySegment clientSrc, MemorySegment clientDst,
        MemorySegment serverSrc, MemorySegment serverDst)
    {
    }

    @Override
    public String name()
    {
        return "queue";
    }

    @Override
    public String description()
    {
        return "JCTools SPSC queue + one MemorySegment.copy per message, same two threads";
    }

    @Override
    public End client(final RowSpec row, final int depth, final IaAddress server, final Message.Builder run)
    {
        final Arena arena = Arena.ofShared();
        final long size = Math.max(8, row.size());
        final int capacity = Math.max(2, depth);
        final Rendezvous r = new Rendezvous(arena, new SpscAtomicArrayQueue<>(capacity),
            new SpscAtomicArrayQueue<>(capacity), arena.allocate(size, 64), arena.allocate(size, 64),
            arena.allocate(size, 64), arena.allocate(size, 64));
        final String token = "q" + TOKENS.incrementAndGet();
        OPEN.put(token, r);
        run.with("token", token);
        return new QueueEnd(r, true, token);
    }

    @Override
    public End server(final RowSpec row, final int depth, final Message run, final Message.Builder ready)
    {
        final Rendezvous r = OPEN.get(run.get("token"));
        if (r == null)
        {
            throw new CheckFailed("queue baseline: the client is not in this JVM (token " + run.get("token")
                + "); the queue baseline needs an in-JVM provider");
        }
        return new QueueEnd(r, false, null);
    }

    private static final class QueueEnd implements End, Sender, Receiver
    {
        private final Rendezvous r;
        private final boolean client;
        private final String token;
        private final SpscAtomicArrayQueue<Object> out;
        private final SpscAtomicArrayQueue<Object> in;
        private final MemorySegment peerDst;
        private final int capacity;
        private long sent;
        private long consumed;

        QueueEnd(final Rendezvous r, final boolean client, final String token)
        {
            this.r = r;
            this.client = client;
            this.token = token;
            this.out = client ? r.toServer : r.toClient;
            this.in = client ? r.toClient : r.toServer;
            this.peerDst = client ? r.serverDst : r.clientDst;
            this.capacity = out.capacity();
        }

        @Override
        public void ready(final Message ready)
        {
            // nothing to connect: the queues are shared
        }

        @Override
        public boolean trySend(final MemorySegment src, final long size)
        {
            if (sent - consumed >= capacity)
            {
                // the queue looked full: see how far the consumer got (only then, it costs a cache miss)
                consumed = sent - out.size();
                if (sent - consumed >= capacity)
                {
                    return false;
                }
            }
            MemorySegment.copy(src, 0, peerDst, 0, size);
            out.offer(MESSAGE);
            sent++;
            return true;
        }

        @Override
        public boolean tryReceive(final MemorySegment dst, final long size)
        {
            return in.poll() != null;
        }

        @Override
        public Sender out()
        {
            return this;
        }

        @Override
        public Receiver in()
        {
            return this;
        }

        @Override
        public MemorySegment src()
        {
            return client ? r.clientSrc : r.serverSrc;
        }

        @Override
        public MemorySegment dst()
        {
            return client ? r.clientDst : r.serverDst;
        }

        @Override
        public void close()
        {
            if (client)
            {
                OPEN.remove(token);
                r.arena.close();
            }
        }
    }
}

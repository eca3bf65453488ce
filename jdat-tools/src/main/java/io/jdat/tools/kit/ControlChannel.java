package io.jdat.tools.kit;

import io.jdat.CompletionFlags;
import io.jdat.DatEvent;
import io.jdat.DtoStatus;
import io.jdat.EventNumber;
import io.jdat.Lmr;
import io.jdat.LmrTriplet;
import io.jdat.MemPriv;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;

/**
 * Text messages over one DAT connection: the control path of the tools' client/server
 * protocols, carried by Sends and Receives like everything else. Receives are posted when the
 * channel is made, before the connection exists, so the peer may send as soon as it is up;
 * each consumed receive is posted again.
 */
public final class ControlChannel
{
    /** Largest message in bytes. */
    public static final int MAX = 4096;
    private static final int RECVS = 8;
    private static final long SEND_COOKIE = -1;

    /** The link the messages travel on. */
    public final Link link;
    private final Lmr lmr;
    private final MemorySegment memory;
    private final LmrTriplet[] one = {new LmrTriplet()};

    /** Registers the message buffers on {@code node} and posts the receives on {@code link}. */
    public ControlChannel(final Node node, final Link link)
    {
        this.link = link;
        this.lmr = node.register((long) (RECVS + 1) * MAX, MemPriv.LOCAL_READ_FLAG | MemPriv.LOCAL_WRITE_FLAG);
        this.memory = lmr.memory();
        for (int i = 0; i < RECVS; i++)
        {
            postRecv(i);
        }
    }

    private void postRecv(final int slot)
    {
        one[0].set(lmr, (long) slot * MAX, MAX);
        link.ep.postRecv(1, one, slot, CompletionFlags.DEFAULT_FLAG);
    }

    /** Sends one message and waits for its completion. */
    public void send(final Message m)
    {
        send(m.toString());
    }

    /** Sends one text message and waits for its completion. */
    public void send(final String text)
    {
        final byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        if (bytes.length > MAX)
        {
            throw new IllegalArgumentException("control message of " + bytes.length + " bytes; at most " + MAX);
        }
        final long at = (long) RECVS * MAX;
        MemorySegment.copy(bytes, 0, memory, java.lang.foreign.ValueLayout.JAVA_BYTE, at, bytes.length);
        one[0].set(lmr, at, bytes.length);
        link.ep.postSend(1, one, SEND_COOKIE, CompletionFlags.DEFAULT_FLAG);
        link.expectRequest("control send '" + abbreviate(text) + "'", SEND_COOKIE, bytes.length);
    }

    /** Waits for the next message (the link's timeout applies) and posts its receive again. */
    public Message receive()
    {
        return Message.parse(receiveText());
    }

    /** As {@link #receive()}, waiting in mode {@code how}: {@link Completion#POLL} spins in {@code dat_evd_dequeue}. */
    public Message receive(final Completion how)
    {
        return Message.parse(receiveText(how));
    }

    /** Waits for the next message as text. */
    public String receiveText()
    {
        return receiveText(link.mode);
    }

    private String receiveText(final Completion how)
    {
        final DatEvent ev = link.next(link.recvEvd, "control receive", how);
        if (!ev.is(EventNumber.DTO_COMPLETION_EVENT) || ev.dto.status != DtoStatus.SUCCESS)
        {
            throw new CheckFailed("control receive on " + link.name + ": " + (ev.is(EventNumber.DTO_COMPLETION_EVENT)
                ? "status " + ev.dto.status + " (the peer went away)" : "unexpected " + ev));
        }
        final int slot = (int) ev.dto.userCookie;
        final int length = (int) ev.dto.transferredLength;
        final byte[] bytes = new byte[length];
        MemorySegment.copy(memory, java.lang.foreign.ValueLayout.JAVA_BYTE, (long) slot * MAX, bytes, 0, length);
        postRecv(slot);
        return new String(bytes, StandardCharsets.UTF_8);
    }

    /** Sends {@code m} and waits for the answer. */
    public Message call(final Message m)
    {
        send(m);
        return receive();
    }

    /** Frees the link and the message buffers (see {@link Link#free()}). */
    public void free()
    {
        link.free();
        try
        {
            lmr.free();
        }
        catch (final io.jdat.DatException e)
        {
            // dat_ia_close frees it
        }
    }

    private static String abbreviate(final String s)
    {
        return s.length() <= 40 ? s : s.substring(0, 40) + "…";
    }
}

package io.jdat.tools;
// readme:begin
import io.jdat.*;
import java.lang.foreign.Arena;

/** Two endpoints of one loopback IA: connect, Send/Recv, RDMA Write, disconnect. */
public final class ReadmeExample
{
    public static void main(final String[] args)
    {
        final InterfaceAdapter ia = Dat.iaOpen("loopback", 8, new DatOut<>());
        try (Arena arena = Arena.ofShared())
        {
            final ProtectionZone pz = ia.pzCreate();
            final Lmr local = ia.lmrCreate(MemType.VIRTUAL, RegionDescription.forVa(arena.allocate(4096)), 4096,
                pz, MemPriv.ALL_FLAG);
            final Lmr remote = ia.lmrCreate(MemType.VIRTUAL, RegionDescription.forVa(arena.allocate(4096)), 4096,
                pz, MemPriv.ALL_FLAG);
            final EventDispatcher dto = ia.evdCreate(16, null, EvdFlags.DTO_FLAG);
            final EventDispatcher conn = ia.evdCreate(4, null, EvdFlags.CONNECTION_FLAG);
            final EventDispatcher crs = ia.evdCreate(4, null, EvdFlags.CR_FLAG);
            final Endpoint client = ia.epCreate(pz, dto, dto, conn, null);
            final Endpoint server = ia.epCreate(pz, dto, dto, conn, null);
            final PublicServicePoint psp = ia.pspCreateAny(crs, PspFlags.CONSUMER_FLAG);

            server.postRecv(1, new LmrTriplet[] {LmrTriplet.of(remote, 0, 64)}, 1, CompletionFlags.DEFAULT_FLAG);
            client.connect(IaAddress.named("loopback"), psp.connQual(), Dat.TIMEOUT_INFINITE, null,
                Qos.BEST_EFFORT, ConnectFlags.DEFAULT_FLAG);
            next(crs, EventNumber.CONNECTION_REQUEST_EVENT).crArrival.crHandle.accept(server, null);
            next(conn, EventNumber.CONNECTION_EVENT_ESTABLISHED);
            next(conn, EventNumber.CONNECTION_EVENT_ESTABLISHED);

            local.memory().setString(0, "hello, DAT");
            client.postSend(1, new LmrTriplet[] {LmrTriplet.of(local, 0, 11)}, 2, CompletionFlags.DEFAULT_FLAG);
            next(dto, EventNumber.DTO_COMPLETION_EVENT);
            next(dto, EventNumber.DTO_COMPLETION_EVENT);
            client.postRdmaWrite(1, new LmrTriplet[] {LmrTriplet.of(local, 0, 11)}, 3,
                new RmrTriplet(remote.rmrContext(), remote.registeredAddress() + 1024, 11),
                CompletionFlags.DEFAULT_FLAG);
            next(dto, EventNumber.DTO_COMPLETION_EVENT);
            System.out.println(remote.memory().getString(0) + " / " + remote.memory().getString(1024));

            client.disconnect(CloseFlags.GRACEFUL_FLAG);
            next(conn, EventNumber.CONNECTION_EVENT_DISCONNECTED);
            next(conn, EventNumber.CONNECTION_EVENT_DISCONNECTED);
        }
        finally
        {
            ia.close(CloseFlags.ABRUPT_FLAG);
        }
    }

    /** Waits up to a second for the next event and checks it is the expected one. */
    static DatEvent next(final EventDispatcher evd, final EventNumber expected)
    {
        final DatEvent event = new DatEvent();
        if (evd.wait(1_000_000, 1, event, new DatCount()) != DatStatus.SUCCESS || !event.is(expected)
            || event.is(EventNumber.DTO_COMPLETION_EVENT) && event.dto.status != DtoStatus.SUCCESS)
        {
            throw new IllegalStateException("expected " + expected + ", got " + event);
        }
        return event;
    }
}
// readme:end

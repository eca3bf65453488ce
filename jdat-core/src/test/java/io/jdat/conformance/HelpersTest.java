package io.jdat.conformance;

import static io.jdat.conformance.Fixture.SECOND;
import static io.jdat.conformance.Fixture.expect;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.Cno;
import io.jdat.ConnectionRequest;
import io.jdat.Dat;
import io.jdat.DatEvent;
import io.jdat.DatException;
import io.jdat.DatHandle;
import io.jdat.DatReturnSubtype;
import io.jdat.DatReturnType;
import io.jdat.DatStatus;
import io.jdat.Endpoint;
import io.jdat.ErrorStrings;
import io.jdat.EventDispatcher;
import io.jdat.EventNumber;
import io.jdat.EvdFlags;
import io.jdat.HandleType;
import io.jdat.Lmr;
import io.jdat.PspFlags;
import io.jdat.PublicServicePoint;
import io.jdat.Qos;
import io.jdat.ReservedServicePoint;
import io.jdat.Rmr;
import io.jdat.SharedReceiveQueue;
import io.jdat.SrqAttr;
import java.util.EnumMap;
import java.util.Map;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.api.Test;

/**
 * {@code dat_strerror}, {@code dat_get_handle_type}, {@code dat_set_consumer_context} and
 * {@code dat_get_consumer_context} (digest §1.5, §2.1, §2.2) on every one of the 11 handle types.
 */
class HelpersTest
{
    /** One live object of each of the 11 handle types, all of one IA. */
    private static final class Zoo implements AutoCloseable
    {
        final Fixture f = new Fixture(Fixture.loopbackWith(""));
        final Map<HandleType, DatHandle> handles = new EnumMap<>(HandleType.class);
        final EventDispatcher crEvd = f.evd(8, EvdFlags.CR_FLAG);
        final PublicServicePoint psp = f.ia.pspCreateAny(crEvd, PspFlags.CONSUMER_FLAG);
        final Fixture.Ep client = f.ep(null);
        final Endpoint reserved = f.ia.epCreate(f.pz, null, null, null, null);
        final ReservedServicePoint rsp = f.ia.rspCreate(psp.connQual() + 1, reserved, crEvd);
        final Lmr lmr = f.lmr(64);
        final Rmr rmr = f.pz.rmrCreate();
        final Cno cno = f.ia.cnoCreate(null);
        final SharedReceiveQueue srq = f.ia.srqCreate(f.pz, new SrqAttr(4, 1));
        final ConnectionRequest cr;

        Zoo()
        {
            client.ep().connect(f.address, psp.connQual(), 5 * SECOND, null, Qos.BEST_EFFORT, 0);
            final DatEvent ev = Fixture.next(crEvd);
            assertTrue(ev.is(EventNumber.CONNECTION_REQUEST_EVENT), ev.toString());
            cr = ev.crArrival.crHandle;
            handles.put(HandleType.CR, cr);
            handles.put(HandleType.EP, client.ep());
            handles.put(HandleType.EVD, crEvd);
            handles.put(HandleType.IA, f.ia);
            handles.put(HandleType.LMR, lmr);
            handles.put(HandleType.PSP, psp);
            handles.put(HandleType.PZ, f.pz);
            handles.put(HandleType.RMR, rmr);
            handles.put(HandleType.RSP, rsp);
            handles.put(HandleType.CNO, cno);
            handles.put(HandleType.SRQ, srq);
            assertEquals(11, handles.size());
        }

        /** Frees every object one by one, checking after each free that its handle is dead. */
        void freeEach(final java.util.function.Consumer<DatHandle> checkDead)
        {
            cr.reject();
            checkDead.accept(cr);
            // the client sees the rejection before it is freed
            assertTrue(Fixture.next(client.conn()).is(EventNumber.CONNECTION_EVENT_PEER_REJECTED));
            client.ep().free();
            checkDead.accept(client.ep());
            rsp.free();
            checkDead.accept(rsp);
            psp.free();
            checkDead.accept(psp);
            crEvd.free();
            checkDead.accept(crEvd);
            rmr.free();
            checkDead.accept(rmr);
            lmr.free();
            checkDead.accept(lmr);
            srq.free();
            checkDead.accept(srq);
            cno.free();
            checkDead.accept(cno);
            reserved.free();
            f.pz.free();
            checkDead.accept(f.pz);
            f.ia.close(io.jdat.CloseFlags.ABRUPT_FLAG);
            checkDead.accept(f.ia);
        }

        @Override
        public void close()
        {
            f.close();
        }
    }

    // ------------------------------------------------------------------ dat_get_handle_type

    @Test
    void getHandleTypeReportsEachOfTheElevenTypesWithItsValue()
    {
        try (Zoo zoo = new Zoo())
        {
            for (final Map.Entry<HandleType, DatHandle> e : zoo.handles.entrySet())
            {
                assertEquals(e.getKey(), Dat.getHandleType(e.getValue()));
                assertEquals(e.getKey(), e.getValue().handleType());
            }
            // DAT_HANDLE_TYPE values of uDAPL 1.2 (digest §1.5)
            final int[] values = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
            final HandleType[] order = {HandleType.CR, HandleType.EP, HandleType.EVD, HandleType.IA, HandleType.LMR,
                HandleType.PSP, HandleType.PZ, HandleType.RMR, HandleType.RSP, HandleType.CNO, HandleType.SRQ};
            for (int i = 0; i < values.length; i++)
            {
                assertEquals(values[i], order[i].value());
            }
        }
    }

    @Test
    void getHandleTypeOfAFreedHandleIsInvalidHandle()
    {
        try (Zoo zoo = new Zoo())
        {
            zoo.freeEach(h -> expect(DatReturnType.INVALID_HANDLE, () -> Dat.getHandleType(h)));
        }
    }

    @Test
    void getHandleTypeOfNullOrANonHandleOrASpecialEvdValueIsInvalidHandle()
    {
        for (final Object notAHandle : new Object[] {null, "ia", Integer.valueOf(3), Dat.EVD_ASYNC_EXISTS,
            Dat.EVD_OUT_OF_SCOPE})
        {
            expect(DatReturnType.INVALID_HANDLE, () -> Dat.getHandleType(notAHandle));
        }
    }

    // ------------------------------------------------------------------ consumer context

    @Test
    void consumerContextStartsNullIsReplacedAndClearedOnEveryHandleType()
    {
        try (Zoo zoo = new Zoo())
        {
            for (final Map.Entry<HandleType, DatHandle> e : zoo.handles.entrySet())
            {
                final DatHandle h = e.getValue();
                assertNull(Dat.getConsumerContext(h), e.getKey() + " context starts as NULL");
                final Object first = new Object();
                final Object second = Long.valueOf(42);
                Dat.setConsumerContext(h, first);
                assertSame(first, Dat.getConsumerContext(h));
                assertSame(first, h.getConsumerContext());
                h.setConsumerContext(second);
                assertSame(second, Dat.getConsumerContext(h));
                Dat.setConsumerContext(h, null);
                assertNull(Dat.getConsumerContext(h), e.getKey() + " NULL disassociates");
            }
            // contexts are per object, never shared
            Dat.setConsumerContext(zoo.f.pz, "pz");
            Dat.setConsumerContext(zoo.lmr, "lmr");
            assertEquals("pz", Dat.getConsumerContext(zoo.f.pz));
            assertEquals("lmr", Dat.getConsumerContext(zoo.lmr));
        }
    }

    @Test
    void consumerContextOfAFreedHandleIsInvalidHandle()
    {
        try (Zoo zoo = new Zoo())
        {
            zoo.freeEach(h ->
            {
                expect(DatReturnType.INVALID_HANDLE, () -> Dat.setConsumerContext(h, "x"));
                expect(DatReturnType.INVALID_HANDLE, () -> Dat.getConsumerContext(h));
            });
        }
    }

    @Test
    void consumerContextOfNullOrANonHandleIsInvalidHandle()
    {
        for (final Object notAHandle : new Object[] {null, new Object(), Dat.EVD_ASYNC_EXISTS, Dat.EVD_OUT_OF_SCOPE})
        {
            expect(DatReturnType.INVALID_HANDLE, () -> Dat.setConsumerContext(notAHandle, "x"));
            expect(DatReturnType.INVALID_HANDLE, () -> Dat.getConsumerContext(notAHandle));
        }
    }

    @Test
    void freedHandleReportsTheSubtypeOfItsKind()
    {
        try (Zoo zoo = new Zoo())
        {
            zoo.lmr.free();
            assertEquals(DatReturnSubtype.INVALID_HANDLE_LMR,
                expect(DatReturnType.INVALID_HANDLE, () -> Dat.getHandleType(zoo.lmr)).subtype());
            zoo.rmr.free();
            assertEquals(DatReturnSubtype.INVALID_HANDLE_RMR,
                expect(DatReturnType.INVALID_HANDLE, () -> zoo.rmr.getConsumerContext()).subtype());
            zoo.cno.free();
            assertEquals(DatReturnSubtype.INVALID_HANDLE_CNO,
                expect(DatReturnType.INVALID_HANDLE, () -> zoo.cno.setConsumerContext(null)).subtype());
            zoo.srq.free();
            assertEquals(DatReturnSubtype.INVALID_HANDLE_SRQ,
                expect(DatReturnType.INVALID_HANDLE, () -> Dat.getHandleType(zoo.srq)).subtype());
            zoo.f.ia.close(io.jdat.CloseFlags.ABRUPT_FLAG);
            assertEquals(DatReturnSubtype.INVALID_HANDLE_IA,
                expect(DatReturnType.INVALID_HANDLE, () -> Dat.getHandleType(zoo.f.ia)).subtype());
            assertEquals(DatReturnSubtype.INVALID_HANDLE_EP,
                expect(DatReturnType.INVALID_HANDLE, () -> Dat.getHandleType(zoo.client.ep())).subtype());
            assertEquals(DatReturnSubtype.INVALID_HANDLE_PSP,
                expect(DatReturnType.INVALID_HANDLE, () -> Dat.getHandleType(zoo.psp)).subtype());
            assertEquals(DatReturnSubtype.INVALID_HANDLE_RSP,
                expect(DatReturnType.INVALID_HANDLE, () -> Dat.getHandleType(zoo.rsp)).subtype());
            assertEquals(DatReturnSubtype.INVALID_HANDLE_CR,
                expect(DatReturnType.INVALID_HANDLE, () -> Dat.getHandleType(zoo.cr)).subtype());
            assertEquals(DatReturnSubtype.INVALID_HANDLE_PZ,
                expect(DatReturnType.INVALID_HANDLE, () -> Dat.getHandleType(zoo.f.pz)).subtype());
        }
    }

    // ------------------------------------------------------------------ dat_strerror

    @Test
    void strerrorOfSuccessIsSuccessWithAnEmptyMinorMessage()
    {
        assertEquals(new ErrorStrings("DAT_SUCCESS", ""), Dat.strerror(0));
        assertEquals(new ErrorStrings("DAT_SUCCESS", ""), Dat.strerror(DatStatus.SUCCESS));
    }

    @Test
    void strerrorNamesTheTypeAndTheSubtypeExactlyAsTheConstants()
    {
        assertEquals(new ErrorStrings("DAT_INVALID_HANDLE", "DAT_INVALID_HANDLE_EP"),
            Dat.strerror(DatStatus.error(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_EP)));
        assertEquals(0x8005000c,
            DatStatus.error(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_EP).value());
        assertEquals(new ErrorStrings("DAT_QUEUE_EMPTY", ""), Dat.strerror(DatStatus.QUEUE_EMPTY));
        // subtypes the reference table forgot are mapped too (digest §2.1)
        assertEquals(new ErrorStrings("DAT_PROVIDER_NOT_FOUND", "DAT_THREAD_SAFETY_NOT_FOUND"),
            Dat.strerror(0x800A0000 | 101));
        assertEquals(new ErrorStrings("DAT_INVALID_HANDLE", "DAT_INVALID_HANDLE_SRQ"), Dat.strerror(0x80050000 | 25));
        assertEquals(new ErrorStrings("DAT_NOT_IMPLEMENTED", ""), Dat.strerror(0x8FFF0000));
        // the class bits do not matter: a bare type (trap T-1) reads the same
        assertEquals(new ErrorStrings("DAT_INVALID_PARAMETER", "DAT_INVALID_ARG3"), Dat.strerror(0x00060000 | 38));
    }

    @Test
    void strerrorOfAnUndefinedTypeIsInvalidParameter()
    {
        final DatException e = expect(DatReturnType.INVALID_PARAMETER, () -> Dat.strerror(0x80150000));
        assertTrue(e.status().isError());
        expect(DatReturnType.INVALID_PARAMETER, () -> Dat.strerror(0x3FFF0000));
    }

    @Test
    void strerrorOfAnUndefinedSubtypeIsInvalidParameter()
    {
        expect(DatReturnType.INVALID_PARAMETER, () -> Dat.strerror(0x80050000 | 103));
        expect(DatReturnType.INVALID_PARAMETER, () -> Dat.strerror(0x8005FFFF));
    }

    @Property(tries = 300)
    void strerrorNamesEveryDefinedTypeAndSubtype(@ForAll final DatReturnType type,
        @ForAll final DatReturnSubtype subtype, @ForAll final boolean errorClass)
    {
        final int value = (errorClass ? DatStatus.CLASS_ERROR : 0) | type.value() | subtype.value();
        final ErrorStrings s = Dat.strerror(value);
        assertEquals(type.cName(), s.major());
        assertEquals(subtype == DatReturnSubtype.NO_SUBTYPE ? "" : subtype.cName(), s.minor());
        assertTrue(s.major().startsWith("DAT_"));
    }

    @Property(tries = 2000)
    void strerrorOfAnyIntEitherNamesItOrIsInvalidParameter(@ForAll final int value)
    {
        final DatReturnType type = DatReturnType.fromValue(value & DatStatus.TYPE_MASK);
        final DatReturnSubtype subtype = DatReturnSubtype.fromValue(value & DatStatus.SUBTYPE_MASK);
        try
        {
            final ErrorStrings s = Dat.strerror(value);
            assertTrue(type != null && subtype != null, () -> String.format("0x%08x is not a 1.2 value", value));
            assertEquals(type.cName(), s.major());
        }
        catch (final DatException e)
        {
            assertTrue(type == null || subtype == null, () -> String.format("0x%08x: %s", value, e));
            assertEquals(DatReturnType.INVALID_PARAMETER, e.type());
        }
    }
}

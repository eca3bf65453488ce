package io.jdat.conformance;

import static io.jdat.conformance.Connecting.assertEmpty;
import static io.jdat.conformance.Fixture.expect;
import static io.jdat.conformance.SrqTest.connectTo;
import static io.jdat.conformance.SrqTest.query;
import static io.jdat.conformance.SrqTest.send;
import static io.jdat.conformance.SrqTest.srqEp;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.Dat;
import io.jdat.DatEvent;
import io.jdat.DatReturnType;
import io.jdat.DtoStatus;
import io.jdat.EpAttr;
import io.jdat.EventDispatcher;
import io.jdat.EventNumber;
import io.jdat.EvdFlags;
import io.jdat.HandleType;
import io.jdat.Lmr;
import io.jdat.LmrTriplet;
import io.jdat.MemPriv;
import io.jdat.MemType;
import io.jdat.ProtectionZone;
import io.jdat.ProviderAttr;
import io.jdat.RegionDescription;
import io.jdat.SharedReceiveQueue;
import io.jdat.SrqAttr;
import io.jdat.SrqParam;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The rules of the seed man page {@code dat_srq_create(3DAT)} (seed 004), one test per rule, each
 * named after its rule. {@link SrqTest} has every return code of the six {@code dat_srq_*} calls.
 *
 * <p>Not tested, because they grant the provider freedom rather than require anything: that
 * buffers need not be consumed in posting order, that there is no order across connections or
 * recv EVDs, and that one endpoint may hold several buffers at once. {@code DAT_MODEL_NOT_SUPPORTED}
 * cannot arise: the provider supports SRQs ({@code srq_supported}).
 */
class SeedSrqCreateTest
{
    private static final int LEN = 64;

    private static LmrTriplet[] slot(final Lmr lmr, final int i)
    {
        return new LmrTriplet[] {LmrTriplet.of(lmr, (long) i * LEN, LEN)};
    }

    @Test
    void srqCreateReturnsTheHandleOfANewSrq()
    {
        try (Fixture f = new Fixture())
        {
            final SharedReceiveQueue a = f.ia.srqCreate(f.pz, new SrqAttr(4, 1));
            final SharedReceiveQueue b = f.ia.srqCreate(f.pz, new SrqAttr(4, 1));
            assertEquals(HandleType.SRQ, Dat.getHandleType(a));
            assertNotEquals(a, b);
        }
    }

    @Test
    void createdSrqIsAttachedToNoEndpoint()
    {
        try (Fixture f = new Fixture())
        {
            final SharedReceiveQueue srq = f.ia.srqCreate(f.pz, new SrqAttr(4, 1));
            // nothing uses it: it can be freed at once
            srq.free();
            final SharedReceiveQueue again = f.ia.srqCreate(f.pz, new SrqAttr(4, 1));
            final Fixture.Ep ep = srqEp(f, again);
            expect(DatReturnType.INVALID_STATE, again::free);
            ep.ep().free();
            again.free();
        }
    }

    @Test
    void onlyLmrsOfTheSrqProtectionZoneCanHoldItsBuffers()
    {
        try (Fixture f = new Fixture())
        {
            final SharedReceiveQueue srq = f.ia.srqCreate(f.pz, new SrqAttr(4, 1));
            final ProtectionZone other = f.ia.pzCreate();
            final MemorySegment m = f.memory(LEN);
            final Lmr foreign = f.ia.lmrCreate(MemType.VIRTUAL, RegionDescription.forVa(m), LEN, other,
                MemPriv.ALL_FLAG);
            expect(DatReturnType.PROTECTION_VIOLATION, () -> srq.postRecv(1, slot(foreign, 0), 0));
            final Lmr own = f.lmr(LEN);
            srq.postRecv(1, slot(own, 0), 1);
            assertEquals(1, query(srq).availableDtoCount);
        }
    }

    @Test
    void srqHasAtLeastTheRequestedQueueSize()
    {
        try (Fixture f = new Fixture())
        {
            final SharedReceiveQueue srq = f.ia.srqCreate(f.pz, new SrqAttr(7, 1));
            assertTrue(query(srq).maxRecvDtos >= 7);
            final Lmr lmr = f.lmr(7 * LEN);
            for (int i = 0; i < 7; i++)
            {
                srq.postRecv(1, slot(lmr, i), i);
            }
            assertEquals(7, query(srq).availableDtoCount);
        }
    }

    @Test
    void srqBuffersTakeAtLeastTheRequestedNumberOfScatterEntries()
    {
        try (Fixture f = new Fixture())
        {
            final SharedReceiveQueue srq = f.ia.srqCreate(f.pz, new SrqAttr(4, 3));
            assertTrue(query(srq).maxRecvIov >= 3);
            final MemorySegment m = f.memory(3 * LEN);
            final Lmr lmr = f.lmr(m, MemPriv.ALL_FLAG);
            // three 2-byte pieces, far apart: an 8-byte message spreads over all three
            srq.postRecv(3, new LmrTriplet[] {LmrTriplet.of(lmr, 0, 2), LmrTriplet.of(lmr, LEN, 2),
                LmrTriplet.of(lmr, 2 * LEN, 4)}, 9);
            final Fixture.Ep server = srqEp(f, srq);
            send(f, connectTo(f, server), 0x0807060504030201L);
            final DatEvent ev = Connecting.event(server.recv(), EventNumber.DTO_COMPLETION_EVENT);
            assertEquals(8, ev.dto.transferredLength);
            assertEquals(0x0201, m.get(ValueLayout.JAVA_SHORT_UNALIGNED, 0) & 0xFFFF);
            assertEquals(0x0403, m.get(ValueLayout.JAVA_SHORT_UNALIGNED, LEN) & 0xFFFF);
            assertEquals(0x08070605, m.get(ValueLayout.JAVA_INT_UNALIGNED, 2 * LEN));
        }
    }

    @Test
    void consumerCanQueryTheActualQueueSizeAndScatterEntries()
    {
        try (Fixture f = new Fixture())
        {
            final SharedReceiveQueue srq = f.ia.srqCreate(f.pz, new SrqAttr(5, 2));
            final SrqParam p = new SrqParam();
            srq.query(SrqParam.FIELD_MAX_RECV_DTO | SrqParam.FIELD_MAX_RECV_IOV, p);
            assertTrue(p.maxRecvDtos >= 5);
            assertTrue(p.maxRecvIov >= 2);
            // the queried size is usable in full
            final Lmr lmr = f.lmr((long) p.maxRecvDtos * LEN);
            for (int i = 0; i < p.maxRecvDtos; i++)
            {
                srq.postRecv(1, slot(lmr, i), i);
            }
        }
    }

    @Test
    void lowWatermarkMustBeTheDefaultAtCreationSoNoEventFiresOnTheEmptySrq()
    {
        try (Fixture f = new Fixture())
        {
            final SrqAttr armed = new SrqAttr(4, 1);
            armed.lowWatermark = 1;
            expect(DatReturnType.INVALID_PARAMETER, () -> f.ia.srqCreate(f.pz, armed));
            final SharedReceiveQueue srq = f.ia.srqCreate(f.pz, new SrqAttr(4, 1));
            assertEquals(Dat.SRQ_LW_DEFAULT, query(srq).lowWatermark);
            assertEmpty(f.asyncEvd);
        }
    }

    @Test
    void lowWatermarkLeftAtTheDefaultGivesNoEventAndSetLwAsksForOne()
    {
        try (Fixture f = new Fixture())
        {
            final SharedReceiveQueue srq = f.ia.srqCreate(f.pz, new SrqAttr(4, 1));
            final Lmr lmr = f.lmr(4 * LEN);
            for (int i = 0; i < 3; i++)
            {
                srq.postRecv(1, slot(lmr, i), i);
            }
            final Fixture.Ep server = srqEp(f, srq);
            final Fixture.Ep client = connectTo(f, server);
            send(f, client, 1);
            send(f, client, 2);
            assertEmpty(f.asyncEvd);
            srq.setLw(2);
            assertSame(srq,
                Connecting.event(f.asyncEvd, EventNumber.JDAT_ASYNC_SRQ_LOW_WATERMARK).asyncError.datHandle);
        }
    }

    @Test
    void endpointFindingTheSrqEmptyBehavesAsIfItsOwnReceiveQueueWereEmpty()
    {
        try (Fixture f = new Fixture())
        {
            // an endpoint with no receive posted
            final Fixture.Ep plain = f.ep(null);
            final List<String> withoutSrq = outcome(f, plain);
            // an endpoint whose SRQ is empty
            final SharedReceiveQueue srq = f.ia.srqCreate(f.pz, new SrqAttr(4, 1));
            final List<String> withSrq = outcome(f, srqEp(f, srq));
            assertEquals(withoutSrq, withSrq);
            assertEquals(EventNumber.CONNECTION_EVENT_BROKEN.name(), withSrq.get(0), withSrq.toString());
        }
    }

    /** What both sides see when a Send reaches {@code server} with no buffer for it. */
    private static List<String> outcome(final Fixture f, final Fixture.Ep server)
    {
        final Fixture.Ep client = connectTo(f, server);
        final Lmr src = f.lmr(8);
        client.ep().postSend(1, new LmrTriplet[] {LmrTriplet.of(src, 0, 8)}, 1, 0);
        final List<String> seen = new ArrayList<>();
        seen.add(Fixture.next(server.conn()).number().name());
        final DatEvent send = Connecting.event(client.req(), EventNumber.DTO_COMPLETION_EVENT);
        seen.add(send.dto.status.name());
        seen.add(Fixture.next(client.conn()).number().name());
        assertNotEquals(DtoStatus.SUCCESS, send.dto.status);
        return seen;
    }

    @Test
    void endpointsOfOneSrqMayOrMayNotShareARecvEvd()
    {
        try (Fixture f = new Fixture())
        {
            final SharedReceiveQueue srq = f.ia.srqCreate(f.pz, new SrqAttr(4, 1));
            final Lmr lmr = f.lmr(4 * LEN);
            for (int i = 0; i < 3; i++)
            {
                srq.postRecv(1, slot(lmr, i), i);
            }
            final EventDispatcher shared = f.evd(16, EvdFlags.DTO_FLAG);
            final Fixture.Ep a = withRecvEvd(f, srq, shared);
            final Fixture.Ep b = withRecvEvd(f, srq, shared);
            final Fixture.Ep c = srqEp(f, srq);
            send(f, connectTo(f, a), 1);
            send(f, connectTo(f, b), 2);
            send(f, connectTo(f, c), 3);
            final Set<Object> onShared = new HashSet<>();
            onShared.add(Connecting.event(shared, EventNumber.DTO_COMPLETION_EVENT).dto.epHandle);
            onShared.add(Connecting.event(shared, EventNumber.DTO_COMPLETION_EVENT).dto.epHandle);
            assertEquals(Set.of(a.ep(), b.ep()), onShared);
            assertSame(c.ep(), Connecting.event(c.recv(), EventNumber.DTO_COMPLETION_EVENT).dto.epHandle);
        }
    }

    private static Fixture.Ep withRecvEvd(final Fixture f, final SharedReceiveQueue srq, final EventDispatcher recv)
    {
        final EventDispatcher req = f.evd(16, EvdFlags.DTO_FLAG);
        final EventDispatcher conn = f.evd(8, EvdFlags.CONNECTION_FLAG);
        return new Fixture.Ep(f.ia.epCreateWithSrq(f.pz, recv, req, conn, srq, new EpAttr()), recv, req, conn);
    }

    @Test
    void endpointsMayBeInAnotherProtectionZoneThanTheSrqWhereTheProviderSupportsIt()
    {
        // srq_ep_pz_difference_supported; the SRQ's PZ decides which memory its buffers use
        try (Fixture f = new Fixture())
        {
            final ProviderAttr attr = new ProviderAttr();
            f.ia.query(0, null, ProviderAttr.FIELD_ALL, attr);
            assertTrue(attr.srqEpPzDifferenceSupported);
            final ProtectionZone srqPz = f.ia.pzCreate();
            final SharedReceiveQueue srq = f.ia.srqCreate(srqPz, new SrqAttr(4, 1));
            final MemorySegment m = f.memory(LEN);
            final Lmr lmr = f.ia.lmrCreate(MemType.VIRTUAL, RegionDescription.forVa(m), LEN, srqPz, MemPriv.ALL_FLAG);
            srq.postRecv(1, slot(lmr, 0), 5);
            final Fixture.Ep server = srqEp(f, srq);
            send(f, connectTo(f, server), 77);
            final DatEvent ev = Connecting.event(server.recv(), EventNumber.DTO_COMPLETION_EVENT);
            assertEquals(DtoStatus.SUCCESS, ev.dto.status);
            assertEquals(77, m.get(ValueLayout.JAVA_LONG, 0));
        }
    }

    @Test
    void fewerBuffersThanTheSumOverConnectionsServeEveryConnection()
    {
        // an SRQ sized for the messages in flight over all connections, not the maximum per connection
        try (Fixture f = new Fixture())
        {
            final SharedReceiveQueue srq = f.ia.srqCreate(f.pz, new SrqAttr(3, 1));
            final Lmr lmr = f.lmr(3 * LEN);
            final List<Fixture.Ep> clients = new ArrayList<>();
            final List<Fixture.Ep> servers = new ArrayList<>();
            for (int i = 0; i < 3; i++)
            {
                srq.postRecv(1, slot(lmr, i), i);
                final Fixture.Ep server = srqEp(f, srq);
                servers.add(server);
                clients.add(connectTo(f, server));
            }
            for (int i = 0; i < 3; i++)
            {
                send(f, clients.get(i), i);
                assertEquals(DtoStatus.SUCCESS,
                    Connecting.event(servers.get(i).recv(), EventNumber.DTO_COMPLETION_EVENT).dto.status);
            }
            assertEquals(0, query(srq).availableDtoCount);
        }
    }

    @Test
    void receivesOfOneConnectionCompleteInTheOrderOfItsSends()
    {
        try (Fixture f = new Fixture())
        {
            final int n = 6;
            final SharedReceiveQueue srq = f.ia.srqCreate(f.pz, new SrqAttr(n, 1));
            final MemorySegment m = f.memory((long) n * LEN);
            final Lmr lmr = f.lmr(m, MemPriv.ALL_FLAG);
            for (int i = 0; i < n; i++)
            {
                srq.postRecv(1, slot(lmr, i), i);
            }
            final Fixture.Ep server = srqEp(f, srq);
            final Fixture.Ep client = connectTo(f, server);
            for (int i = 0; i < n; i++)
            {
                send(f, client, 1000 + i);
            }
            for (int i = 0; i < n; i++)
            {
                final DatEvent ev = Connecting.event(server.recv(), EventNumber.DTO_COMPLETION_EVENT);
                final long at = ev.dto.userCookie * LEN;
                assertEquals(1000 + i, m.get(ValueLayout.JAVA_LONG, at), "completion " + i);
            }
        }
    }

    @Test
    void returnsInsufficientResourcesWhenResourcesRunOut()
    {
        try (Fixture f = new Fixture(Fixture.loopbackWith("max_srqs=2")))
        {
            f.ia.srqCreate(f.pz, new SrqAttr(4, 1));
            f.ia.srqCreate(f.pz, new SrqAttr(4, 1));
            expect(DatReturnType.INSUFFICIENT_RESOURCES, () -> f.ia.srqCreate(f.pz, new SrqAttr(4, 1)));
        }
    }

    @Test
    void returnsInvalidHandleForABadIaOrPz()
    {
        try (Fixture f = new Fixture())
        {
            final ProtectionZone freed = f.ia.pzCreate();
            freed.free();
            expect(DatReturnType.INVALID_HANDLE, () -> f.ia.srqCreate(freed, new SrqAttr(4, 1)));
            f.ia.close(io.jdat.CloseFlags.ABRUPT_FLAG);
            expect(DatReturnType.INVALID_HANDLE, () -> f.ia.srqCreate(f.pz, new SrqAttr(4, 1)));
        }
    }

    @Test
    void returnsInvalidParameterForABadAttributeOrCombination()
    {
        try (Fixture f = new Fixture(Fixture.loopbackWith("max_recv_per_srq=8")))
        {
            expect(DatReturnType.INVALID_PARAMETER, () -> f.ia.srqCreate(f.pz, null));
            expect(DatReturnType.INVALID_PARAMETER, () -> f.ia.srqCreate(f.pz, new SrqAttr(0, 1)));
            expect(DatReturnType.INVALID_PARAMETER, () -> f.ia.srqCreate(f.pz, new SrqAttr(9, 1)));
            final SrqAttr combination = new SrqAttr(4, 1);
            combination.lowWatermark = 5;
            expect(DatReturnType.INVALID_PARAMETER, () -> f.ia.srqCreate(f.pz, combination));
        }
    }

    @Test
    void srqCreateIsSafeToCallFromManyThreadsAtOnce()
    {
        // MT-Level Safe
        try (Fixture f = new Fixture(Fixture.loopbackWith("max_srqs=40")))
        {
            final CountDownLatch start = new CountDownLatch(1);
            final List<CompletableFuture<List<SharedReceiveQueue>>> creators = new ArrayList<>();
            for (int t = 0; t < 4; t++)
            {
                creators.add(CompletableFuture.supplyAsync(() ->
                {
                    try
                    {
                        start.await();
                    }
                    catch (final InterruptedException e)
                    {
                        throw new AssertionError(e);
                    }
                    final List<SharedReceiveQueue> mine = new ArrayList<>();
                    for (int i = 0; i < 10; i++)
                    {
                        mine.add(f.ia.srqCreate(f.pz, new SrqAttr(4, 1)));
                    }
                    return mine;
                }, Fixture.THREADS));
            }
            start.countDown();
            final Set<SharedReceiveQueue> all = new HashSet<>();
            for (final CompletableFuture<List<SharedReceiveQueue>> c : creators)
            {
                all.addAll(c.orTimeout(5, TimeUnit.SECONDS).join());
            }
            assertEquals(40, all.size());
            // exactly the limit: the count was kept right under contention
            expect(DatReturnType.INSUFFICIENT_RESOURCES, () -> f.ia.srqCreate(f.pz, new SrqAttr(4, 1)));
        }
    }
}

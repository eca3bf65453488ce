package io.jdat.tools.dapltest;

import io.jdat.ConnectionRequest;
import io.jdat.CrParam;
import io.jdat.DatCount;
import io.jdat.DatEvent;
import io.jdat.DatStatus;
import io.jdat.EventDispatcher;
import io.jdat.EventNumber;
import io.jdat.tools.kit.CheckFailed;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * jdat's own protocol of {@code jdat test} (the client's {@code --jdat-protocol}; dapltest's wire,
 * {@link DapltestWire}, is the default), carried by DAT itself: the private data of
 * connection requests, and text messages on a control connection (see
 * {@link io.jdat.tools.kit.ControlChannel}).
 *
 * <pre>
 *   client                                   server (PSP on the base port)
 *   connect, private data "jdat-test 1 control"  → accept
 *   TRANSACTION threads= eps= iters= ops= …      → READY psp=Q  (or rsp=Q0,Q1,…)
 *   connect each test EP, private data
 *     "DAPL and RDMA rule! Test 4321. t=T e=E"   → accept each (checked with dat_cr_query)
 *   both: a Send with the RMR info of what they expose, then the op list, iteration after iteration
 *                                              ← RESULT checks=N   (or FAIL why=…)
 *   disconnect the test EPs; END               → frees the session's objects
 *   QUIT                                        → BYE, and the server exits
 * </pre>
 *
 * <p>A control connection without private data is OFED dapltest's ({@link DapltestServer}).
 */
final class Protocol
{
    /** dapltest's server port ({@code SERVER_PORT_NUMBER}); test connections use the ones after it. */
    static final long DEFAULT_PORT = DapltestWire.SERVER_PORT;
    /** The private data of the control connection. */
    static final String CONTROL = "jdat-test 1 control";
    /** The private data dapltest connects its test endpoints with. */
    static final String TEST_EP = "DAPL and RDMA rule! Test 4321.";

    private Protocol()
    {
    }

    /** The private data of test endpoint {@code e} of thread {@code t}. */
    static byte[] testEp(final int t, final int e)
    {
        return (TEST_EP + " t=" + t + " e=" + e).getBytes(StandardCharsets.US_ASCII);
    }

    /** The private data of a connection request ({@code dat_cr_query}). */
    static String privateData(final ConnectionRequest cr)
    {
        final CrParam p = new CrParam();
        cr.query(CrParam.FIELD_PRIVATE_DATA | CrParam.FIELD_PRIVATE_DATA_SIZE, p);
        final byte[] bytes = p.privateData == null ? new byte[0] : Arrays.copyOf(p.privateData, p.privateDataSize);
        return new String(bytes, StandardCharsets.US_ASCII);
    }

    /** Waits for a connection request on {@code crEvd}. */
    static ConnectionRequest nextRequest(final EventDispatcher crEvd, final long timeoutMicros, final String what)
    {
        final DatEvent ev = new DatEvent();
        final DatStatus s = crEvd.wait(timeoutMicros, 1, ev, new DatCount());
        if (s != DatStatus.SUCCESS)
        {
            throw new CheckFailed(what + ": no connection request within " + timeoutMicros / 1e6 + " s (" + s + ")");
        }
        if (!ev.is(EventNumber.CONNECTION_REQUEST_EVENT))
        {
            throw new CheckFailed(what + ": expected a connection request, saw " + ev);
        }
        return ev.crArrival.crHandle;
    }
}

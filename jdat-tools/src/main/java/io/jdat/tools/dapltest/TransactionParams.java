package io.jdat.tools.dapltest;

import io.jdat.tools.kit.Completion;
import io.jdat.tools.kit.Message;
import java.util.ArrayList;
import java.util.List;

/**
 * A transaction test as the client asks for it.
 *
 * @param threads  threads per side
 * @param eps      endpoints per thread
 * @param iters    iterations of the op list
 * @param validate check every byte (adds dapltest's three barrier Sends to each iteration)
 * @param mode     how completions are awaited
 * @param rsp      one RSP per endpoint instead of a PSP
 * @param ops      the op list, barriers included
 * @param corrupt  test only: damage one byte before the first check of each side
 */
record TransactionParams(int threads, int eps, int iters, boolean validate, Completion mode, boolean rsp,
    List<TestOp> ops, boolean corrupt)
{
    /** The op list with dapltest's validation barriers appended when {@code validate} is set. */
    static List<TestOp> withBarriers(final List<TestOp> ops, final boolean validate)
    {
        final List<TestOp> all = new ArrayList<>(ops);
        if (validate)
        {
            all.add(new TestOp(true, TestOp.Type.SR, 64, 1, true));
            all.add(new TestOp(false, TestOp.Type.SR, 64, 1, true));
            all.add(new TestOp(true, TestOp.Type.SR, 64, 1, false));
        }
        return all;
    }

    Message toMessage()
    {
        return Message.of("TRANSACTION").with("threads", threads).with("eps", eps).with("iters", iters)
            .flag("validate", validate).with("mode", mode).flag("rsp", rsp).with("ops", TestOp.encode(ops))
            .flag("corrupt", corrupt).build();
    }

    static TransactionParams from(final Message m)
    {
        return new TransactionParams(m.getInt("threads"), m.getInt("eps"), m.getInt("iters"), m.getFlag("validate"),
            Completion.valueOf(m.get("mode")), m.getFlag("rsp"), TestOp.decode(m.get("ops")), m.getFlag("corrupt"));
    }

    /** One line for the logs. */
    String describe()
    {
        return threads + " thread(s) x " + eps + " EP(s) x " + iters + " iteration(s), " + mode.name().toLowerCase()
            + ", " + (rsp ? "RSP" : "PSP") + (validate ? ", validated" : "") + "; ops: " + ops;
    }
}

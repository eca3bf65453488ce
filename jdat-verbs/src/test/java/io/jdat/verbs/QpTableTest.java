package io.jdat.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The QP-number table against a HashMap, with many colliding keys and removals in the middle of runs. */
class QpTableTest
{
    /** An endpoint stand-in: the table only reads its QP number. */
    private record Qp(int num)
    {
    }

    @Test
    void findsWhatWasPutAndNothingElseAfterRandomPutsAndRemoves()
    {
        final QpTable<Qp> table = new QpTable<>(64, Qp::num);
        final Map<Integer, Qp> model = new HashMap<>();
        final Random random = new Random(13);
        final List<Qp> in = new ArrayList<>();
        for (int step = 0; step < 20_000; step++)
        {
            if (in.size() < 48 && (in.isEmpty() || random.nextBoolean()))
            {
                // small keys and multiples of 64 collide on a 64-slot table
                final int num = random.nextBoolean() ? random.nextInt(200) : 64 * random.nextInt(40);
                if (!model.containsKey(num))
                {
                    final Qp qp = new Qp(num);
                    table.put(qp);
                    model.put(num, qp);
                    in.add(qp);
                }
            }
            else
            {
                final Qp qp = in.remove(random.nextInt(in.size()));
                table.remove(qp);
                model.remove(qp.num());
            }
            for (int num = 0; num < 200; num++)
            {
                assertSame(model.get(num), table.get(num), "step " + step + ", QP " + num);
            }
            for (final Qp qp : in)
            {
                assertSame(qp, table.get(qp.num()), "step " + step);
            }
        }
        assertEquals(model.size(), in.size());
    }

    @Test
    void removingWhatIsNotThereChangesNothing()
    {
        final QpTable<Qp> table = new QpTable<>(8, Qp::num);
        final Qp a = new Qp(1);
        table.put(a);
        table.remove(new Qp(9));
        assertSame(a, table.get(1));
        table.remove(a);
        assertNull(table.get(1));
    }
}

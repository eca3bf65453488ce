package io.jdat.verbs;

import java.util.Arrays;

/**
 * The IA's registered lkeys and each LMR's local privileges. verbs always lets the NIC read
 * registered memory, and reports a write into memory without local write only as a failed
 * completion; DAT wants a post that the LMR's privileges do not allow to fail with
 * {@code DAT_PRIVILEGES_VIOLATION} and send nothing (docs/dat-mapping.md, "Local memory
 * privileges"), so a post checks its segments here before the NIC sees them. Copy on write: a
 * registration publishes a new sorted snapshot, a post reads the current one with a binary search
 * and allocates nothing.
 */
final class LkeyTable
{
    private record Snapshot(int[] keys, int[] privileges)
    {
    }

    private volatile Snapshot snapshot = new Snapshot(new int[0], new int[0]);

    synchronized void add(final int lkey, final int memPriv)
    {
        final Snapshot s = snapshot;
        final int at = Arrays.binarySearch(s.keys(), lkey);
        final int n = s.keys().length;
        if (at >= 0)
        {
            final int[] read = s.privileges().clone();
            read[at] = memPriv;
            snapshot = new Snapshot(s.keys(), read);
            return;
        }
        final int ins = -at - 1;
        final int[] keys = new int[n + 1];
        final int[] read = new int[n + 1];
        System.arraycopy(s.keys(), 0, keys, 0, ins);
        System.arraycopy(s.privileges(), 0, read, 0, ins);
        keys[ins] = lkey;
        read[ins] = memPriv;
        System.arraycopy(s.keys(), ins, keys, ins + 1, n - ins);
        System.arraycopy(s.privileges(), ins, read, ins + 1, n - ins);
        snapshot = new Snapshot(keys, read);
    }

    synchronized void remove(final int lkey)
    {
        final Snapshot s = snapshot;
        final int at = Arrays.binarySearch(s.keys(), lkey);
        if (at < 0)
        {
            return;
        }
        final int n = s.keys().length;
        final int[] keys = new int[n - 1];
        final int[] read = new int[n - 1];
        System.arraycopy(s.keys(), 0, keys, 0, at);
        System.arraycopy(s.privileges(), 0, read, 0, at);
        System.arraycopy(s.keys(), at + 1, keys, at, n - at - 1);
        System.arraycopy(s.privileges(), at + 1, read, at, n - at - 1);
        snapshot = new Snapshot(keys, read);
    }

    /**
     * False only for an lkey of this IA registered without all of {@code needed}
     * ({@code DAT_MEM_PRIV_*} bits). An lkey the IA does not know is left to the NIC, which fails
     * it with a local protection error.
     */
    boolean allows(final int lkey, final int needed)
    {
        final Snapshot s = snapshot;
        final int at = Arrays.binarySearch(s.keys(), lkey);
        return at < 0 || (s.privileges()[at] & needed) == needed;
    }
}

package io.jdat.verbs;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.MemPriv;
import org.junit.jupiter.api.Test;

class LkeyTableTest
{
    private static final int READ = MemPriv.LOCAL_READ_FLAG;
    private static final int WRITE = MemPriv.LOCAL_WRITE_FLAG;

    @Test
    void aPostNeedsThePrivilegesTheLmrWasRegisteredWithUntilItIsRemoved()
    {
        final LkeyTable t = new LkeyTable();
        t.add(0x300, MemPriv.ALL_FLAG);
        t.add(0x100, WRITE);
        t.add(0x200, READ);
        t.add(0x80000000, MemPriv.REMOTE_READ_FLAG);
        assertTrue(t.allows(0x300, READ));
        assertTrue(t.allows(0x300, WRITE));
        assertFalse(t.allows(0x100, READ), "LOCAL_WRITE does not stand in for LOCAL_READ");
        assertTrue(t.allows(0x100, WRITE));
        assertTrue(t.allows(0x200, READ));
        assertFalse(t.allows(0x200, WRITE));
        assertFalse(t.allows(0x80000000, READ));
        assertFalse(t.allows(0x80000000, WRITE));
        t.remove(0x100);
        assertTrue(t.allows(0x100, READ), "an lkey the IA no longer knows is the NIC's to refuse");
        assertTrue(t.allows(0x300, READ));
        assertFalse(t.allows(0x80000000, READ));
        t.add(0x300, WRITE);
        assertFalse(t.allows(0x300, READ), "a re-registered lkey takes its new privileges");
    }
}

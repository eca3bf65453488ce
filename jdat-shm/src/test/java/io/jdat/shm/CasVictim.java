package io.jdat.shm;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The JVM {@link ShmSpinningPeerTest} debugs: runs one compare-and-set loop of the provider on a word
 * of a shared file, which the test rewrites before every compare-and-set, and prints how it ended
 * ({@code DONE ...}, or {@code CORRUPT ...} where the loop gave the peer up).
 * <ul>
 *   <li>{@code withdraw FILE}: the producer of a ring (control block at 0, 4096 bytes of data at 4096)
 *       withdraws what the consumer has not claimed ({@link SpscRing#withdraw(long)});</li>
 *   <li>{@code cancel DIR ID}: the active side makes connection file {@code ID}, requests, and gives
 *       the attempt up ({@link ConnectionFile#cancel()}).</li>
 * </ul>
 */
public final class CasVictim
{
    private CasVictim()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        switch (args[0])
        {
            case "withdraw" ->
            {
                try (Arena a = Arena.ofShared(); FileChannel fc = FileChannel.open(Path.of(args[1]),
                    StandardOpenOption.READ, StandardOpenOption.WRITE))
                {
                    final MemorySegment seg = fc.map(FileChannel.MapMode.READ_WRITE, 0, 8192, a);
                    final SpscRing ring = new SpscRing(seg.asSlice(0, SpscRing.CONTROL_SIZE), seg.asSlice(4096, 4096));
                    System.out.println("DONE withdrawn from " + ring.withdraw(0));
                }
                catch (final Corrupt e)
                {
                    System.out.println("CORRUPT " + e.getMessage());
                }
            }
            case "cancel" ->
            {
                final ConnectionFile f = ConnectionFile.create(Path.of(args[1]), Long.parseLong(args[2]), 4096);
                f.writeRequest(1, "victim", new byte[0], 1, 1);
                System.out.println("DONE cancelled " + f.cancel() + ", state " + f.state());
                f.unmap();
            }
            default -> throw new IllegalArgumentException(args[0]);
        }
    }
}

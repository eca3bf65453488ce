package io.jdat.shm;

import io.jdat.Dat;
import io.jdat.DatException;
import io.jdat.DatOut;
import io.jdat.EventDispatcher;
import io.jdat.InterfaceAdapter;
import io.jdat.CloseFlags;
import io.jdat.ProviderInfo;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HexFormat;
import java.util.stream.Stream;

/**
 * Another Unix user on the host, run by {@link ShmOtherUserTest} under a uid of its own. One line
 * of output per attempt, saying what it got:
 * <ul>
 *   <li>{@code mkdir PATH}: makes PATH with mode 0777 before the provider does;</li>
 *   <li>{@code link PATH TARGET}: makes its own directory TARGET (0777) and plants PATH as a
 *       symbolic link to it;</li>
 *   <li>{@code attack ROOT ADDRESS COOKIE PATH...}: opens an shm IA on the root, lists it, reads
 *       and writes each PATH (a listening file, a connection file with its rings, a shared memory
 *       file), plants a connection file in the address directory, and maps the shared memory of
 *       COOKIE (hex) as {@link ShmMemory#open} would;</li>
 *   <li>{@code connect ROOT GROUP QUAL TEXT}: opens an shm IA on the root shared with GROUP
 *       (address {@code member}), connects to address {@code srv} on QUAL and Sends TEXT.</li>
 * </ul>
 */
public final class ShmStranger
{
    private ShmStranger()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        System.out.println("UID " + Files.getAttribute(Path.of("/proc/self"), "unix:uid"));
        switch (args[0])
        {
            case "mkdir" ->
            {
                final Path p = Files.createDirectory(Path.of(args[1]));
                Files.setAttribute(p, "unix:mode", 0777);
            }
            case "link" ->
            {
                final Path target = Files.createDirectory(Path.of(args[2]));
                Files.setAttribute(target, "unix:mode", 0777);
                Files.createSymbolicLink(Path.of(args[1]), target);
            }
            case "attack" -> attack(Path.of(args[1]), args[2], HexFormat.of().parseHex(args[3]), args);
            case "connect" -> connect(Path.of(args[1]), args[2], Long.parseLong(args[3]), args[4]);
            default -> throw new IllegalArgumentException(args[0]);
        }
        System.out.println("END");
        System.out.flush();
        System.exit(0);
    }

    private static void attack(final Path root, final String address, final byte[] cookie, final String[] args)
    {
        final ProviderInfo info = ProviderInfo.of("stranger", Dat.THREADSAFE);
        final ShmLibrary library = new ShmLibrary();
        library.providerInit(info, "dir=" + root + " address=" + address);
        try
        {
            final InterfaceAdapter ia = Dat.iaOpen("stranger", 8, new DatOut<EventDispatcher>());
            System.out.println("IA_OPEN ok");
            ia.close(CloseFlags.ABRUPT_FLAG);
        }
        catch (final DatException e)
        {
            System.out.println("IA_OPEN refused " + e.getMessage());
        }
        catch (final RuntimeException e)
        {
            System.out.println("IA_OPEN failed " + e);
        }
        finally
        {
            library.providerFini(info);
        }
        try (Stream<Path> s = Files.list(root))
        {
            System.out.println("LIST ok " + s.toList());
        }
        catch (final Exception e)
        {
            System.out.println("LIST denied " + e.getClass().getSimpleName());
        }
        for (int i = 4; i < args.length; i++)
        {
            final Path p = Path.of(args[i]);
            try (FileChannel fc = FileChannel.open(p, StandardOpenOption.READ))
            {
                System.out.println("READ ok " + fc.read(ByteBuffer.allocate(64)) + " bytes of " + p);
            }
            catch (final Exception e)
            {
                System.out.println("READ denied " + p + " " + e.getClass().getSimpleName());
            }
            try (FileChannel _ = FileChannel.open(p, StandardOpenOption.WRITE))
            {
                System.out.println("WRITE ok " + p);
            }
            catch (final Exception e)
            {
                System.out.println("WRITE denied " + p + " " + e.getClass().getSimpleName());
            }
        }
        final Path plant = root.resolve(address).resolve("c-1-1");
        try
        {
            Files.createFile(plant);
            System.out.println("PLANT ok " + plant);
        }
        catch (final Exception e)
        {
            System.out.println("PLANT denied " + e.getClass().getSimpleName());
        }
        try (ShmMemory m = ShmMemory.open(root, cookie))
        {
            System.out.println("MAP ok " + m);
        }
        catch (final RuntimeException e)
        {
            System.out.println("MAP refused " + e.getMessage());
        }
    }

    private static void connect(final Path root, final String group, final long qual, final String text)
    {
        final ProviderInfo info = ProviderInfo.of("member", Dat.THREADSAFE);
        final ShmLibrary library = new ShmLibrary();
        library.providerInit(info, "dir=" + root + " group=" + group + " address=member");
        final InterfaceAdapter ia;
        try
        {
            ia = Dat.iaOpen("member", 8, new DatOut<EventDispatcher>());
        }
        catch (final DatException e)
        {
            System.out.println("IA_OPEN refused " + e.status().type() + " " + e.getMessage());
            library.providerFini(info);
            return;
        }
        try
        {
            final io.jdat.ProtectionZone pz = ia.pzCreate();
            final EventDispatcher recv = ia.evdCreate(8, null, io.jdat.EvdFlags.DTO_FLAG);
            final EventDispatcher req = ia.evdCreate(8, null, io.jdat.EvdFlags.DTO_FLAG);
            final EventDispatcher conn = ia.evdCreate(8, null, io.jdat.EvdFlags.CONNECTION_FLAG);
            final io.jdat.Endpoint ep = ia.epCreate(pz, recv, req, conn, null);
            final byte[] bytes = text.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
            final java.lang.foreign.MemorySegment m = java.lang.foreign.Arena.global().allocate(4096);
            m.copyFrom(java.lang.foreign.MemorySegment.ofArray(bytes));
            final io.jdat.Lmr lmr = ia.lmrCreate(io.jdat.MemType.VIRTUAL, io.jdat.RegionDescription.forVa(m), 4096, pz,
                io.jdat.MemPriv.ALL_FLAG);
            ep.connect(io.jdat.IaAddress.named("srv"), qual, 10_000_000L, null, io.jdat.Qos.BEST_EFFORT, 0);
            final io.jdat.DatEvent ev = new io.jdat.DatEvent();
            conn.wait(10_000_000L, 1, ev, new io.jdat.DatCount());
            System.out.println("CONNECT " + ev.number());
            ep.postSend(1, new io.jdat.LmrTriplet[] {io.jdat.LmrTriplet.of(lmr, 0, bytes.length)}, 1, 0);
            req.wait(10_000_000L, 1, ev, new io.jdat.DatCount());
            System.out.println("SEND " + ev.dto.status);
            ia.close(CloseFlags.ABRUPT_FLAG);
        }
        catch (final DatException e)
        {
            System.out.println("FAILED " + e.getMessage());
        }
        finally
        {
            library.providerFini(info);
        }
    }
}

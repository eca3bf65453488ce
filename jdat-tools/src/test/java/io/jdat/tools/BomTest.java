package io.jdat.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

/**
 * jdat-bom pins every module a consumer may depend on, at the build's own version: it has no
 * parent (so that importing it brings nothing else), so nothing else keeps the two in step.
 */
class BomTest
{
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    /** Jar modules no consumer depends on: the benchmarks, and what this build's tests share. */
    private static final Set<String> NOT_FOR_CONSUMERS = Set.of("jdat-bench", "jdat-testkit");

    @Test
    void theBomPinsEveryLibraryModuleAtTheBuildsVersion() throws Exception
    {
        final Element parent = read(ROOT.resolve("pom.xml"));
        final String version = child(parent, "version");
        final Set<String> libraries = new TreeSet<>();
        for (final Element m : elements(element(parent, "modules"), "module"))
        {
            final String module = m.getTextContent().strip();
            final Element pom = read(ROOT.resolve(module).resolve("pom.xml"));
            final String packaging = child(pom, "packaging");
            if ((packaging == null || packaging.equals("jar")) && !NOT_FOR_CONSUMERS.contains(module))
            {
                libraries.add(child(pom, "artifactId"));
            }
        }
        final Element bom = read(ROOT.resolve("jdat-bom").resolve("pom.xml"));
        assertEquals(version, child(bom, "version"), "jdat-bom's version");
        final Map<String, String> pinned = new TreeMap<>();
        final Element managed = element(element(bom, "dependencyManagement"), "dependencies");
        for (final Element d : elements(managed, "dependency"))
        {
            assertEquals("io.jdat", child(d, "groupId"), "a jdat-bom entry outside io.jdat");
            pinned.put(child(d, "artifactId"), child(d, "version"));
        }
        assertEquals(libraries, pinned.keySet(), "the modules jdat-bom pins");
        pinned.forEach((artifact, v) -> assertEquals(version, v, artifact + "'s version in jdat-bom"));
    }

    private static Element read(final Path pom) throws Exception
    {
        final DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
        factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
        final Document doc = factory.newDocumentBuilder().parse(Files.newInputStream(pom));
        return doc.getDocumentElement();
    }

    /** The direct child elements of {@code e} named {@code name}. */
    private static List<Element> elements(final Element e, final String name)
    {
        final List<Element> found = new ArrayList<>();
        final NodeList nodes = e.getChildNodes();
        for (int i = 0; i < nodes.getLength(); i++)
        {
            final Node n = nodes.item(i);
            if (n instanceof Element c && c.getTagName().equals(name))
            {
                found.add(c);
            }
        }
        return found;
    }

    private static Element element(final Element e, final String name)
    {
        final List<Element> found = elements(e, name);
        assertEquals(1, found.size(), "one <" + name + "> in <" + e.getTagName() + ">");
        return found.getFirst();
    }

    /** The text of the direct child {@code name}; null if there is none. */
    private static String child(final Element e, final String name)
    {
        final List<Element> found = elements(e, name);
        return found.isEmpty() ? null : found.getFirst().getTextContent().strip();
    }
}

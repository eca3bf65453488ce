/**
 * What the tests of every jdat module share: the protection matrix that each provider runs, and
 * the harnesses around real peers, host tools and packet captures. Modules take it in test scope.
 */
module io.jdat.testkit
{
    requires transitive io.jdat.api;
    requires transitive org.junit.jupiter.api;
    requires transitive org.junit.jupiter.params;
    // FuzzInput's log check hands out java.util.logging handlers
    requires transitive java.logging;

    exports io.jdat.testkit;

    // JUnit reaches the abstract tests' methods reflectively
    opens io.jdat.testkit to org.junit.platform.commons;
}

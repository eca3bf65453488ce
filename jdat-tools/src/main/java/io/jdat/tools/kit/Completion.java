package io.jdat.tools.kit;

/**
 * How a tool waits for completions (dapltest's {@code -P} and {@code -Q}, dtest's {@code -p}
 * and {@code -c}): blocking in {@code dat_evd_wait}, polling with {@code dat_evd_dequeue}, or
 * blocking in {@code dat_cno_wait} on a CNO the EVDs report to, then dequeuing.
 */
public enum Completion
{
    /** {@code dat_evd_wait} with threshold 1. */
    WAIT,
    /** A {@code dat_evd_dequeue} loop on the calling thread. */
    POLL,
    /** {@code dat_cno_wait}, then {@code dat_evd_dequeue}. */
    CNO
}

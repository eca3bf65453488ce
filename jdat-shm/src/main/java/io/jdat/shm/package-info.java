/**
 * The {@code shm} transport: connections between processes of one host through shared memory.
 */
package io.jdat.shm;

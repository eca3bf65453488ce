/**
 * The consumer kit the tools share, written against the DAT API alone as any consumer's code
 * would be: an open IA with its protection zone and memory ({@link io.jdat.tools.kit.Node}),
 * an endpoint with its EVDs and checked completions ({@link io.jdat.tools.kit.Link}), text
 * control messages over a DAT connection ({@link io.jdat.tools.kit.ControlChannel}), test data
 * patterns and {@code ADDRESS:PORT} parsing.
 */
package io.jdat.tools.kit;

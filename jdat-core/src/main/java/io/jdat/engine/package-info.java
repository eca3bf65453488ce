/**
 * The software engine: one home per DAT object ({@code IaImpl}, {@code EpImpl}, …), the event
 * queues, the endpoint state machine, and the validation and placement of incoming RDMA
 * messages, shared by every software transport.
 */
package io.jdat.engine;

package io.jdat;

/**
 * {@code DAT_OS_WAIT_PROXY_AGENT}: a function a CNO calls (set by {@code dat_cno_create} or
 * {@code dat_cno_modify_agent}), with its instance data and the EVD that triggered it, in addition
 * to waking the CNO's waiters. {@link #NULL} (or {@code null}) means none. An agent whose function
 * is {@code null} but whose instance data is not is invalid.
 *
 * @param instanceData opaque to the provider
 * @param function     what to call
 */
public record OsWaitProxyAgent(Object instanceData, AgentFunction function)
{
    /** {@code DAT_OS_WAIT_PROXY_AGENT_NULL}. */
    public static final OsWaitProxyAgent NULL = new OsWaitProxyAgent(null, null);

    /** {@code DAT_AGENT_FUNC}. */
    @FunctionalInterface
    public interface AgentFunction
    {
        void call(Object instanceData, EventDispatcher evd);
    }

    /** True for {@link #NULL}. */
    public boolean isNull()
    {
        return instanceData == null && function == null;
    }

    /** False for an agent that has instance data but no function. */
    public boolean isValid()
    {
        return function != null || instanceData == null;
    }
}

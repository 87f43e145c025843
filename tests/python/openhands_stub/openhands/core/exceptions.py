"""TEST STAND-IN, NOT OPENHANDS: a test-only imitation of OpenHands 0.62's `openhands.core.exceptions`: the runtime exceptions, same names and hierarchy."""


class AgentRuntimeError(Exception):
    pass


class AgentRuntimeBuildError(AgentRuntimeError):
    pass


class AgentRuntimeTimeoutError(AgentRuntimeError):
    pass


class AgentRuntimeUnavailableError(AgentRuntimeError):
    pass


class AgentRuntimeNotReadyError(AgentRuntimeUnavailableError):
    pass


class AgentRuntimeDisconnectedError(AgentRuntimeUnavailableError):
    pass


class AgentRuntimeNotFoundError(AgentRuntimeUnavailableError):
    pass

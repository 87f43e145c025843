"""actionhost: sandboxes for AI agents, driven from Python.

    from actionhost import Sandbox

    with Sandbox.create() as sbx:
        print(sbx.commands.run("echo hello").stdout)
        sbx.files.write("notes.txt", "one\\n")
        print(sbx.run_code("1 + 1").text)

The API follows E2B's (``Sandbox``, ``sbx.commands``, ``sbx.files``), ``AsyncSandbox`` is the same on
asyncio, errors are OpenHands' exception classes, and ``actionhost.openhands.ActionHostRuntime`` runs an
OpenHands agent in these sandboxes. See docs/python.md.
"""

from .errors import (
    AgentRuntimeBuildError,
    AgentRuntimeDisconnectedError,
    AgentRuntimeError,
    AgentRuntimeNotFoundError,
    AgentRuntimeNotReadyError,
    AgentRuntimeTimeoutError,
    AgentRuntimeUnavailableError,
    ConfigurationError,
)
from .sandbox import (
    DEFAULT_COMMAND_TIMEOUT,
    CommandHandle,
    CommandResult,
    Commands,
    EntryInfo,
    Execution,
    Files,
    Ports,
    Sandbox,
    SandboxInfo,
)
from .aio import AsyncCommandHandle, AsyncSandbox

__all__ = [
    "Sandbox",
    "AsyncSandbox",
    "CommandResult",
    "CommandHandle",
    "AsyncCommandHandle",
    "Commands",
    "Files",
    "Ports",
    "EntryInfo",
    "Execution",
    "SandboxInfo",
    "DEFAULT_COMMAND_TIMEOUT",
    "AgentRuntimeError",
    "AgentRuntimeBuildError",
    "AgentRuntimeTimeoutError",
    "AgentRuntimeUnavailableError",
    "AgentRuntimeNotReadyError",
    "AgentRuntimeDisconnectedError",
    "AgentRuntimeNotFoundError",
    "ConfigurationError",
]

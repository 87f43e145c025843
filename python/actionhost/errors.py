"""Exceptions of the actionhost package, named after OpenHands' (``openhands.core.exceptions``).

Every exception carries the message of the part that failed (the host's or the backend's), and, where an
HTTP answer came, its ``status`` and the JSON ``detail`` of its body (``status`` is 0 when no answer came).
"""

from __future__ import annotations


class AgentRuntimeError(Exception):
    """A sandbox could not be provisioned, reached or used (the base of every error here)."""

    status: int = 0
    detail: str = ""


class AgentRuntimeBuildError(AgentRuntimeError):
    """A sandbox image could not be made."""


class AgentRuntimeTimeoutError(AgentRuntimeError):
    """An action or command did not end within its timeout."""


class AgentRuntimeUnavailableError(AgentRuntimeError):
    """The sandbox cannot serve now (HTTP 503 without a way to resume it)."""


class AgentRuntimeNotReadyError(AgentRuntimeUnavailableError):
    """The sandbox did not become ready."""


class AgentRuntimeDisconnectedError(AgentRuntimeUnavailableError):
    """The sandbox went away (it died, was killed or stopped answering), e.g. in the middle of a command."""


class AgentRuntimeNotFoundError(AgentRuntimeUnavailableError):
    """No such sandbox, runtime backend or path."""


class ConfigurationError(AgentRuntimeError, ValueError):
    """A configuration key is unknown or has a value of the wrong type (as OpenHands' config refuses it)."""


__all__ = [
    "AgentRuntimeError",
    "AgentRuntimeBuildError",
    "AgentRuntimeTimeoutError",
    "AgentRuntimeUnavailableError",
    "AgentRuntimeNotReadyError",
    "AgentRuntimeDisconnectedError",
    "AgentRuntimeNotFoundError",
    "ConfigurationError",
]

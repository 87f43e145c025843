"""``ActionHostRuntime``: an OpenHands runtime class whose sandboxes are actionhost's.

In an OpenHands (0.62, V0) ``config.toml``::

    [core]
    runtime = "actionhost.openhands.ActionHostRuntime"

    [extended.actionhost]
    runtime = "sandbox"          # the actionhost backend: sandbox, local, docker, kubernetes, ...

OpenHands resolves the dotted name with ``get_runtime_cls``, constructs the class as it constructs its
own runtimes and awaits :meth:`ActionHostRuntime.connect`. The class provisions the sandbox through
this package (:class:`actionhost.Sandbox`), hands the host's address and session key to OpenHands'
``ActionExecutionClient``, which then sends every action itself, over its own HTTP session, exactly as
for its Docker or remote runtimes. docs/openhands-runtime.md says how to use it and lists every member
of OpenHands this module relies on.

This is the only module of the package that imports OpenHands: ``import actionhost`` works without it.

Threads: OpenHands awaits :meth:`connect` on its event loop; the provisioning (which blocks) runs in the
loop's default executor, and the runtime statuses reach OpenHands' ``status_callback`` from that worker
thread, as with OpenHands' own DockerRuntime. :meth:`close`, :meth:`pause` and :meth:`resume` are
synchronous and may be called from any thread (OpenHands calls ``close`` from its conversation manager,
from ``atexit`` and from error paths, possibly twice); a ``close`` that races a ``connect`` still in its
worker thread ends (or lets go of) the sandbox as soon as that thread has it.
"""

from __future__ import annotations

import asyncio
import os
import threading
from typing import Any, Dict, List, Mapping, Optional, Tuple

from openhands.core.exceptions import AgentRuntimeBuildError as _OHBuildError
from openhands.core.exceptions import AgentRuntimeDisconnectedError as _OHDisconnectedError
from openhands.core.exceptions import AgentRuntimeError as _OHRuntimeError
from openhands.core.exceptions import AgentRuntimeNotFoundError as _OHNotFoundError
from openhands.core.exceptions import AgentRuntimeNotReadyError as _OHNotReadyError
from openhands.core.exceptions import AgentRuntimeTimeoutError as _OHTimeoutError
from openhands.core.exceptions import AgentRuntimeUnavailableError as _OHUnavailableError
from openhands.runtime.impl.action_execution.action_execution_client import ActionExecutionClient
from openhands.runtime.runtime_status import RuntimeStatus

from . import errors as _errors
from .sandbox import Sandbox

#: The environment variable naming the actionhost backend; it wins over ``[extended.actionhost] runtime``.
BACKEND_ENV = "ACTIONHOST_RUNTIME_BACKEND"
#: The table of OpenHands' ``[extended]`` section this class reads (``[extended.actionhost]``).
EXTENDED_TABLE = "actionhost"
#: The backend when neither names one.
DEFAULT_BACKEND = "sandbox"

# OpenHands' [core] fields given to actionhost's [core] as they are (the two configurations agree on
# their defaults). core.workspace_base becomes Sandbox.create's `workspace`.
_CORE_KEYS: Tuple[str, ...] = (
    "workspace_base",
    "workspace_mount_path_in_sandbox",
    "workspace_mount_path",
    "run_as_openhands",
    "enable_browser",
    "debug",
    "git_user_name",
    "git_user_email",
)

# OpenHands' [sandbox] fields (SandboxConfig) given to actionhost's [sandbox] when their value differs
# from a default SandboxConfig's: an unset key keeps actionhost's own default (e.g. the `sandbox`
# backend runs no image unless one is asked for, and binds to the loopback, not 0.0.0.0). Left out:
# `selected_repo` (OpenHands clones it itself, through this runtime, after connect).
_SANDBOX_KEYS: Tuple[str, ...] = (
    "remote_runtime_api_url",
    "local_runtime_url",
    "keep_runtime_alive",
    "pause_closed_runtimes",
    "rm_all_containers",
    "api_key",
    "base_container_image",
    "runtime_container_image",
    "user_id",
    "timeout",
    "remote_runtime_init_timeout",
    "remote_runtime_api_timeout",
    "remote_runtime_enable_retries",
    "remote_runtime_class",
    "enable_auto_lint",
    "use_host_network",
    "additional_networks",
    "runtime_binding_address",
    "runtime_extra_build_args",
    "initialize_plugins",
    "force_rebuild_runtime",
    "runtime_extra_deps",
    "runtime_startup_env_vars",
    "browsergym_eval_env",
    "platform",
    "close_delay",
    "remote_runtime_resource_factor",
    "enable_gpu",
    "docker_runtime_kwargs",
    "trusted_dirs",
    "vscode_port",
    "volumes",
    "cuda_visible_devices",
)

# OpenHands' [kubernetes] fields (KubernetesConfig), given (when not default) to the kubernetes backend.
_KUBERNETES_KEYS: Tuple[str, ...] = (
    "namespace",
    "ingress_domain",
    "pvc_storage_size",
    "pvc_storage_class",
    "resource_cpu_request",
    "resource_memory_request",
    "resource_memory_limit",
    "image_pull_secret",
    "ingress_tls_secret",
    "node_selector_key",
    "node_selector_val",
    "tolerations_yaml",
    "privileged",
)

# OpenHands' application port ranges (APP_PORT_1, APP_PORT_2): published ports in them are web_hosts.
_APP_PORTS = range(50000, 60000)

_ERROR_CLASSES = {
    _errors.AgentRuntimeBuildError: _OHBuildError,
    _errors.AgentRuntimeTimeoutError: _OHTimeoutError,
    _errors.AgentRuntimeNotReadyError: _OHNotReadyError,
    _errors.AgentRuntimeDisconnectedError: _OHDisconnectedError,
    _errors.AgentRuntimeNotFoundError: _OHNotFoundError,
    _errors.AgentRuntimeUnavailableError: _OHUnavailableError,
}


def _openhands_error(e: BaseException) -> BaseException:
    """The OpenHands exception for an error of this package: the class of the same name (OpenHands'
    handlers catch those), the message kept. A configuration error is OpenHands' ValueError."""
    if isinstance(e, _errors.ConfigurationError):
        return ValueError(str(e))
    for mine, theirs in _ERROR_CLASSES.items():
        if type(e) is mine:
            return theirs(str(e))
    if isinstance(e, _errors.AgentRuntimeError):
        return _OHRuntimeError(str(e))
    return e


def _flatten(table: Mapping[str, Any]) -> Dict[str, Any]:
    """``{"sandbox": {"network": "none"}}`` and ``{"sandbox.network": "none"}`` alike, as dotted keys."""
    flat: Dict[str, Any] = {}
    for key, value in table.items():
        if "." not in key and isinstance(value, Mapping):
            for inner, v in value.items():
                flat[f"{key}.{inner}"] = v
        else:
            flat[str(key)] = value
    return flat


def _differs(section: Any, name: str, default: Any) -> bool:
    return getattr(section, name) != getattr(default, name)


def settings_of(config: Any, environ: Optional[Mapping[str, str]] = None) -> Tuple[str, Dict[str, Any]]:
    """The actionhost backend and configuration (dotted keys) an OpenHands configuration describes.

    From first to last, later ones winning: OpenHands' ``[core]`` fields of ``_CORE_KEYS``, its
    ``[sandbox]`` fields of ``_SANDBOX_KEYS`` that differ from their defaults, for the kubernetes backend
    its ``[kubernetes]`` fields that differ from theirs, then every key of ``[extended.actionhost]``
    (actionhost's own keys, which OpenHands' ``[sandbox]`` would refuse, e.g. ``sandbox.network``). The
    backend is ``$ACTIONHOST_RUNTIME_BACKEND``, else ``[extended.actionhost] runtime``, else ``sandbox``.
    Raises ValueError for an ``[extended.actionhost]`` that is not a table.
    """
    environ = os.environ if environ is None else environ
    extended = getattr(config, "extended", None)
    table = getattr(extended, EXTENDED_TABLE, None) if extended is not None else None
    if table is None:
        table = {}
    if not isinstance(table, Mapping):
        raise ValueError(f"[extended.{EXTENDED_TABLE}] of the OpenHands configuration must be a table, not {table!r}")
    own = _flatten(table)
    backend = environ.get(BACKEND_ENV) or own.pop("runtime", None) or own.pop("core.runtime", None) or DEFAULT_BACKEND
    own.pop("runtime", None)
    own.pop("core.runtime", None)
    if not isinstance(backend, str):
        raise ValueError(f"[extended.{EXTENDED_TABLE}] runtime must be a backend's name, not {backend!r}")

    keys: Dict[str, Any] = {}
    for name in _CORE_KEYS:
        value = getattr(config, name)
        if value is not None:
            keys[f"core.{name}"] = value
    sandbox = config.sandbox
    default_sandbox = type(sandbox)()
    for name in _SANDBOX_KEYS:
        if _differs(sandbox, name, default_sandbox) and getattr(sandbox, name) is not None:
            keys[f"sandbox.{name}"] = getattr(sandbox, name)
    if backend == "kubernetes":
        kubernetes = config.kubernetes
        default_kubernetes = type(kubernetes)()
        for name in _KUBERNETES_KEYS:
            if _differs(kubernetes, name, default_kubernetes) and getattr(kubernetes, name) is not None:
                keys[f"kubernetes.{name}"] = getattr(kubernetes, name)
    keys.update(own)
    return backend, keys


class ActionHostRuntime(ActionExecutionClient):
    """An OpenHands runtime whose sandbox is actionhost's, on any of its backends.

    Constructed by OpenHands with ``ActionExecutionClient``'s arguments. :meth:`connect` starts the
    sandbox with id ``sid`` (or reattaches to a kept-alive one of that id), or with
    ``attach_to_existing`` only reaches a running one (OpenHands' AgentRuntimeNotFoundError when there is
    none). Actions then go from OpenHands' base class to the sandbox's host over HTTP.

    Configuration: see :func:`settings_of`. The sandbox's variables are OpenHands' initial ones
    (``SANDBOX_ENV_*``, the ``env_vars`` argument, git provider tokens) and
    ``sandbox.runtime_startup_env_vars``; actionhost's client sets them, and git's user, at start, so the
    base class's ``setup_initial_env`` is not called (as OpenHands skips it when attaching, so does this).
    """

    def __init__(
        self,
        config: Any,
        event_stream: Any,
        llm_registry: Any,
        sid: str = "default",
        plugins: Optional[List[Any]] = None,
        env_vars: Optional[Dict[str, str]] = None,
        status_callback: Optional[Any] = None,
        attach_to_existing: bool = False,
        headless_mode: bool = True,
        user_id: Optional[str] = None,
        git_provider_tokens: Optional[Any] = None,
    ):
        # Set before the base class's constructor, which registers close() with atexit.
        self._ah_lock = threading.Lock()
        self._ah_sandbox: Optional[Sandbox] = None
        self._ah_url: Optional[str] = None
        self._ah_key: Optional[str] = None
        self._ah_closed = False
        self._ah_reporting = False
        self._ah_last_status: Optional[Any] = None
        super().__init__(
            config,
            event_stream,
            llm_registry,
            sid,
            plugins,
            env_vars,
            status_callback,
            attach_to_existing,
            headless_mode,
            user_id,
            git_provider_tokens,
        )
        self._ah_backend, self._ah_keys = settings_of(self.config)

    # --- what ActionExecutionClient reads ------------------------------------------------------------
    @property
    def action_execution_server_url(self) -> str:
        """The sandbox host's base URL (``http://...``), once connected. Before :meth:`connect` and after
        :meth:`close` raises OpenHands' AgentRuntimeDisconnectedError."""
        url = self._ah_url
        if url is None:
            state = "closed" if self._ah_closed else "not connected yet"
            raise _OHDisconnectedError(f"the actionhost runtime of session {self.sid} is {state}")
        return url

    @property
    def session_api_key(self) -> Optional[str]:
        """The key the sandbox's host wants in ``X-Session-API-Key`` (also set on ``self.session``)."""
        return self._ah_key

    @property
    def vscode_url(self) -> Optional[str]:
        """None: no VS Code address is offered through OpenHands yet (``ahctl`` publishes it)."""
        return None

    @property
    def web_hosts(self) -> Dict[str, int]:
        """The sandbox's application ports (OpenHands' 50000-59999) published on this machine:
        ``{"http://127.0.0.1:<machine port>": <port in the sandbox>}``; ``{}`` when the backend
        publishes none."""
        sandbox = self._ah_sandbox
        if sandbox is None:
            return {}
        try:
            published = sandbox.ports.list()
        except _errors.AgentRuntimeError:
            return {}
        return {f"http://{address}": port for port, address in sorted(published.items()) if port in _APP_PORTS}

    # --- life cycle -----------------------------------------------------------------------------------
    async def connect(self) -> None:
        """Starts (or reattaches to, or with ``attach_to_existing`` only reaches) the sandbox ``sid``.

        Reports OpenHands' statuses: STARTING_RUNTIME first, then the backend's own (BUILDING_RUNTIME
        while an image is fetched, RUNTIME_STARTED, SETTING_UP_WORKSPACE ...), READY last. Raises
        OpenHands' exception of the same name as actionhost's (AgentRuntimeNotFoundError,
        AgentRuntimeBuildError ...), or ValueError for a configuration actionhost refuses; a sandbox
        that failed to start is ended."""
        loop = asyncio.get_running_loop()
        await loop.run_in_executor(None, self._ah_start)
        self._runtime_initialized = True

    def _ah_start(self) -> None:
        keys = dict(self._ah_keys)
        self._ah_reporting = True
        try:
            if self.attach_to_existing:
                try:
                    sandbox = Sandbox.connect(self.sid, config=keys)
                except _errors.AgentRuntimeError as e:
                    raise _openhands_error(e) from e
            else:
                self._ah_report(RuntimeStatus.STARTING_RUNTIME, f"starting an actionhost {self._ah_backend} sandbox")
                try:
                    sandbox = Sandbox.create(
                        runtime=self._ah_backend,
                        image=keys.pop("sandbox.base_container_image", None),
                        envs={str(k).upper(): str(v) for k, v in self.initial_env_vars.items()},
                        workspace=keys.pop("core.workspace_base", None),
                        timeout=keys.pop("sandbox.timeout", self.config.sandbox.timeout),
                        config=keys,
                        sandbox_id=self.sid,
                        plugins=[p.name for p in self.plugins],
                        on_status=self._ah_on_status,
                    )
                except _errors.AgentRuntimeError as e:
                    raise _openhands_error(e) from e
            with self._ah_lock:
                closed = self._ah_closed
                if not closed:
                    self._ah_sandbox = sandbox
            if closed:  # close() came while this thread was starting it
                self._ah_end(sandbox)
                raise _OHDisconnectedError(f"the actionhost runtime of session {self.sid} was closed while it started")
            try:
                self._ah_use_endpoint(sandbox)
            except BaseException as e:
                with self._ah_lock:
                    self._ah_sandbox = None
                # A sandbox this call started is ended; one it only reached is let go of.
                sandbox.close() if self.attach_to_existing else sandbox.kill()
                raise _openhands_error(e) from e
            if self._ah_last_status is not RuntimeStatus.READY:
                self._ah_report(RuntimeStatus.READY, f"actionhost {sandbox.runtime} sandbox {sandbox.sandbox_id}")
        finally:
            self._ah_reporting = False

    def _ah_use_endpoint(self, sandbox: Sandbox) -> None:
        """Gives the base class the sandbox's address and key."""
        url = sandbox.http_url  # a unix socket's host published on the loopback: requests speaks TCP
        key = sandbox.session_api_key or None
        if key:
            self.session.headers.update({"X-Session-API-Key": key})
        self._ah_key = key
        self._ah_url = url.rstrip("/")

    def _ah_on_status(self, status: str, detail: str) -> None:
        if not self._ah_reporting:
            return
        try:
            value = RuntimeStatus(status)
        except ValueError:  # a status of actionhost's own that OpenHands has no name for
            self.log("debug", f"actionhost status {status}: {detail}")
            return
        self._ah_report(value, detail)

    def _ah_report(self, status: Any, message: str) -> None:
        self._ah_last_status = status
        level = "error" if status.value.startswith("STATUS$ERROR") else "info"
        self.set_runtime_status(status, message, level=level)

    def _ah_end(self, sandbox: Sandbox) -> None:
        """Ends the sandbox, or only lets go of it when OpenHands keeps runtimes alive or attached to it."""
        if self.config.sandbox.keep_runtime_alive or self.attach_to_existing:
            sandbox.close()
        else:
            sandbox.kill()

    def close(self) -> None:
        """Closes OpenHands' HTTP session and ends the sandbox, or only lets go of it (it keeps running,
        ``Sandbox.list()`` and ``ahctl ps`` list it) with ``sandbox.keep_runtime_alive`` or
        ``attach_to_existing``, as OpenHands' DockerRuntime. Idempotent; safe before connect."""
        with self._ah_lock:
            if self._ah_closed:
                return
            self._ah_closed = True
            sandbox, self._ah_sandbox = self._ah_sandbox, None
            self._ah_url = None
            self._ah_reporting = False
        try:
            super().close()
        finally:
            if sandbox is not None:
                try:
                    self._ah_end(sandbox)
                except _errors.AgentRuntimeError as e:
                    self.log("error", f"could not close actionhost sandbox {self.sid}: {e}")
                    raise _openhands_error(e) from e

    def pause(self) -> None:
        """Freezes the sandbox (its processes stop, its memory is kept) until :meth:`resume`."""
        sandbox = self._ah_connected()
        try:
            sandbox.pause()
        except _errors.AgentRuntimeError as e:
            raise _openhands_error(e) from e

    def resume(self) -> None:
        """Thaws a paused sandbox; its address is read again (a backend may bring it back elsewhere)."""
        sandbox = self._ah_connected()
        self._ah_reporting = True
        try:
            sandbox.resume()
            self._ah_use_endpoint(sandbox)
        except _errors.AgentRuntimeError as e:
            raise _openhands_error(e) from e
        finally:
            self._ah_reporting = False

    def _ah_connected(self) -> Sandbox:
        sandbox = self._ah_sandbox
        if sandbox is None:
            raise RuntimeError(f"the actionhost runtime of session {self.sid} is not connected")
        return sandbox


__all__ = ["ActionHostRuntime", "settings_of", "BACKEND_ENV", "EXTENDED_TABLE", "DEFAULT_BACKEND"]

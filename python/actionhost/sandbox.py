"""Sandboxes driven from Python, in the shape of E2B's SDK (``Sandbox.create``, ``sbx.commands.run``,
``sbx.files.read`` ...), over the C++ client library (``actionhost._native``): provisioning on every
backend, the wire to the host, live output and file copies are the library's, never re-implemented here.

A sandbox made by :meth:`Sandbox.create` outlives the Python object (as an E2B sandbox outlives its
client): :meth:`Sandbox.list` lists it, :meth:`Sandbox.connect` reaches it again from any process, and
only :meth:`Sandbox.kill` — or leaving its ``with`` block — ends it (``ahctl ps`` and ``ahctl stop`` see
the same sandboxes).
"""

from __future__ import annotations

import itertools
import json
import os
import posixpath
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Mapping, Optional, Union

from . import _native
from .errors import AgentRuntimeDisconnectedError, AgentRuntimeError, AgentRuntimeTimeoutError

OutputCallback = Callable[[str], Any]
StatusCallback = Callable[[str, str], Any]
ConfigArg = Union[None, str, "os.PathLike[str]", Mapping[str, Any]]

#: The timeout of a command when none is given (seconds), as E2B's; ``timeout=0`` waits without limit.
DEFAULT_COMMAND_TIMEOUT = 60.0
# "No limit" still needs a number on the wire: a month is longer than anything waits in practice.
_UNLIMITED = 30.0 * 24 * 3600


@dataclass(frozen=True)
class CommandResult:
    """What a command printed and how it ended."""

    stdout: str
    stderr: str
    exit_code: int

    @property
    def error(self) -> Optional[str]:
        """The stderr of a failed command (E2B's field), else ``None``."""
        return self.stderr if self.exit_code != 0 else None


@dataclass(frozen=True)
class EntryInfo:
    """One entry of :meth:`Files.list`: a symbolic link is described itself, never its target."""

    name: str
    path: str
    type: str  #: ``"dir"``, ``"file"``, ``"symlink"`` or ``"other"``
    size: int
    mode: int  #: permission bits, e.g. ``0o755``
    modified_time: int  #: seconds since the epoch


@dataclass(frozen=True)
class SandboxInfo:
    """A running sandbox as :meth:`Sandbox.list` finds it."""

    sandbox_id: str
    runtime: str
    url: str
    started_at: int
    record: Dict[str, Any] = field(repr=False, default_factory=dict)


@dataclass(frozen=True)
class Execution:
    """The outcome of :meth:`Sandbox.run_code`: the cell's text output and the images it showed."""

    text: str
    images: List[str]  #: data URLs (``data:image/png;base64,...``)
    observation: Dict[str, Any] = field(repr=False, default_factory=dict)


def _flatten_config(config: Mapping[str, Any]) -> Dict[str, Any]:
    """``{"sandbox": {"network": "internet"}}`` and ``{"sandbox.network": "internet"}`` alike."""
    flat: Dict[str, Any] = {}
    for key, value in config.items():
        if not isinstance(key, str):
            raise TypeError(f"configuration keys are strings, not {type(key).__name__}")
        if "." not in key and isinstance(value, Mapping):
            for inner, v in value.items():
                flat[f"{key}.{inner}"] = v
        else:
            flat[key] = value
    return flat


def _options(config: ConfigArg, **keys: Any) -> Dict[str, Any]:
    """The JSON options of ``_native.Runtime``: a config.toml path or a dict of keys, then ``keys``
    (dotted configuration keys whose value is not None) on top."""
    options: Dict[str, Any] = {"config": {}}
    if isinstance(config, (str, os.PathLike)):
        options["config_file"] = os.fspath(config)
    elif isinstance(config, Mapping):
        options["config"] = _flatten_config(config)
    elif config is not None:
        raise TypeError("config is a path to a config.toml or a dict of keys")
    for key, value in keys.items():
        if value is not None:
            options["config"][key] = value
    return options


class _Output:
    """One stream of a command as it arrives: callbacks get each piece as printed; a terminal's CR LF
    becomes LF (a lone CR, a progress bar's, is kept)."""

    def __init__(self, callback: Optional[OutputCallback], from_terminal: bool) -> None:
        self._callback = callback
        self._from_terminal = from_terminal
        self._pending_cr = False
        self._parts: List[str] = []

    def feed(self, chunk: str) -> None:
        if self._from_terminal:
            if self._pending_cr:
                chunk = "\r" + chunk
            self._pending_cr = chunk.endswith("\r")
            if self._pending_cr:
                chunk = chunk[:-1]
            chunk = chunk.replace("\r\n", "\n")
        if not chunk:
            return
        self._parts.append(chunk)
        if self._callback is not None:
            self._callback(chunk)

    def text(self) -> str:
        return "".join(self._parts) + ("\r" if self._pending_cr else "")


class CommandHandle:
    """A command started with ``background=True``: :meth:`wait` for its result, :meth:`kill` to stop it."""

    def __init__(self, commands: "Commands", session: str, runner: Callable[[threading.Event], CommandResult]) -> None:
        self._commands = commands
        self._session = session
        self._started = threading.Event()  # the host began the command (its action_start)
        self._done = threading.Event()
        self._result: Optional[CommandResult] = None
        self._error: Optional[BaseException] = None

        def body() -> None:
            try:
                self._result = runner(self._started)
            except BaseException as e:  # handed to wait()
                self._error = e
            finally:
                # Ended before its session is reused: a kill() still at work never reaches the next command.
                self._done.set()
                self._commands._release_session(session)

        self._thread = threading.Thread(target=body, name=f"actionhost-{session}", daemon=True)
        self._thread.start()

    @property
    def finished(self) -> bool:
        """Whether the command has ended."""
        return self._done.is_set()

    def wait(self, timeout: Optional[float] = None) -> CommandResult:
        """The command's result once it ended; raises what the command raised (e.g.
        AgentRuntimeTimeoutError), or AgentRuntimeTimeoutError when ``timeout`` seconds pass first."""
        if not self._done.wait(timeout):
            raise AgentRuntimeTimeoutError(f"the background command in session {self._session} still runs")
        if self._error is not None:
            raise self._error
        assert self._result is not None
        return self._result

    def kill(self) -> bool:
        """Interrupts the command (Ctrl-C to its session). Returns whether it was still running."""
        if self._done.is_set():
            return False
        # Ctrl-C reaches only a command the session runs: one still on its way would start after it.
        deadline = time.monotonic() + 10
        while not self._started.wait(0.05) and not self._done.is_set() and time.monotonic() < deadline:
            pass
        if self._done.is_set():
            return False
        # A Ctrl-C that lands between the host's start of the command and the shell's start of its
        # program is lost: sent again, a few times, until the command has ended.
        for _ in range(10):
            self._commands._interrupt(self._session)
            if self._done.wait(1.0):
                break
        return True


class Commands:
    """Shell commands in the sandbox (``sbx.commands``).

    Foreground commands run one at a time in the sandbox's shell session (a ``cd`` or ``export`` of
    one stays for the next, as in an agent's terminal; ``cwd`` and ``envs`` apply to their own command
    only). Each background command runs in a session of its own, so it runs beside the foreground ones.
    """

    def __init__(self, sandbox: "Sandbox") -> None:
        self._sandbox = sandbox
        self._foreground = threading.Lock()
        self._idle_sessions: List[str] = []
        self._sessions_lock = threading.Lock()
        self._counter = itertools.count(1)

    def run(
        self,
        cmd: str,
        on_stdout: Optional[OutputCallback] = None,
        on_stderr: Optional[OutputCallback] = None,
        timeout: Optional[float] = DEFAULT_COMMAND_TIMEOUT,
        cwd: Optional[str] = None,
        envs: Optional[Mapping[str, str]] = None,
        background: bool = False,
    ) -> Any:
        """Runs ``cmd`` with bash and returns its :class:`CommandResult` (stdout and stderr apart, exit
        code), or with ``background=True`` a :class:`CommandHandle` at once.

        ``on_stdout``/``on_stderr`` are called with the output as it is printed, in order, on a thread
        of the library's. ``timeout`` (seconds; ``0`` or ``None`` waits without limit) ends the command
        with Ctrl-C and raises AgentRuntimeTimeoutError. A non-zero exit code is no error.
        """
        text = self._command_text(cmd, cwd, envs)
        if background:
            session = self._take_session()
            return CommandHandle(self, session, lambda started: self._run_in(session, text, on_stdout, on_stderr, timeout, started))
        with self._foreground:
            return self._run_in("", text, on_stdout, on_stderr, timeout)

    def _command_text(self, cmd: str, cwd: Optional[str], envs: Optional[Mapping[str, str]]) -> str:
        if not isinstance(cmd, str) or not cmd.strip():
            raise ValueError("a command is a non-empty string")
        if cwd is None and not envs:
            return cmd
        # A subshell: the directory and variables are this command's only, whatever it does.
        steps = []
        if cwd is not None:
            steps.append("cd -- " + _native.bash_quote(cwd))
        for name, value in (envs or {}).items():
            if not name.isidentifier() or not name.isascii():
                raise ValueError(f"not a variable name: {name!r}")
            steps.append(f"export {name}={_native.bash_quote(value)}")
        return "( " + " && ".join(steps) + " && {\n" + cmd + "\n} )"

    def _run_in(
        self,
        session: str,
        text: str,
        on_stdout: Optional[OutputCallback],
        on_stderr: Optional[OutputCallback],
        timeout: Optional[float],
        started: Optional[threading.Event] = None,
    ) -> CommandResult:
        limit = float(timeout) if timeout else _UNLIMITED
        action = {
            "action": "run",
            # No terminal (the host's "tty": false): a program sees pipes as under `docker run`, nothing
            # prompts or pages, stdin is empty, and stdout and stderr arrive apart.
            "args": {"command": text, "blocking": True, "is_input": False, "tty": False},
            "timeout": limit,
        }
        out = _Output(on_stdout, from_terminal=False)
        err = _Output(on_stderr, from_terminal=False)
        complete = [True]

        def on_event(kind: str, data: str) -> None:
            if kind == "action_start" and started is not None:
                started.set()
            if kind == "dropped":
                complete[0] = False
            if kind != "output":
                return
            event = json.loads(data)
            (err if event.get("stream") == "stderr" else out).feed(event.get("chunk", ""))

        obs = self._sandbox._execute(action, session, on_event)
        extras = obs.get("extras", {})
        exit_code = extras.get("metadata", {}).get("exit_code", -1)
        if _timed_out(obs):
            self._interrupt(session)
            raise AgentRuntimeTimeoutError(f"the command did not end within {timeout} seconds and was interrupted")
        if exit_code is None:
            exit_code = -1
        if complete[0]:
            stdout, stderr = out.text(), err.text()
        else:  # the stream lost events: the observation's text, cut as the host cuts it for an agent
            stdout, stderr = obs.get("content", ""), extras.get("stderr", "")
        return CommandResult(stdout=stdout, stderr=stderr, exit_code=int(exit_code))

    def _interrupt(self, session: str) -> None:
        self._sandbox._execute({"action": "run", "args": {"command": "C-c", "is_input": True}, "timeout": 10}, session, None)

    def _take_session(self) -> str:
        with self._sessions_lock:
            if self._idle_sessions:
                return self._idle_sessions.pop()
        return f"bg-{next(self._counter)}"

    def _release_session(self, session: str) -> None:
        with self._sessions_lock:
            self._idle_sessions.append(session)


def _timed_out(obs: Mapping[str, Any]) -> bool:
    """Whether a blocking command's observation came back because its timeout passed (the command still
    runs then: OpenHands marks it with exit code -1 and a suffix saying so)."""
    metadata = obs.get("extras", {}).get("metadata", {})
    return metadata.get("exit_code") == -1 and "timed out" in (metadata.get("suffix") or "")


class Files:
    """Files of the sandbox (``sbx.files``). Paths are the sandbox's; relative ones are below its
    working directory."""

    def __init__(self, sandbox: "Sandbox") -> None:
        self._sandbox = sandbox

    def _absolute(self, path: str) -> str:
        if not isinstance(path, str) or not path:
            raise ValueError("a path is a non-empty string")
        return path if path.startswith("/") else posixpath.join(self._sandbox.workspace_dir, path)

    def read(self, path: str, format: str = "text") -> Union[str, bytes]:
        """The file at ``path``: ``format="text"`` decodes it as UTF-8, ``"bytes"`` gives it byte for byte.
        Raises AgentRuntimeNotFoundError for a missing path, ValueError for a directory."""
        if format not in ("text", "bytes"):
            raise ValueError('format is "text" or "bytes"')
        data = self._sandbox._native.read_file(self._absolute(path))
        return data if format == "bytes" else data.decode("utf-8")

    def write(self, path: str, data: Union[str, bytes]) -> EntryInfo:
        """Writes ``data`` (text as UTF-8, or bytes) to ``path``, creating its directories; replaces a file."""
        full = self._absolute(path)
        directory, name = posixpath.split(full.rstrip("/"))
        if not name:
            raise ValueError(f"{path} names no file")
        content = data.encode("utf-8") if isinstance(data, str) else bytes(data)
        self._sandbox._native.upload_bytes(name, content, directory or "/")
        return self._entry(directory or "/", name)

    def list(self, path: str = ".") -> List[EntryInfo]:
        """The entries of the directory ``path`` (directories first); ``[]`` for a missing path."""
        full = self._absolute(path)
        raw = json.loads(self._sandbox._native.list_files(full, True))
        return [self._info(full, e) for e in raw]

    def exists(self, path: str) -> bool:
        """Whether ``path`` exists (a dangling symbolic link exists)."""
        full = self._absolute(path).rstrip("/") or "/"
        if full == "/":
            return True
        directory, name = posixpath.split(full)
        return self._find(directory or "/", name) is not None

    def remove(self, path: str) -> None:
        """Removes the file, link or directory tree at ``path`` (nothing to remove is no error)."""
        full = self._absolute(path)
        if full.rstrip("/") in ("", "/"):
            raise ValueError("refusing to remove /")
        result = self._sandbox.commands.run("rm -rf -- " + _native.bash_quote(full), timeout=0)
        if result.exit_code != 0:
            raise AgentRuntimeError(f"cannot remove {full}: {result.stdout}{result.stderr}".strip())

    def upload(self, local_path: Union[str, "os.PathLike[str]"], sandbox_dir: str) -> None:
        """Copies a file or directory of this machine into the directory ``sandbox_dir`` (a directory
        arrives as ``sandbox_dir/<its name>/...``), as ``ahctl cp`` does."""
        local = os.fspath(local_path)
        self._sandbox._native.copy_to(local, self._absolute(sandbox_dir), os.path.isdir(local))

    def download(self, path: str, local_dir: Union[str, "os.PathLike[str]"]) -> List[str]:
        """Copies the sandbox's file or directory ``path`` into the local directory ``local_dir``
        (created) as ``ahctl cp`` does; returns the local paths written."""
        return list(self._sandbox._native.copy_from_into(self._absolute(path), os.fspath(local_dir)))

    def _find(self, directory: str, name: str) -> Optional[EntryInfo]:
        """The entry `name` of `directory` (one detailed listing), None when there is none."""
        for e in json.loads(self._sandbox._native.list_files(directory, True)):
            if e["name"] == name:
                return self._info(directory, e)
        return None

    def _entry(self, directory: str, name: str) -> EntryInfo:
        info = self._find(directory, name)
        if info is None:
            raise AgentRuntimeError(f"{posixpath.join(directory, name)} was written but is not there")
        return info

    @staticmethod
    def _info(directory: str, e: Mapping[str, Any]) -> EntryInfo:
        return EntryInfo(
            name=e["name"],
            path=posixpath.join(directory, e["name"]),
            type=e["type"],
            size=int(e["size"]),
            mode=int(e["mode"]),
            modified_time=int(e["mtime"]),
        )


class Ports:
    """TCP ports of the sandbox reachable from this machine (``sbx.ports``)."""

    def __init__(self, sandbox: "Sandbox") -> None:
        self._sandbox = sandbox

    def publish(self, port: int, machine_port: int = 0, address: str = "127.0.0.1") -> str:
        """Publishes the sandbox's ``port`` on this machine's ``address``:``machine_port`` (0: a free
        one) while the sandbox runs; returns where it is reached, e.g. ``"127.0.0.1:41234"``."""
        return self._sandbox._native.publish_port(int(port), int(machine_port), address)

    def unpublish(self, port: int) -> None:
        """Stops publishing ``port``; its open connections close."""
        self._sandbox._native.unpublish_port(int(port))

    def list(self) -> Dict[int, str]:
        """The published ports: sandbox port → address on this machine."""
        return {p["port"]: p["address"] for p in json.loads(self._sandbox._native.published_ports())}


class Sandbox:
    """One sandbox. Make one with :meth:`create`, reach a running one with :meth:`connect`."""

    def __init__(self, native: Any) -> None:
        """Not for direct use: see :meth:`create` and :meth:`connect`."""
        self._native = native
        self._workspace: Optional[str] = None
        self._ended = False
        self.commands = Commands(self)
        self.files = Files(self)
        self.ports = Ports(self)

    # --- making and finding sandboxes -------------------------------------------------------------
    @classmethod
    def create(
        cls,
        runtime: Optional[str] = "sandbox",
        image: Optional[str] = None,
        envs: Optional[Mapping[str, str]] = None,
        workspace: Optional[Union[str, "os.PathLike[str]"]] = None,
        timeout: Optional[float] = None,
        config: ConfigArg = None,
        *,
        sandbox_id: Optional[str] = None,
        plugins: Optional[List[str]] = None,
        on_status: Optional[StatusCallback] = None,
    ) -> "Sandbox":
        """Starts a sandbox and waits until it is ready.

        ``runtime``: the backend (``"sandbox"``, ``"docker"``, ``"local"``, ...; ``None`` takes the
        configuration's). ``image``: an image reference (``sandbox.base_container_image``). ``envs``:
        variables of every command and the kernel. ``workspace``: a directory of this machine given to
        the sandbox as its workspace. ``timeout``: the default timeout of an action, seconds
        (``sandbox.timeout``). ``config``: a config.toml path or a dict of keys (``{"sandbox":
        {"network": "internet"}}``). ``sandbox_id``: the id to give it (default: a fresh random one).
        ``plugins``: the host's plugins (default: the backend's). ``on_status(status, detail)`` follows
        OpenHands' runtime statuses (``"STATUS$READY"`` ...), called on the calling thread.
        """
        workspace_dir = os.path.abspath(os.fspath(workspace)) if workspace is not None else None
        options = _options(
            config,
            **{
                "core.runtime": runtime,
                "sandbox.base_container_image": image,
                "core.workspace_base": workspace_dir,
                "sandbox.timeout": timeout,
            },
        )
        options.update(keep_alive=True, envs=dict(envs or {}), plugins=list(plugins or []))
        if sandbox_id is not None:
            options["session_id"] = sandbox_id
        native = _native.Runtime(json.dumps(options), on_status)
        sandbox = cls(native)
        try:
            native.connect()
        except BaseException:
            sandbox._end_quietly()
            raise
        return sandbox

    @classmethod
    def connect(cls, sandbox_id: str, config: ConfigArg = None) -> "Sandbox":
        """Reaches the running sandbox ``sandbox_id`` (made by :meth:`create` or ``ahctl start``, in any
        process). Raises AgentRuntimeNotFoundError when there is none."""
        options = _options(config)
        options.update(session_id=sandbox_id, attach=True)
        native = _native.Runtime(json.dumps(options), None)
        native.connect()
        return cls(native)

    @staticmethod
    def list(config: ConfigArg = None) -> List[SandboxInfo]:
        """The sandboxes running (kept alive) for this user's state directory, oldest first."""
        records = json.loads(_native.kept_alive_records(json.dumps(_options(config))))
        infos = [
            SandboxInfo(
                sandbox_id=r.get("session_id", ""),
                runtime=r.get("runtime", ""),
                url=r.get("url", ""),
                started_at=int(r.get("started_at", 0)),
                record=r,
            )
            for r in records
        ]
        return sorted(infos, key=lambda i: (i.started_at, i.sandbox_id))

    # --- this sandbox -------------------------------------------------------------------------------
    @property
    def sandbox_id(self) -> str:
        """The id that :meth:`connect`, ``ahctl -s ID`` and ``ahctl stop ID`` take."""
        return self._native.session_id

    @property
    def runtime(self) -> str:
        """The backend it runs on."""
        return self._native.runtime_name

    @property
    def runtime_id(self) -> str:
        """The backend's own id of the sandbox (e.g. its cgroup's name on the ``sandbox`` backend)."""
        return self._native.runtime_id

    @property
    def url(self) -> str:
        """The address of its host (OpenHands' action server URL)."""
        return self._native.url

    @property
    def http_url(self) -> str:
        """The host's HTTP address from this machine (``http://127.0.0.1:PORT``), for HTTP clients
        that cannot use :attr:`url` (a unix socket on the ``sandbox`` backend): there, the host's port
        is published on the machine's loopback for as long as the sandbox runs."""
        return self._native.http_url()

    @property
    def session_api_key(self) -> str:
        """The key its host wants in ``X-Session-API-Key``."""
        return self._native.session_api_key()

    @property
    def workspace_dir(self) -> str:
        """The working directory of the sandbox's host, as the sandbox sees it."""
        if self._workspace is None:
            self._workspace = self._native.workspace_dir()
        return self._workspace

    def execute(self, action: Mapping[str, Any], session: str = "") -> Dict[str, Any]:
        """Runs one OpenHands action (``{"action": "run", "args": {...}}``) and returns its observation:
        everything the typed calls do not cover."""
        return self._execute(action, session, None)

    def _execute(self, action: Mapping[str, Any], session: str, on_event: Any) -> Dict[str, Any]:
        if self._ended:
            raise AgentRuntimeDisconnectedError(f"sandbox {self.sandbox_id} was killed or closed here")
        return json.loads(self._native.execute(json.dumps(action), session, on_event))

    def run_code(self, code: str, timeout: Optional[float] = None) -> Execution:
        """Runs a cell in the sandbox's IPython kernel (state is kept between cells)."""
        action: Dict[str, Any] = {"action": "run_ipython", "args": {"code": code}}
        if timeout:
            action["timeout"] = float(timeout)
        obs = self.execute(action)
        _raise_for_error(obs)
        return Execution(text=_cell_text(obs.get("content", "")), images=list(obs.get("extras", {}).get("image_urls") or []), observation=obs)

    def browse(self, url: Optional[str] = None, *, actions: Optional[str] = None, timeout: Optional[float] = None) -> Dict[str, Any]:
        """Opens ``url`` in the sandbox's browser, or runs BrowserGym ``actions`` (e.g.
        ``'click("12")'``) on the page; returns the observation (``content`` is the page as text,
        ``extras`` has the URL, the accessibility tree and the screenshot)."""
        if (url is None) == (actions is None):
            raise ValueError("browse takes a url or actions")
        action: Dict[str, Any] = (
            {"action": "browse", "args": {"url": url}}
            if url is not None
            else {"action": "browse_interactive", "args": {"browser_actions": actions}}
        )
        if timeout:
            action["timeout"] = float(timeout)
        obs = self.execute(action)
        _raise_for_error(obs)
        return obs

    def edit(self, command: str, path: str, **arguments: Any) -> str:
        """OpenHands' file editor: ``command`` is ``view``, ``create`` (``file_text=``), ``str_replace``
        (``old_str=``, ``new_str=``), ``insert`` (``insert_line=``, ``new_str=``) or ``undo_edit``;
        returns what the editor answered. Raises AgentRuntimeError with the editor's message when it
        refused (e.g. ``old_str`` not found)."""
        args = {"command": command, "path": self.files._absolute(path), "impl_source": "oh_aci", **arguments}
        obs = self.execute({"action": "edit", "args": args})
        _raise_for_error(obs)
        content = obs.get("content", "")
        if content.startswith("ERROR:"):  # the editor refused; OpenHands shows the agent this text
            raise AgentRuntimeError(content[len("ERROR:") :].strip())
        return content

    def snapshot(self, name: str) -> str:
        """Keeps what the sandbox wrote over its image as the image ``name`` (``Sandbox.create(image=name)``
        starts from it); returns its digest."""
        return self._native.snapshot(name)

    def pause(self) -> None:
        """Freezes the sandbox (its processes stop, its memory is kept)."""
        self._native.pause()

    def resume(self) -> None:
        """Thaws a paused sandbox."""
        self._native.resume()

    def kill(self) -> None:
        """Ends the sandbox: nothing of it is left (its record, run directory, cgroups). Idempotent."""
        if self._ended:
            return
        self._ended = True
        self._native.kill()

    def close(self) -> None:
        """Lets go of the sandbox without ending it (:meth:`connect` reaches it again)."""
        if self._ended:
            return
        self._ended = True
        self._native.close()

    def _end_quietly(self) -> None:
        try:
            self.kill()
        except AgentRuntimeError:
            pass

    def __enter__(self) -> "Sandbox":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.kill()

    def __repr__(self) -> str:
        return f"Sandbox(sandbox_id={self.sandbox_id!r}, runtime={self.runtime!r})"


# The lines OpenHands' IPython observation adds for the agent after a cell's own output.
_CELL_TRAILERS = ("[Jupyter current working directory: ", "[Jupyter Python interpreter: ")
_NO_OUTPUT = "[Code executed successfully with no output]"


def _cell_text(content: str) -> str:
    """A cell's own output: the observation's text without the lines added for the agent."""
    lines = content.split("\n")
    while lines and lines[-1].startswith(_CELL_TRAILERS) and lines[-1].endswith("]"):
        lines.pop()
    text = "\n".join(lines)
    return "" if text.strip() == _NO_OUTPUT else text


def _raise_for_error(obs: Mapping[str, Any]) -> None:
    if obs.get("observation") == "error":
        raise AgentRuntimeError(obs.get("content", "the action failed"))


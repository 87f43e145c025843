"""``AsyncSandbox``: :class:`actionhost.Sandbox` on asyncio, with the same calls as coroutines.

Each call runs the synchronous one in a worker thread (``asyncio.to_thread``): the client library
releases the GIL while it waits, so many sandboxes are driven at once, and there is one implementation
of every behaviour. Output callbacks may be plain functions or coroutine functions; either is called on
the event loop's thread, in the order the output was printed.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import os
from typing import Any, Awaitable, Callable, Dict, List, Mapping, Optional, TypeVar, Union

from .sandbox import (
    DEFAULT_COMMAND_TIMEOUT,
    CommandHandle,
    CommandResult,
    ConfigArg,
    EntryInfo,
    Execution,
    Sandbox,
    SandboxInfo,
)

T = TypeVar("T")
AsyncOutputCallback = Callable[[str], Union[Any, Awaitable[Any]]]


async def _in_thread(fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    # asyncio.to_thread is Python 3.9's; the executor form keeps the context the same way.
    loop = asyncio.get_running_loop()
    return await loop.run_in_executor(None, functools.partial(fn, *args, **kwargs))


class _LoopCallback:
    """A callback of the caller's, called on its event loop's thread from the library's thread, in order.
    The command's call returns only after every piece was handed to the loop; a coroutine callback is
    awaited there before the next piece."""

    def __init__(self, loop: asyncio.AbstractEventLoop, fn: Optional[AsyncOutputCallback]) -> None:
        self._loop = loop
        self._fn = fn
        self._queue: "asyncio.Queue[Optional[str]]" = asyncio.Queue()
        self._task = loop.create_task(self._drain()) if fn is not None else None

    def __call__(self, chunk: str) -> None:
        self._loop.call_soon_threadsafe(self._queue.put_nowait, chunk)

    async def _drain(self) -> None:
        while True:
            chunk = await self._queue.get()
            if chunk is None:
                return
            result = self._fn(chunk)  # type: ignore[misc]
            if inspect.isawaitable(result):
                await result

    @property
    def sync(self) -> Optional[Callable[[str], None]]:
        return self if self._fn is not None else None

    async def finish(self) -> None:
        if self._task is None:
            return
        self._queue.put_nowait(None)
        await self._task


class AsyncCommandHandle:
    """A background command of an :class:`AsyncSandbox`."""

    def __init__(self, handle: CommandHandle, callbacks: List[_LoopCallback]) -> None:
        self._handle = handle
        self._callbacks = callbacks

    @property
    def finished(self) -> bool:
        return self._handle.finished

    async def wait(self, timeout: Optional[float] = None) -> CommandResult:
        """As :meth:`CommandHandle.wait`."""
        try:
            return await _in_thread(self._handle.wait, timeout)
        finally:
            if self._handle.finished:
                for cb in self._callbacks:
                    await cb.finish()

    async def kill(self) -> bool:
        """As :meth:`CommandHandle.kill`."""
        return await _in_thread(self._handle.kill)


class AsyncCommands:
    """As :class:`actionhost.sandbox.Commands`, awaited."""

    def __init__(self, sandbox: Sandbox) -> None:
        self._sandbox = sandbox

    async def run(
        self,
        cmd: str,
        on_stdout: Optional[AsyncOutputCallback] = None,
        on_stderr: Optional[AsyncOutputCallback] = None,
        timeout: Optional[float] = DEFAULT_COMMAND_TIMEOUT,
        cwd: Optional[str] = None,
        envs: Optional[Mapping[str, str]] = None,
        background: bool = False,
    ) -> Any:
        """As :meth:`Commands.run`: a :class:`CommandResult`, or an :class:`AsyncCommandHandle`."""
        loop = asyncio.get_running_loop()
        out, err = _LoopCallback(loop, on_stdout), _LoopCallback(loop, on_stderr)
        if background:
            handle = await _in_thread(self._sandbox.commands.run, cmd, out.sync, err.sync, timeout, cwd, envs, True)
            return AsyncCommandHandle(handle, [out, err])
        try:
            return await _in_thread(self._sandbox.commands.run, cmd, out.sync, err.sync, timeout, cwd, envs, False)
        finally:
            await out.finish()
            await err.finish()


class AsyncFiles:
    """As :class:`actionhost.sandbox.Files`, awaited."""

    def __init__(self, sandbox: Sandbox) -> None:
        self._files = sandbox.files

    async def read(self, path: str, format: str = "text") -> Union[str, bytes]:
        return await _in_thread(self._files.read, path, format)

    async def write(self, path: str, data: Union[str, bytes]) -> EntryInfo:
        return await _in_thread(self._files.write, path, data)

    async def list(self, path: str = ".") -> List[EntryInfo]:
        return await _in_thread(self._files.list, path)

    async def exists(self, path: str) -> bool:
        return await _in_thread(self._files.exists, path)

    async def remove(self, path: str) -> None:
        await _in_thread(self._files.remove, path)

    async def upload(self, local_path: Union[str, "os.PathLike[str]"], sandbox_dir: str) -> None:
        await _in_thread(self._files.upload, local_path, sandbox_dir)

    async def download(self, path: str, local_dir: Union[str, "os.PathLike[str]"]) -> List[str]:
        return await _in_thread(self._files.download, path, local_dir)


class AsyncPorts:
    """As :class:`actionhost.sandbox.Ports`, awaited."""

    def __init__(self, sandbox: Sandbox) -> None:
        self._ports = sandbox.ports

    async def publish(self, port: int, machine_port: int = 0, address: str = "127.0.0.1") -> str:
        return await _in_thread(self._ports.publish, port, machine_port, address)

    async def unpublish(self, port: int) -> None:
        await _in_thread(self._ports.unpublish, port)

    async def list(self) -> Dict[int, str]:
        return await _in_thread(self._ports.list)


class AsyncSandbox:
    """:class:`actionhost.Sandbox` with every call a coroutine; ``async with`` ends it on exit."""

    def __init__(self, sandbox: Sandbox) -> None:
        """Not for direct use: see :meth:`create` and :meth:`connect`."""
        self._sandbox = sandbox
        self.commands = AsyncCommands(sandbox)
        self.files = AsyncFiles(sandbox)
        self.ports = AsyncPorts(sandbox)

    @classmethod
    async def create(cls, *args: Any, **kwargs: Any) -> "AsyncSandbox":
        """As :meth:`Sandbox.create` (same arguments)."""
        return cls(await _in_thread(Sandbox.create, *args, **kwargs))

    @classmethod
    async def connect(cls, sandbox_id: str, config: ConfigArg = None) -> "AsyncSandbox":
        """As :meth:`Sandbox.connect`."""
        return cls(await _in_thread(Sandbox.connect, sandbox_id, config))

    @staticmethod
    async def list(config: ConfigArg = None) -> List[SandboxInfo]:
        """As :meth:`Sandbox.list`."""
        return await _in_thread(Sandbox.list, config)

    @property
    def sandbox_id(self) -> str:
        return self._sandbox.sandbox_id

    @property
    def runtime(self) -> str:
        return self._sandbox.runtime

    @property
    def url(self) -> str:
        return self._sandbox.url

    @property
    def sync(self) -> Sandbox:
        """The same sandbox, for synchronous calls."""
        return self._sandbox

    async def execute(self, action: Mapping[str, Any], session: str = "") -> Dict[str, Any]:
        return await _in_thread(self._sandbox.execute, action, session)

    async def run_code(self, code: str, timeout: Optional[float] = None) -> Execution:
        return await _in_thread(self._sandbox.run_code, code, timeout)

    async def browse(self, url: Optional[str] = None, *, actions: Optional[str] = None, timeout: Optional[float] = None) -> Dict[str, Any]:
        return await _in_thread(self._sandbox.browse, url, actions=actions, timeout=timeout)

    async def edit(self, command: str, path: str, **arguments: Any) -> str:
        return await _in_thread(self._sandbox.edit, command, path, **arguments)

    async def snapshot(self, name: str) -> str:
        return await _in_thread(self._sandbox.snapshot, name)

    async def pause(self) -> None:
        await _in_thread(self._sandbox.pause)

    async def resume(self) -> None:
        await _in_thread(self._sandbox.resume)

    async def kill(self) -> None:
        await _in_thread(self._sandbox.kill)

    async def close(self) -> None:
        await _in_thread(self._sandbox.close)

    async def __aenter__(self) -> "AsyncSandbox":
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.kill()

    def __repr__(self) -> str:
        return f"AsyncSandbox(sandbox_id={self.sandbox_id!r}, runtime={self.runtime!r})"

"""actionhost.AsyncSandbox on asyncio against real sandboxes: the same API as Sandbox, awaited."""

from __future__ import annotations

import asyncio
import time

import pytest

from actionhost import AgentRuntimeNotFoundError, AgentRuntimeTimeoutError, AsyncSandbox, CommandResult, Sandbox


def run(coro):
    return asyncio.run(asyncio.wait_for(coro, timeout=300))


def test_the_api_awaited(config, tmp_path):
    async def main():
        async with await AsyncSandbox.create(config=config, envs={"WHO": "async"}) as sbx:
            assert [i.sandbox_id for i in await AsyncSandbox.list(config)] == [sbx.sandbox_id]
            assert await sbx.commands.run('echo "$WHO"; echo e >&2; exit 3') == CommandResult("async\n", "e\n", 3)
            info = await sbx.files.write("/tmp/a/b.bin", bytes(range(256)))
            assert info.size == 256
            assert await sbx.files.read("/tmp/a/b.bin", format="bytes") == bytes(range(256))
            assert [e.name for e in await sbx.files.list("/tmp/a")] == ["b.bin"]
            assert await sbx.files.exists("/tmp/a/b.bin")
            await sbx.files.remove("/tmp/a")
            assert not await sbx.files.exists("/tmp/a")
            (tmp_path / "up").mkdir()
            (tmp_path / "up" / "f.txt").write_text("up")
            await sbx.files.upload(tmp_path / "up", "/tmp/in")
            assert await sbx.files.download("/tmp/in/up", tmp_path / "down")
            assert (tmp_path / "down" / "up" / "f.txt").read_text() == "up"
            assert (await sbx.run_code("print(6 * 7)")).text == "42"
            await sbx.edit("create", "/tmp/x.txt", file_text="x\n")
            assert (await sbx.execute({"action": "read", "args": {"path": "/tmp/x.txt"}}))["content"] == "x\n"
            again = await AsyncSandbox.connect(sbx.sandbox_id, config)
            assert (await again.commands.run("echo again")).stdout == "again\n"
            await again.close()
        assert await AsyncSandbox.list(config) == []
        with pytest.raises(AgentRuntimeNotFoundError):
            await AsyncSandbox.connect(sbx.sandbox_id, config)

    run(main())


def test_callbacks_run_on_the_loop_in_order_sync_or_async(config):
    async def main():
        loop_thread = None
        seen = []

        async def on_stdout(chunk):
            assert asyncio.get_running_loop() is not None
            await asyncio.sleep(0)
            seen.append(("out", chunk, time.monotonic()))

        def on_stderr(chunk):
            nonlocal loop_thread
            loop_thread = asyncio.get_running_loop()
            seen.append(("err", chunk, time.monotonic()))

        async with await AsyncSandbox.create(config=config) as sbx:
            start = time.monotonic()
            r = await sbx.commands.run("for i in 1 2 3; do echo $i; done; echo warn >&2; sleep 1.5; echo end", on_stdout=on_stdout, on_stderr=on_stderr)
            ended = time.monotonic()
            assert r.stdout == "1\n2\n3\nend\n"
            assert "".join(c for k, c, _ in seen if k == "out") == r.stdout, "every piece, in order, before run() returned"
            assert "".join(c for k, c, _ in seen if k == "err") == "warn\n"
            assert loop_thread is not None
            assert min(t for k, c, t in seen if "1" in c) < ended - 1.0
            assert start < ended

    run(main())


def test_background_commands_and_timeouts(config):
    async def main():
        async with await AsyncSandbox.create(config=config) as sbx:
            seen = []
            handle = await sbx.commands.run("echo a; sleep 0.5; echo b", background=True, on_stdout=seen.append)
            assert (await sbx.commands.run("echo meanwhile")).stdout == "meanwhile\n"
            assert (await handle.wait(timeout=30)).stdout == "a\nb\n"
            assert "".join(seen) == "a\nb\n"
            long = await sbx.commands.run("sleep 300", background=True, timeout=0)
            assert await long.kill() is True
            assert (await long.wait(timeout=30)).exit_code != 0
            with pytest.raises(AgentRuntimeTimeoutError):
                await sbx.commands.run("sleep 30", timeout=1)

    run(main())


def test_fifty_sandboxes_from_asyncio(config):
    async def one(i):
        async with await AsyncSandbox.create(config=config) as sbx:
            return (await sbx.commands.run(f"echo {i}")).stdout

    async def main():
        outs = await asyncio.gather(*(one(i) for i in range(50)))
        assert sorted(outs) == sorted(f"{i}\n" for i in range(50))
        assert await AsyncSandbox.list(config) == []

    run(main())
    assert Sandbox.list(config) == []

"""actionhost.Sandbox against real sandboxes of the `sandbox` backend: every call of the API."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

import actionhost
from actionhost import (
    AgentRuntimeDisconnectedError,
    AgentRuntimeError,
    AgentRuntimeNotFoundError,
    AgentRuntimeTimeoutError,
    ConfigurationError,
    Sandbox,
)
from conftest import make_busybox_layout


# --- commands -------------------------------------------------------------------------------------
def test_a_command_gives_stdout_stderr_and_exit_code_apart(sbx):
    r = sbx.commands.run("echo out; echo err >&2; printf 'no newline'")
    assert (r.stdout, r.stderr, r.exit_code) == ("out\nno newline", "err\n", 0)
    assert r.error is None
    failed = sbx.commands.run("echo bad >&2; false")
    assert (failed.exit_code, failed.stderr, failed.error) == (1, "bad\n", "bad\n")


def test_exit_codes_come_back_as_the_command_gave_them(sbx):
    for code in (0, 1, 2, 7, 127, 255):
        assert sbx.commands.run(f"(exit {code})").exit_code == code
    assert sbx.commands.run("no-such-command-here").exit_code == 127
    # `exit` of the session's shell itself: the code, and nothing added to the output.
    assert sbx.commands.run("echo bye; exit 7") == actionhost.CommandResult("bye\n", "", 7)
    assert sbx.commands.run("echo back").stdout == "back\n"


def test_commands_run_without_a_terminal_and_never_prompt(sbx):
    r = sbx.commands.run("test -t 0 || echo no-tty-in; test -t 1 || echo no-tty-out; cat; echo after-cat")
    assert r.stdout == "no-tty-in\nno-tty-out\nafter-cat\n"
    sbx.commands.run("touch /tmp/protected && chmod 444 /tmp/protected")
    start = time.monotonic()
    assert sbx.commands.run("rm /tmp/protected; echo $?", timeout=10).exit_code == 0
    assert time.monotonic() - start < 5 and not sbx.files.exists("/tmp/protected")
    crlf = sbx.commands.run("printf 'a\\r\\nb\\rc\\n'")
    assert crlf.stdout == "a\r\nb\rc\n", "bytes arrive as printed: no terminal rewrites them"


def test_output_reaches_callbacks_while_the_command_still_runs(sbx):
    seen = []
    start = time.monotonic()
    r = sbx.commands.run(
        "echo first; echo e1 >&2; sleep 1.5; echo second",
        on_stdout=lambda c: seen.append(("out", c, time.monotonic() - start)),
        on_stderr=lambda c: seen.append(("err", c, time.monotonic() - start)),
    )
    ended = time.monotonic() - start
    assert r.stdout == "first\nsecond\n" and r.stderr == "e1\n"
    assert "".join(c for k, c, _ in seen if k == "out") == r.stdout
    assert "".join(c for k, c, _ in seen if k == "err") == r.stderr
    first = next(t for k, c, t in seen if "first" in c)
    assert first < ended - 1.0, f"the first line came at {first:.2f}s of {ended:.2f}s"
    assert [c for k, c, _ in seen if k == "out"][-1].endswith("second\n")


def test_large_output_is_whole_not_cut_as_for_an_agent(sbx):
    r = sbx.commands.run("seq 1 40000")
    assert r.stdout == "".join(f"{i}\n" for i in range(1, 40001))


def test_cwd_and_envs_apply_to_their_command_only(sbx):
    sbx.commands.run("mkdir -p /tmp/here")
    r = sbx.commands.run('pwd; printf "%s|" "$A" "$B"', cwd="/tmp/here", envs={"A": "one two", "B": "$HOME 'q' \"d\""})
    assert r.stdout == "/tmp/here\none two|$HOME 'q' \"d\"|"
    after = sbx.commands.run('pwd; echo "[$A]"')
    assert after.stdout.splitlines()[1] == "[]"
    assert after.stdout.splitlines()[0] != "/tmp/here"
    with pytest.raises(ValueError):
        sbx.commands.run("true", envs={"NOT-A-NAME": "x"})
    with pytest.raises(ValueError):
        sbx.commands.run("   ")


def test_the_shell_session_keeps_state_between_foreground_commands(sbx):
    sbx.commands.run("cd /tmp && export KEPT=yes")
    assert sbx.commands.run('echo "$PWD $KEPT"').stdout == "/tmp yes\n"


def test_create_envs_are_seen_by_every_command(made):
    s = made.create(envs={"GREETING": "hi there"})
    assert s.commands.run('echo "$GREETING"').stdout == "hi there\n"


def test_a_timeout_interrupts_the_command_and_raises(sbx):
    start = time.monotonic()
    with pytest.raises(AgentRuntimeTimeoutError):
        sbx.commands.run("echo started; sleep 30; echo never", timeout=1)
    assert time.monotonic() - start < 15
    # The command was interrupted: the session is free for the next one at once.
    assert sbx.commands.run("echo next", timeout=10).stdout == "next\n"


def test_a_background_command_runs_beside_the_foreground_and_is_waited_for(sbx):
    seen = []
    handle = sbx.commands.run("echo bg-start; sleep 1; echo bg-end", background=True, on_stdout=seen.append)
    start = time.monotonic()
    assert sbx.commands.run("echo fg").stdout == "fg\n"
    assert time.monotonic() - start < 0.9, "the foreground command waited for the background one"
    r = handle.wait(timeout=30)
    assert (r.stdout, r.exit_code) == ("bg-start\nbg-end\n", 0)
    assert "".join(seen) == r.stdout
    assert handle.finished and handle.kill() is False


def test_a_background_command_is_killed(sbx):
    handle = sbx.commands.run("echo up; sleep 300", background=True, timeout=0)
    time.sleep(0.5)
    start = time.monotonic()
    assert handle.kill() is True
    r = handle.wait(timeout=20)
    assert time.monotonic() - start < 15
    assert r.exit_code != 0
    with pytest.raises(AgentRuntimeTimeoutError):
        sbx.commands.run("sleep 30", background=True).wait(timeout=0.2)


def test_many_background_commands_reuse_their_sessions(sbx):
    for round_ in range(3):
        handles = [sbx.commands.run(f"echo {round_}-{i}", background=True) for i in range(4)]
        assert sorted(h.wait(timeout=30).stdout for h in handles) == sorted(f"{round_}-{i}\n" for i in range(4))
    assert len(sbx.commands._idle_sessions) <= 4


# --- files ----------------------------------------------------------------------------------------
def test_files_are_written_and_read_byte_for_byte(sbx):
    every_byte = bytes(range(256)) * 64
    info = sbx.files.write("/tmp/data/every.bin", every_byte)
    assert (info.type, info.size, info.path) == ("file", len(every_byte), "/tmp/data/every.bin")
    assert sbx.files.read("/tmp/data/every.bin", format="bytes") == every_byte
    big = os.urandom(3 << 20)
    sbx.files.write("/tmp/data/big.bin", big)
    assert sbx.files.read("/tmp/data/big.bin", format="bytes") == big
    assert sbx.commands.run("sha256sum /tmp/data/big.bin").stdout.split()[0] == __import__("hashlib").sha256(big).hexdigest()
    text = "zwei Zeilen: äöü ✓\n\r\nend"
    sbx.files.write("notes/t.txt", text)  # relative: below the workspace
    assert sbx.files.read("notes/t.txt") == text
    assert sbx.commands.run(f"cat {sbx.workspace_dir}/notes/t.txt").stdout.replace("\r\n", "\n") != ""
    sbx.files.write("/tmp/data/every.bin", b"replaced")
    assert sbx.files.read("/tmp/data/every.bin", format="bytes") == b"replaced"


def test_reading_what_is_not_a_file_fails_clearly(sbx):
    with pytest.raises(AgentRuntimeNotFoundError):
        sbx.files.read("/tmp/no/such/file")
    with pytest.raises(ValueError):
        sbx.files.read("/tmp")
    with pytest.raises(ValueError):
        sbx.files.read("/etc/hostname", format="json")


def test_list_describes_entries_and_links_without_following_them(sbx):
    sbx.commands.run(
        "mkdir -p /tmp/l/sub && printf 12345 > /tmp/l/five && chmod 751 /tmp/l/five && ln -s /etc /tmp/l/link "
        "&& ln -s /nowhere /tmp/l/dangling && touch -d @1700000000 /tmp/l/five"
    )
    entries = {e.name: e for e in sbx.files.list("/tmp/l")}
    assert set(entries) == {"sub", "five", "link", "dangling"}
    assert entries["sub"].type == "dir"
    assert (entries["five"].type, entries["five"].size, entries["five"].mode, entries["five"].modified_time) == ("file", 5, 0o751, 1700000000)
    assert entries["link"].type == "symlink" and entries["dangling"].type == "symlink"
    assert entries["five"].path == "/tmp/l/five"
    assert sbx.files.list("/tmp/l/missing") == []
    assert sbx.files.exists("/tmp/l/five") and sbx.files.exists("/tmp/l/dangling") and sbx.files.exists("/")
    assert not sbx.files.exists("/tmp/l/missing")


def test_remove_takes_files_links_and_trees(sbx):
    sbx.commands.run("mkdir -p '/tmp/r/a b/c' && touch '/tmp/r/a b/c/f' && ln -s /etc /tmp/r/ln")
    sbx.files.remove("/tmp/r/ln")
    assert sbx.commands.run("test -d /etc && echo etc-still-there").stdout == "etc-still-there\n"
    sbx.files.remove("/tmp/r/a b")
    assert not sbx.files.exists("/tmp/r/a b")
    sbx.files.remove("/tmp/r/never-was")
    with pytest.raises(ValueError):
        sbx.files.remove("/")


def test_directories_are_uploaded_and_downloaded(sbx, tmp_path):
    src = tmp_path / "proj"
    (src / "pkg").mkdir(parents=True)
    (src / "pkg" / "mod.py").write_text("print('hi')\n")
    (src / "data.bin").write_bytes(bytes(range(256)))
    sbx.files.upload(src, "/tmp/up")
    assert sbx.files.read("/tmp/up/proj/pkg/mod.py") == "print('hi')\n"
    assert sbx.files.read("/tmp/up/proj/data.bin", format="bytes") == bytes(range(256))
    out = tmp_path / "back"
    written = sbx.files.download("/tmp/up/proj", out)
    assert (out / "proj" / "pkg" / "mod.py").read_text() == "print('hi')\n"
    assert (out / "proj" / "data.bin").read_bytes() == bytes(range(256))
    assert str(out / "proj" / "data.bin") in written
    one = tmp_path / "single.txt"
    one.write_text("alone")
    sbx.files.upload(one, "/tmp/up")
    assert sbx.files.read("/tmp/up/single.txt") == "alone"



def test_uploads_and_downloads_keep_modes_links_and_times(sbx, tmp_path):
    import os
    src = tmp_path / "kept"
    src.mkdir()
    (src / "run.sh").write_text("#!/bin/sh\necho ran\n")
    os.chmod(src / "run.sh", 0o755)
    os.utime(src / "run.sh", (1500000000, 1500000000))
    os.symlink("run.sh", src / "alias")
    sbx.files.upload(src, "/tmp/kept-up")
    r = sbx.commands.run("cd /tmp/kept-up/kept && ./run.sh && readlink alias && stat -c %Y run.sh")
    assert r.stdout == "ran\nrun.sh\n1500000000\n"
    out = tmp_path / "back"
    sbx.files.download("/tmp/kept-up/kept", out)
    assert os.stat(out / "kept" / "run.sh").st_mode & 0o777 == 0o755
    assert int(os.stat(out / "kept" / "run.sh").st_mtime) == 1500000000
    assert os.readlink(out / "kept" / "alias") == "run.sh"

# --- the other actions ------------------------------------------------------------------------------
def test_run_code_keeps_state_in_the_kernel(sbx):
    assert sbx.run_code("x = 21").text == ""
    assert sbx.run_code("print(x * 2)").text == "42"
    assert "Jupyter" not in sbx.run_code("print('a\\nb')").text
    failed = sbx.run_code("1/0")
    assert "ZeroDivisionError" in failed.text


def test_edit_creates_replaces_and_refuses_clearly(sbx):
    sbx.edit("create", "/tmp/e.py", file_text="a = 1\nb = 2\n")
    sbx.edit("str_replace", "/tmp/e.py", old_str="b = 2", new_str="b = 3")
    assert sbx.files.read("/tmp/e.py") == "a = 1\nb = 3\n"
    assert "b = 3" in sbx.edit("view", "/tmp/e.py")
    with pytest.raises(AgentRuntimeError, match="did not appear"):
        sbx.edit("str_replace", "/tmp/e.py", old_str="zzz", new_str="y")


def test_browse_opens_a_page_served_in_the_sandbox(sbx):
    sbx.files.write("/tmp/site/index.html", "<html><title>T</title><body><h1>served from the sandbox</h1></body></html>")
    server = sbx.commands.run("cd /tmp/site && /usr/bin/python3 -m http.server 8765 --bind 127.0.0.1", background=True, timeout=0)
    try:
        for _ in range(50):
            if sbx.commands.run("exec 3<>/dev/tcp/127.0.0.1/8765 && echo up", timeout=5).stdout == "up\n":
                break
            time.sleep(0.1)
        obs = sbx.browse("http://127.0.0.1:8765/")
        assert "served from the sandbox" in obs["content"]
        with pytest.raises(ValueError):
            sbx.browse()
    finally:
        server.kill()


def test_a_published_port_is_reached_from_this_machine(sbx):
    sbx.files.write("/tmp/pub/hello.txt", "published")
    server = sbx.commands.run("cd /tmp/pub && /usr/bin/python3 -m http.server 8080 --bind 127.0.0.1", background=True, timeout=0)
    try:
        address = sbx.ports.publish(8080)
        assert address.startswith("127.0.0.1:")
        assert sbx.ports.list()[8080] == address
        body = None
        for _ in range(50):
            try:
                body = urllib.request.urlopen(f"http://{address}/hello.txt", timeout=5).read()
                break
            except OSError:
                time.sleep(0.1)
        assert body == b"published"
        with pytest.raises(ValueError):
            sbx.ports.publish(8080)
        sbx.ports.unpublish(8080)
        assert 8080 not in sbx.ports.list()
    finally:
        server.kill()


def test_an_image_is_started_and_a_snapshot_starts_again(made, tmp_path):
    ref = make_busybox_layout(tmp_path / "layout")
    s = made.create(image=ref, config={**made.config, "core": {**made.config["core"], "run_as_openhands": False}})
    assert s.commands.run("cat /etc/os-release").stdout == "ID=busybox-test\n"
    s.commands.run("echo installed > /etc/tool.conf")
    digest = s.snapshot("with-tool")
    assert digest.startswith("sha256:")
    forked = made.create(image="with-tool")  # as the sandbox's user: it reads what root wrote
    assert forked.commands.run("cat /etc/tool.conf").stdout == "installed\n"
    with pytest.raises(AgentRuntimeError):
        made.create().snapshot("no-image-no-snapshot")


# --- sandboxes ------------------------------------------------------------------------------------
def test_list_connect_and_kill(made, config):
    s = made.create()
    assert [i.sandbox_id for i in Sandbox.list(config)] == [s.sandbox_id]
    assert Sandbox.list(config)[0].runtime == "sandbox"
    again = Sandbox.connect(s.sandbox_id, config)
    assert again.commands.run("echo via connect").stdout == "via connect\n"
    again.close()  # lets go only
    assert s.commands.run("echo still").stdout == "still\n"
    s.kill()
    s.kill()  # idempotent
    assert Sandbox.list(config) == []
    with pytest.raises(AgentRuntimeNotFoundError):
        Sandbox.connect(s.sandbox_id, config)


def test_a_sandbox_is_reached_from_another_process(made, config):
    s = made.create(sandbox_id="py-cross-process")
    code = (
        "import sys, json; from actionhost import Sandbox; "
        "s = Sandbox.connect('py-cross-process', json.loads(sys.argv[1])); "
        "print(s.commands.run('echo from $((40+2))').stdout, end=''); s.close()"
    )
    import json as _json

    out = subprocess.run([sys.executable, "-c", code, _json.dumps(config)], capture_output=True, text=True, timeout=60, env=os.environ)
    assert out.returncode == 0, out.stderr
    assert out.stdout == "from 42\n"
    assert s.sandbox_id == "py-cross-process"


def test_the_context_manager_and_kill_leave_nothing(config):
    with Sandbox.create(config=config) as s:
        run_dir = s.url[len("unix://") :].rsplit("/", 1)[0] if s.url.startswith("unix://") else None
        cgroups = [f"/sys/fs/cgroup/{c}/actionhost/{s.runtime_id}" for c in ("pids", "memory", "freezer")]
        present = [c for c in cgroups if os.path.exists(c)]
        assert s.commands.run("sleep 1000 >/dev/null 2>&1 & echo started").stdout == "started\n"
    assert Sandbox.list(config) == []
    if run_dir:
        assert not os.path.exists(run_dir), run_dir
    for c in present:
        assert not os.path.exists(c), c
    with pytest.raises(AgentRuntimeDisconnectedError):
        s.commands.run("echo after kill")


def test_a_sandbox_killed_mid_command_raises_the_disconnected_error(made, config):
    s = made.create()
    killer = threading.Timer(1.0, lambda: Sandbox.connect(s.sandbox_id, config).kill())
    killer.start()
    start = time.monotonic()
    try:
        with pytest.raises(AgentRuntimeDisconnectedError):
            s.commands.run("echo running; sleep 60", timeout=0)
    finally:
        killer.join()
    assert time.monotonic() - start < 30


def test_errors_are_named_after_openhands_and_carry_the_message(config):
    with pytest.raises(AgentRuntimeNotFoundError, match="no sandbox with id nope"):
        Sandbox.connect("nope", config)
    with pytest.raises(ConfigurationError, match="no_such_key"):
        Sandbox.create(config={**config, "sandbox": {"no_such_key": 1}})
    with pytest.raises(AgentRuntimeNotFoundError):
        Sandbox.create(runtime="no-such-runtime", config=config)
    with pytest.raises(TypeError):
        Sandbox.create(config=42)
    assert issubclass(AgentRuntimeDisconnectedError, actionhost.AgentRuntimeUnavailableError)
    assert Sandbox.list(config) == []


def test_fifty_sandboxes_from_threads(config):
    def one(i):
        s = Sandbox.create(config=config)
        try:
            return s.commands.run(f"echo {i}").stdout
        finally:
            s.kill()

    with ThreadPoolExecutor(max_workers=10) as pool:
        assert sorted(pool.map(one, range(50))) == sorted(f"{i}\n" for i in range(50))
    assert Sandbox.list(config) == []


def test_the_package_is_typed_and_documented():
    package = Path(actionhost.__file__).parent
    assert (package / "py.typed").exists()
    for name in actionhost.__all__:
        obj = getattr(actionhost, name)
        if callable(obj):
            assert obj.__doc__, name
    for cls in (Sandbox, actionhost.Commands, actionhost.Files, actionhost.Ports, actionhost.AsyncSandbox):
        for attr, value in vars(cls).items():
            if not attr.startswith("_") and callable(value):
                assert value.__doc__ or cls is actionhost.AsyncSandbox, f"{cls.__name__}.{attr}"

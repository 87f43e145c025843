"""Tests of actionhost.openhands.ActionHostRuntime, the OpenHands runtime class, against real sandboxes of
the `sandbox` backend.

OpenHands itself is not installed here: tests/python/openhands_stub holds a test stand-in of exactly the
OpenHands members docs/openhands-runtime.md names (it says so in every file). Run with

    PYTHONPATH=build/python:tests/python/openhands_stub /usr/bin/python3 -m pytest -q tests/python/test_openhands_runtime.py

Every test keeps its sandboxes in a state directory of its own (core.state_dir, a tmp_path) and ends
them in a finally; every wait is bounded.
"""

from __future__ import annotations

import ast
import asyncio
import enum
import importlib
import inspect
import os
import re
import threading
import time
import uuid
from pathlib import Path

import pytest

import actionhost
import openhands
from openhands.core import exceptions as oh_exceptions
from openhands.core.config import ExtendedConfig, OpenHandsConfig, SandboxConfig
from openhands.runtime import get_runtime_cls
from openhands.runtime.plugins import PluginRequirement
from openhands.runtime.runtime_status import RuntimeStatus

from actionhost import openhands as ah_openhands
from actionhost.openhands import ActionHostRuntime

REPO = Path(__file__).resolve().parents[2]
DOC = REPO / "docs" / "openhands-runtime.md"
STUB = Path(__file__).resolve().parent / "openhands_stub"
MODULE_FILE = Path(ah_openhands.__file__)

CONNECT_LIMIT = 120.0  # seconds a connect may take before the test fails
HTTP_LIMIT = 30.0


def test_openhands_is_the_stand_in():
    # These tests are about the class; they must not silently run against something else.
    assert Path(openhands.__file__).resolve().is_relative_to(STUB.resolve())
    assert "TEST STAND-IN, NOT OPENHANDS" in Path(openhands.__file__).read_text()


# --- helpers -----------------------------------------------------------------------------------------


def run_bounded(fn, limit: float):
    """Runs fn() in a thread; fails the test when it has not returned within `limit` seconds."""
    box: dict = {}

    def body():
        try:
            box["result"] = fn()
        except BaseException as e:  # handed to the test
            box["error"] = e

    t = threading.Thread(target=body, daemon=True)
    t.start()
    t.join(limit)
    if t.is_alive():
        pytest.fail(f"did not return within {limit} s")
    if "error" in box:
        raise box["error"]
    return box.get("result")


def connect(rt, limit: float = CONNECT_LIMIT):
    run_bounded(lambda: asyncio.run(rt.connect()), limit)


class Harness:
    """Makes runtimes over a private state directory and ends whatever they left, whatever happens."""

    def __init__(self, tmp_path: Path):
        self.state = tmp_path / "state"
        self.state_config = {"core": {"state_dir": str(self.state)}}
        self.runtimes = []
        self.sids = set()

    def config(self, sandbox=None, extended=None, **core):
        table = {"core": {"state_dir": str(self.state)}}
        table.update(extended or {})
        return OpenHandsConfig(sandbox=sandbox or SandboxConfig(), extended=ExtendedConfig({"actionhost": table}), **core)

    def runtime(self, config=None, sid=None, **kwargs):
        sid = sid or "oh-" + uuid.uuid4().hex[:12]
        statuses = []
        lock = threading.Lock()

        def status_callback(level, status, msg):
            with lock:
                statuses.append((level, status, msg))

        rt = ActionHostRuntime(config or self.config(), None, None, sid=sid, status_callback=status_callback, **kwargs)
        rt.statuses = statuses  # for the test
        self.runtimes.append(rt)
        self.sids.add(sid)
        return rt

    def listed(self):
        return [i.sandbox_id for i in actionhost.Sandbox.list(config=self.state_config)]

    def cleanup(self):
        for rt in self.runtimes:
            try:
                rt.close()
            except Exception:
                pass
        for sid in self.sids:
            if sid in self.listed():
                try:
                    run_bounded(lambda: actionhost.Sandbox.connect(sid, config=self.state_config).kill(), 60)
                except Exception:
                    pass


@pytest.fixture
def harness(tmp_path):
    h = Harness(tmp_path)
    try:
        yield h
    finally:
        h.cleanup()


def execute(rt, command: str, timeout: float = 20):
    """Sends a CmdRunAction as OpenHands' ActionExecutionClient does: POST <url>/execute_action through the
    base class's request method, with its session (and so its headers)."""
    body = {"action": {"action": "run", "args": {"command": command, "blocking": True}, "timeout": timeout}}
    response = rt._send_action_server_request(
        "POST", f"{rt.action_execution_server_url}/execute_action", json=body, timeout=timeout + 5
    )
    assert response.status_code == 200, response.text
    return response.json()


# --- the class against real sandboxes ----------------------------------------------------------------


def test_get_runtime_cls_resolves_the_config_toml_name():
    assert get_runtime_cls("actionhost.openhands.ActionHostRuntime") is ActionHostRuntime


def test_connect_gives_the_base_class_a_working_url_and_key(harness):
    rt = harness.runtime()
    assert not rt.runtime_initialized
    with pytest.raises(oh_exceptions.AgentRuntimeDisconnectedError):
        rt.action_execution_server_url
    connect(rt)
    assert rt.runtime_initialized
    url = rt.action_execution_server_url
    assert re.fullmatch(r"http://127\.0\.0\.1:\d+", url), url
    assert rt.session_api_key and rt.session.headers["X-Session-API-Key"] == rt.session_api_key

    obs = execute(rt, "echo from-$((40 + 2)); whoami")
    assert obs["observation"] == "run"
    assert obs["content"].splitlines()[0] == "from-42"
    assert obs["extras"]["metadata"]["exit_code"] == 0

    # The key is what lets the request in: without it, the host refuses.
    saved = dict(rt.session.headers)
    rt.session.headers.pop("X-Session-API-Key")
    try:
        refused = rt._send_action_server_request("POST", f"{url}/execute_action", json={"action": {}}, timeout=HTTP_LIMIT)
        assert refused.status_code == 403  # OpenHands' answer to a missing or wrong key
    finally:
        rt.session.headers.update(saved)

    assert rt.sid in harness.listed()
    # web_hosts: the application ports, published on this machine.
    hosts = rt.web_hosts
    assert sorted(hosts.values()) == [50000, 55000]
    assert all(re.fullmatch(r"http://127\.0\.0\.1:\d+", h) for h in hosts)
    assert rt.vscode_url is None


def test_statuses_are_reported_in_order(harness):
    rt = harness.runtime()
    connect(rt)
    names = [s[1] for s in rt.statuses]
    assert all(isinstance(s, RuntimeStatus) for s in names)
    assert names[0] is RuntimeStatus.STARTING_RUNTIME
    assert names[-1] is RuntimeStatus.READY and names.count(RuntimeStatus.READY) == 1
    assert RuntimeStatus.RUNTIME_STARTED in names
    assert names.index(RuntimeStatus.RUNTIME_STARTED) < names.index(RuntimeStatus.READY)
    assert all(level == "info" for level, _, _ in rt.statuses)
    assert rt.runtime_status is RuntimeStatus.READY  # the base class's record of the last one
    count = len(rt.statuses)
    rt.close()
    assert len(rt.statuses) == count  # nothing reported after close (actionhost's STOPPED is not passed on)


def test_close_leaves_nothing(harness):
    rt = harness.runtime()
    connect(rt)
    assert harness.listed() == [rt.sid]
    run_bounded(rt.close, 60)
    assert harness.listed() == []
    with pytest.raises(oh_exceptions.AgentRuntimeDisconnectedError):
        rt.action_execution_server_url
    rt.close()  # again: nothing happens (OpenHands calls it from atexit as well)


def test_close_before_connect_is_harmless(harness):
    rt = harness.runtime()
    rt.close()
    rt.close()
    assert harness.listed() == []


def test_keep_runtime_alive_and_attach_to_existing(harness):
    config = harness.config(sandbox=SandboxConfig(keep_runtime_alive=True))
    first = harness.runtime(config)
    connect(first)
    assert execute(first, "echo kept > /tmp/marker && echo ok")["content"].strip() == "ok"
    run_bounded(first.close, 60)
    assert first.sid in harness.listed()  # it survived close

    second = harness.runtime(harness.config(), sid=first.sid, attach_to_existing=True)
    connect(second)
    assert [s[1] for s in second.statuses] == [RuntimeStatus.READY]  # attached: nothing started
    assert execute(second, "cat /tmp/marker")["content"].strip() == "kept"
    run_bounded(second.close, 60)
    assert first.sid in harness.listed()  # attached runtimes only let go

    # Without attach_to_existing, a runtime of the same sid reuses it too, and ends it on close.
    third = harness.runtime(harness.config(), sid=first.sid)
    connect(third)
    assert execute(third, "cat /tmp/marker")["content"].strip() == "kept"
    run_bounded(third.close, 60)
    assert harness.listed() == []


def test_attach_to_existing_without_a_sandbox_raises_not_found(harness):
    rt = harness.runtime(attach_to_existing=True)
    with pytest.raises(oh_exceptions.AgentRuntimeNotFoundError) as e:
        connect(rt)
    assert rt.sid in str(e.value)
    assert not rt.runtime_initialized
    assert harness.listed() == []


def test_pause_and_resume(harness):
    rt = harness.runtime()
    connect(rt)
    assert execute(rt, "echo before")["content"].strip() == "before"
    run_bounded(rt.pause, 60)
    # Paused: the host does not answer (a bounded wait).
    with pytest.raises(Exception):
        rt._send_action_server_request(
            "POST",
            f"{rt.action_execution_server_url}/execute_action",
            json={"action": {"action": "run", "args": {"command": "echo paused"}, "timeout": 1}},
            timeout=2,
        )
    run_bounded(rt.resume, 60)
    assert execute(rt, "echo after")["content"].strip() == "after"


def test_pause_before_connect_raises(harness):
    rt = harness.runtime()
    with pytest.raises(RuntimeError):
        rt.pause()


def test_sandbox_keys_and_variables_reach_the_sandbox(harness, tmp_path, monkeypatch):
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "hello.txt").write_text("from the machine\n")
    monkeypatch.setenv("SANDBOX_ENV_FROM_HOST_ENV", "h1")
    config = harness.config(
        sandbox=SandboxConfig(runtime_startup_env_vars={"STARTUP_VAR": "s1"}, timeout=77),
        workspace_base=str(workspace),
        git_user_name="Agent Smith",
    )
    rt = harness.runtime(config, env_vars={"passed_var": "p1"}, plugins=[PluginRequirement("jupyter")])
    connect(rt)
    out = execute(rt, 'echo "$STARTUP_VAR $PASSED_VAR $FROM_HOST_ENV"; cat hello.txt; pwd; git config --global user.name')
    lines = out["content"].splitlines()
    assert lines[0] == "s1 p1 h1"
    assert lines[1] == "from the machine"
    assert lines[2] == "/workspace"
    assert lines[3] == "Agent Smith"
    # The plugins OpenHands asks for are the host's: jupyter runs a cell.
    cell = {"action": {"action": "run_ipython", "args": {"code": "import os; print(os.environ['STARTUP_VAR'], 6 * 7)"}, "timeout": 60}}
    response = rt._send_action_server_request("POST", f"{rt.action_execution_server_url}/execute_action", json=cell, timeout=65)
    assert response.status_code == 200, response.text
    assert "s1 42" in response.json()["content"]


def test_an_image_that_cannot_be_had_is_a_clear_error(harness):
    rt = harness.runtime(harness.config(sandbox=SandboxConfig(base_container_image="registry.invalid/nothing:1")))
    with pytest.raises(oh_exceptions.AgentRuntimeError) as e:
        connect(rt)
    assert "registry.invalid/nothing:1" in str(e.value)
    names = [s[1] for s in rt.statuses]
    assert names[0] is RuntimeStatus.STARTING_RUNTIME
    assert RuntimeStatus.ERROR in names and RuntimeStatus.READY not in names
    assert harness.listed() == []


def test_an_unknown_backend_is_named_in_the_error(harness, monkeypatch):
    monkeypatch.setenv(ah_openhands.BACKEND_ENV, "no-such-backend")
    rt = harness.runtime()
    with pytest.raises(oh_exceptions.AgentRuntimeError) as e:
        connect(rt)
    assert "no-such-backend" in str(e.value)
    assert harness.listed() == []


def test_an_unknown_actionhost_key_is_a_value_error(harness):
    rt = harness.runtime(harness.config(extended={"sandbox": {"no_such_key": 1}}))
    with pytest.raises(ValueError) as e:
        connect(rt)
    assert "no_such_key" in str(e.value)
    assert harness.listed() == []


# --- settings_of: which OpenHands settings become which actionhost keys --------------------------------


def test_settings_defaults_are_not_passed():
    backend, keys = ah_openhands.settings_of(OpenHandsConfig(), environ={})
    assert backend == "sandbox"
    assert not any(k.startswith(("sandbox.", "kubernetes.")) for k in keys), keys
    assert keys["core.workspace_mount_path_in_sandbox"] == "/workspace"
    assert "core.workspace_base" not in keys


def test_settings_pass_changed_fields_and_extended_wins():
    config = OpenHandsConfig(
        sandbox=SandboxConfig(volumes="/a:/b:ro", runtime_binding_address="127.0.0.2", keep_runtime_alive=True, timeout=30),
        extended=ExtendedConfig({"actionhost": {"runtime": "docker", "sandbox": {"network": "internet"}, "sandbox.volumes": "/c:/d"}}),
    )
    backend, keys = ah_openhands.settings_of(config, environ={})
    assert backend == "docker"
    assert keys["sandbox.network"] == "internet"
    assert keys["sandbox.volumes"] == "/c:/d"
    assert keys["sandbox.runtime_binding_address"] == "127.0.0.2"
    assert keys["sandbox.keep_runtime_alive"] is True
    assert keys["sandbox.timeout"] == 30
    assert "runtime" not in keys and "core.runtime" not in keys
    backend, _ = ah_openhands.settings_of(config, environ={ah_openhands.BACKEND_ENV: "local"})
    assert backend == "local"


def test_settings_kubernetes_only_for_its_backend():
    from openhands.core.config.kubernetes_config import KubernetesConfig

    config = OpenHandsConfig(kubernetes=KubernetesConfig(namespace="agents"))
    assert "kubernetes.namespace" not in ah_openhands.settings_of(config, environ={})[1]
    keys = ah_openhands.settings_of(config, environ={ah_openhands.BACKEND_ENV: "kubernetes"})[1]
    assert keys["kubernetes.namespace"] == "agents"
    assert "kubernetes.ingress_domain" not in keys


def test_settings_refuse_an_extended_value_that_is_no_table():
    with pytest.raises(ValueError):
        ah_openhands.settings_of(OpenHandsConfig(extended=ExtendedConfig({"actionhost": "docker"})), environ={})


def test_errors_become_openhands_classes_of_the_same_name():
    for name in (
        "AgentRuntimeError",
        "AgentRuntimeBuildError",
        "AgentRuntimeTimeoutError",
        "AgentRuntimeUnavailableError",
        "AgentRuntimeNotReadyError",
        "AgentRuntimeDisconnectedError",
        "AgentRuntimeNotFoundError",
    ):
        converted = ah_openhands._openhands_error(getattr(actionhost, name)("the message"))
        assert type(converted) is getattr(oh_exceptions, name)
        assert str(converted) == "the message"
    converted = ah_openhands._openhands_error(actionhost.ConfigurationError("bad key"))
    assert type(converted) is ValueError and str(converted) == "bad key"


# --- the documented interface, the stand-in and the class agree -----------------------------------------


def documented_interface():
    """{qualified name: {member: (kind, rest)}} from the ```interface block of the doc."""
    text = DOC.read_text()
    block = re.search(r"```interface\n(.*?)```", text, re.S)
    assert block, "docs/openhands-runtime.md has no ```interface block"
    names: dict = {}
    current = None
    for line in block.group(1).splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if not line[0].isspace():
            current = line.strip()
            names[current] = {}
            continue
        member, kind, *rest = line.split(None, 2)
        assert kind in {"signature", "reads", "calls", "sets", "overrides", "consumes"}, line
        names[current][member] = (kind, rest[0] if rest else "")
    return names


def resolve(qualified: str):
    module_name, _, attr = qualified.rpartition(".")
    module = importlib.import_module(module_name)
    assert getattr(module, "__file__", "") and Path(module.__file__).resolve().is_relative_to(STUB.resolve())
    return module, getattr(module, attr)


def sample(cls):
    """An instance of a stand-in class, for its instance attributes (an enum or a function: itself)."""
    if not isinstance(cls, type) or issubclass(cls, enum.Enum):
        return cls
    if cls.__name__ == "ExtendedConfig":
        return cls({"actionhost": {}})
    if cls.__name__ in ("ActionExecutionClient", "Runtime"):
        return cls(OpenHandsConfig(), None, None)
    if cls.__name__ == "PluginRequirement":
        return cls("jupyter")
    if issubclass(cls, BaseException):
        return cls("x")
    return cls()


def has_member(obj, instance, member) -> bool:
    """Whether the class or its instance has `member`, without running properties."""
    for candidate in (instance, obj):
        try:
            inspect.getattr_static(candidate, member)
            return True
        except AttributeError:
            pass
    return hasattr(instance, member)  # computed attributes (ExtendedConfig's keys)


def normalized(signature: str) -> str:
    return re.sub(r"\s+", "", signature)


def test_doc_and_stand_in_agree():
    interface = documented_interface()
    assert interface, "the interface block is empty"
    for qualified, members in interface.items():
        _, obj = resolve(qualified)
        instance = sample(obj)
        for member, (kind, rest) in members.items():
            if kind == "signature":
                assert normalized(str(inspect.signature(getattr(obj, member)))) == normalized(rest), qualified
            else:
                assert has_member(obj, instance, member), f"the stand-in's {qualified} has no {member}"

    # ... and the stand-in defines nothing else: every public class and function is listed, and every
    # public member of theirs.
    listed_modules = {q.rpartition(".")[0] for q in interface}
    for path in sorted(STUB.rglob("*.py")):
        assert "TEST STAND-IN, NOT OPENHANDS" in path.read_text().splitlines()[0], f"{path} does not say it is a stand-in"
        module_name = ".".join(path.relative_to(STUB).with_suffix("").parts).removesuffix(".__init__")
        module = importlib.import_module(module_name)
        for name, obj in vars(module).items():
            if name.startswith("_") or getattr(obj, "__module__", None) != module_name:
                continue
            qualified = f"{module_name}.{name}"
            assert qualified in interface, f"the stand-in defines {qualified}, which the doc does not name"
            assert module_name in listed_modules
            # Members the doc names for this class or a documented class it derives from.
            documented = set()
            for klass in getattr(obj, "__mro__", ()):
                documented |= set(interface.get(f"{klass.__module__}.{klass.__qualname__}", {}))
            documented |= set(interface[qualified])
            public = {m for m in vars(obj) if not m.startswith("_")} if isinstance(obj, type) else set()
            instance = sample(obj)
            if instance is not obj:
                public |= {m for m in vars(instance) if not m.startswith("_")}
            if isinstance(obj, type) and issubclass(obj, enum.Enum):
                public = set(obj.__members__)
            extra = public - documented
            assert not extra, f"the stand-in's {qualified} has members the doc does not name: {sorted(extra)}"


def class_source_tree():
    return ast.parse(MODULE_FILE.read_text())


def test_the_class_uses_only_documented_members():
    interface = documented_interface()
    tree = class_source_tree()

    # Imports of OpenHands: each a documented name.
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "openhands":
            for alias in node.names:
                assert f"{node.module}.{alias.name}" in interface, f"imports undocumented {node.module}.{alias.name}"
        if isinstance(node, ast.Import):
            assert not any(a.name.split(".")[0] == "openhands" for a in node.names), "import openhands... must be from-imports"

    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "ActionHostRuntime")
    own = {n.name for n in cls.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    base = interface["openhands.runtime.base.Runtime"]
    client = interface["openhands.runtime.impl.action_execution.action_execution_client.ActionExecutionClient"]
    pairs = list(base.items()) + list(client.items())

    def documented(member, kinds):
        return any(m == member and k in kinds for m, (k, _) in pairs)

    # Every member it defines that the base classes have is a documented override; the rest are its own.
    from openhands.runtime.impl.action_execution.action_execution_client import ActionExecutionClient

    for name in own:
        if name == "__init__":
            continue
        if hasattr(ActionExecutionClient, name):
            assert documented(name, {"overrides"}), f"overrides undocumented {name}"
        else:
            assert name.startswith("_ah_") or name in ("pause", "resume"), f"{name}: helpers are named _ah_*"
    for member, (kind, _) in pairs:
        if kind == "overrides":
            assert member in own, f"the doc says {member} is overridden, the class does not define it"

    # self.X: its own (_ah_*, defined in the class), or a documented member of the base classes.
    config_chain = []
    for node in ast.walk(cls):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
            name = node.attr
            if name in own or name.startswith("_ah_"):
                continue
            assert documented(name, {"reads", "calls", "sets"}), f"uses undocumented self.{name}"
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Call):
            func = node.value.func
            if isinstance(func, ast.Name) and func.id == "super" and node.attr != "__init__":
                assert documented(node.attr, {"calls"}), f"calls undocumented super().{node.attr}"
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Attribute)
            and isinstance(node.value.value, ast.Name)
            and node.value.value.id == "self"
            and node.value.attr == "config"
        ):
            config_chain.append(node)

    # self.config.X, self.config.sandbox.Y: documented fields.
    oh_config = interface["openhands.core.config.OpenHandsConfig"]
    sandbox_fields = interface["openhands.core.config.SandboxConfig"]
    for node in config_chain:
        assert node.attr in oh_config, f"reads undocumented config.{node.attr}"
    for node in ast.walk(cls):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Attribute)
            and node.value.attr == "sandbox"
            and isinstance(node.value.value, ast.Attribute)
            and node.value.value.attr == "config"
        ):
            assert node.attr in sandbox_fields, f"reads undocumented config.sandbox.{node.attr}"

    # The field lists the module reads by name, and the statuses it names.
    assert set(ah_openhands._CORE_KEYS) <= set(oh_config)
    assert set(ah_openhands._SANDBOX_KEYS) <= set(sandbox_fields) - {"__init__"}
    assert set(sandbox_fields) - {"__init__"} == set(ah_openhands._SANDBOX_KEYS), "doc and _SANDBOX_KEYS differ"
    kubernetes_fields = set(interface["openhands.core.config.kubernetes_config.KubernetesConfig"]) - {"__init__"}
    assert kubernetes_fields == set(ah_openhands._KUBERNETES_KEYS), "doc and _KUBERNETES_KEYS differ"
    statuses = interface["openhands.runtime.runtime_status.RuntimeStatus"]
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "RuntimeStatus":
            assert node.attr in statuses, f"uses undocumented RuntimeStatus.{node.attr}"
    assert ah_openhands.EXTENDED_TABLE in interface["openhands.core.config.ExtendedConfig"]


def test_the_constructor_mirrors_the_documented_signature():
    interface = documented_interface()
    documented = interface["openhands.runtime.impl.action_execution.action_execution_client.ActionExecutionClient"]["__init__"][1]
    mine = inspect.signature(ActionHostRuntime.__init__)
    namespace: dict = {}
    exec(f"def documented{documented}: pass", namespace)
    expected = inspect.signature(namespace["documented"])
    assert [p.name for p in mine.parameters.values()] == [p.name for p in expected.parameters.values()]
    assert {p.name: p.default for p in mine.parameters.values()} == {p.name: p.default for p in expected.parameters.values()}
    defaults = {p.name: p.default for p in mine.parameters.values() if p.default is not inspect.Parameter.empty}
    assert defaults == {
        "sid": "default",
        "plugins": None,
        "env_vars": None,
        "status_callback": None,
        "attach_to_existing": False,
        "headless_mode": True,
        "user_id": None,
        "git_provider_tokens": None,
    }


def test_actionhost_imports_without_openhands():
    # Only actionhost.openhands imports OpenHands.
    for path in (REPO / "python" / "actionhost").glob("*.py"):
        if path.name == "openhands.py":
            continue
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module:
                assert node.module.split(".")[0] != "openhands", path
            if isinstance(node, ast.Import):
                assert all(a.name.split(".")[0] != "openhands" for a in node.names), path

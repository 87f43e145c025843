"""`cmake --install` puts the package into the prefix's Python path, and the installed package finds the
runtimes installed beside it (no build tree, no PYTHONPATH into it, no environment variable)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest


def test_the_installed_package_imports_and_drives_a_sandbox(tmp_path: Path) -> None:
    build = os.environ.get("AH_BUILD_DIR")
    if not build:
        pytest.skip("AH_BUILD_DIR names the build to install (set by ctest)")
    prefix = tmp_path / "prefix"
    done = subprocess.run(["cmake", "--install", build, "--prefix", str(prefix)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    site = prefix / "lib" / version / "dist-packages"
    package = site / "actionhost"
    assert (package / "py.typed").is_file()
    assert (package / "__init__.py").is_file() and (package / "openhands.py").is_file()
    assert any(p.name.startswith("_native.") and p.suffix == ".so" for p in package.iterdir())
    script = (
        "import json, sys, actionhost\n"
        "from actionhost import Sandbox\n"
        "cfg = json.loads(sys.argv[1])\n"
        "with Sandbox.create(config=cfg) as s:\n"
        "    print(json.dumps({'file': actionhost.__file__, 'out': s.commands.run('echo installed').stdout}))\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ACTIONHOST_", "SANDBOX_"))}
    env["PYTHONPATH"] = str(site)  # the installed copy only: not the build tree's
    config = json.dumps({"core": {"state_dir": str(tmp_path / "state")}})
    ran = subprocess.run([sys.executable, "-c", script, config], capture_output=True, text=True, timeout=120, env=env, cwd=tmp_path)
    assert ran.returncode == 0, ran.stderr
    result = json.loads(ran.stdout.strip().splitlines()[-1])
    assert result["file"].startswith(str(package)), result
    assert result["out"] == "installed\n"

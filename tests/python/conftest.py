"""Fixtures of the Python package's tests: real sandboxes of the `sandbox` backend, each test with a
state directory of its own (so Sandbox.list() sees only its sandboxes), every sandbox a test made
killed after it whatever happened."""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import os
import shutil
import tarfile
from pathlib import Path
from typing import Any, Dict, Iterator, List

import pytest

from actionhost import AgentRuntimeError, Sandbox


@pytest.fixture
def config(tmp_path: Path) -> Dict[str, Any]:
    """A configuration whose state directory is the test's own."""
    return {"core": {"state_dir": str(tmp_path / "state")}}


class Made:
    """Sandboxes a test made, killed at its end (a test that already killed one loses nothing)."""

    def __init__(self, config: Dict[str, Any]) -> None:
        self.config = config
        self.sandboxes: List[Sandbox] = []

    def create(self, **kwargs: Any) -> Sandbox:
        kwargs.setdefault("config", self.config)
        sbx = Sandbox.create(**kwargs)
        self.sandboxes.append(sbx)
        return sbx

    def kill_all(self) -> None:
        for sbx in self.sandboxes:
            try:
                sbx.kill()
            except AgentRuntimeError:
                pass
        for info in Sandbox.list(self.config):  # e.g. one made by a subprocess of the test
            try:
                Sandbox.connect(info.sandbox_id, self.config).kill()
            except AgentRuntimeError:
                pass


@pytest.fixture
def made(config: Dict[str, Any]) -> Iterator[Made]:
    m = Made(config)
    try:
        yield m
    finally:
        m.kill_all()


@pytest.fixture
def sbx(made: Made) -> Sandbox:
    return made.create()


def _add_bytes(tar: tarfile.TarFile, name: str, data: bytes, mode: int = 0o644) -> None:
    info = tarfile.TarInfo(name)
    info.size, info.mode = len(data), mode
    tar.addfile(info, io.BytesIO(data))


def make_busybox_layout(directory: Path, tag: str = "1") -> str:
    """An OCI image layout of a busybox root (Debian's busybox-static, its applets as links), made here:
    returns the reference ``oci:DIR:TAG``."""
    busybox = shutil.which("busybox") or "/bin/busybox"
    if not os.path.exists(busybox):
        pytest.skip("busybox-static is not installed")
    layer = io.BytesIO()
    with tarfile.open(fileobj=layer, mode="w") as tar:
        for d in ("bin", "etc", "tmp", "root", "home", "workspace", "usr", "usr/bin", "var"):
            info = tarfile.TarInfo(d)
            info.type, info.mode = tarfile.DIRTYPE, 0o1777 if d == "tmp" else 0o755
            tar.addfile(info)
        with open(busybox, "rb") as f:
            _add_bytes(tar, "bin/busybox", f.read(), 0o755)
        for applet in ("sh", "ls", "cat", "echo", "mkdir", "rm", "cp", "id", "env", "sleep", "printf", "uname"):
            info = tarfile.TarInfo(f"bin/{applet}")
            info.type, info.linkname = tarfile.SYMTYPE, "busybox"
            tar.addfile(info)
        _add_bytes(tar, "etc/passwd", b"root:x:0:0:root:/root:/bin/sh\n")
        _add_bytes(tar, "etc/group", b"root:x:0:\n")
        _add_bytes(tar, "etc/os-release", b"ID=busybox-test\n")
    raw = layer.getvalue()
    packed = gzip.compress(raw, mtime=0)
    blobs = directory / "blobs" / "sha256"
    blobs.mkdir(parents=True, exist_ok=True)

    def blob(data: bytes) -> str:
        digest = hashlib.sha256(data).hexdigest()
        (blobs / digest).write_bytes(data)
        return "sha256:" + digest

    layer_digest = blob(packed)
    image_config = json.dumps(
        {
            "architecture": "amd64",
            "os": "linux",
            "config": {"Env": ["PATH=/usr/local/bin:/usr/bin:/bin"]},
            "rootfs": {"type": "layers", "diff_ids": ["sha256:" + hashlib.sha256(raw).hexdigest()]},
        }
    ).encode()
    config_digest = blob(image_config)
    manifest = json.dumps(
        {
            "schemaVersion": 2,
            "mediaType": "application/vnd.oci.image.manifest.v1+json",
            "config": {"mediaType": "application/vnd.oci.image.config.v1+json", "digest": config_digest, "size": len(image_config)},
            "layers": [{"mediaType": "application/vnd.oci.image.layer.v1.tar+gzip", "digest": layer_digest, "size": len(packed)}],
        }
    ).encode()
    manifest_digest = blob(manifest)
    (directory / "oci-layout").write_text('{"imageLayoutVersion": "1.0.0"}')
    (directory / "index.json").write_text(
        json.dumps(
            {
                "schemaVersion": 2,
                "manifests": [
                    {
                        "mediaType": "application/vnd.oci.image.manifest.v1+json",
                        "digest": manifest_digest,
                        "size": len(manifest),
                        "annotations": {"org.opencontainers.image.ref.name": tag},
                    }
                ],
            }
        )
    )
    return f"oci:{directory}:{tag}"

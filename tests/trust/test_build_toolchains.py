"""Issue 19 item 8: legitimate builds work in the jail, and a build's disk and memory are
bounded.

Before: /dev/shm was covered by the jail's /dev, so `multiprocessing.Lock()`,
`SharedMemory` and `ProcessPoolExecutor` failed in a build; a Rust toolchain named in
LATTICE_BUILD_TOOLCHAIN was not found (`cargo: not found`, rustup had no default); a build
wrote 3.1 GiB to the real disk and touched 3 GiB of memory unchecked."""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from lattice_desktop.manifest import load_submission
from lattice_desktop.resources import CASES
from lattice_desktop.sandbox import build
from lattice_desktop.sandbox import isolation as isolation_module
from lattice_desktop.sandbox.build import build_submission
from lattice_desktop.sandbox.isolation import isolation
from tests.hostile.conftest import private_tmp  # noqa: F401  (a fixture)
from tests.hostile.test_builds import MAKE_MODULE, build_folder

pytestmark = pytest.mark.usefixtures("private_tmp")  # scratch folders of the test's own
jailed = pytest.mark.skipif(
    not isolation().available, reason=f"no build isolation here: {isolation().reason}"
)

SHARED_MEMORY = """
import multiprocessing
from concurrent.futures import ProcessPoolExecutor
from multiprocessing.shared_memory import SharedMemory

lock = multiprocessing.Lock()
with lock:
    print("lock ok")
block = SharedMemory(create=True, size=4096)
block.buf[:2] = b"ok"
print("shared memory", bytes(block.buf[:2]).decode())
block.close()
block.unlink()
with ProcessPoolExecutor(max_workers=2) as pool:
    print("pool", sum(pool.map(abs, [-1, -2, -3])))
"""


def _build(folder: Path, timeout: float = 120):
    return build_submission(load_submission(folder), allowed=True, timeout=timeout, max_module_bytes=2**20)


@jailed
def test_multiprocessing_works_in_a_build(tmp_path):
    folder = build_folder(tmp_path / "sub", "python shm.py", MAKE_MODULE)
    (folder / "shm.py").write_text(SHARED_MEMORY)
    result = _build(folder)
    assert result.ok, result.log
    assert "lock ok" in result.log and "shared memory ok" in result.log and "pool 6" in result.log


def _rust_homes() -> tuple[Path, Path] | None:
    cargo_home = Path(os.environ.get("CARGO_HOME") or Path.home() / ".cargo")
    rustup_home = Path(os.environ.get("RUSTUP_HOME") or Path.home() / ".rustup")
    if (cargo_home / "bin" / "cargo").exists() and (rustup_home / "settings.toml").is_file():
        return cargo_home, rustup_home
    return None


@jailed
@pytest.mark.skipif(_rust_homes() is None, reason="no rustup toolchain on this machine")
def test_a_rust_toolchain_named_in_the_toolchain_variable_is_found(tmp_path, monkeypatch):
    cargo_home, rustup_home = _rust_homes() or (Path(), Path())
    monkeypatch.setenv(isolation_module.TOOLCHAIN, os.pathsep.join([str(cargo_home), str(rustup_home)]))
    crate = (
        "cargo new --vcs none --offline hello && cd hello && cargo build --offline --quiet "
        "&& ./target/debug/hello"
    )
    result = _build(build_folder(tmp_path / "sub", "cargo --version", "rustc --version", crate, MAKE_MODULE))
    assert result.ok, result.log
    assert "rustc " in result.log and "Hello, world!" in result.log


def test_toolchain_folders_bring_their_path_and_variables(tmp_path, monkeypatch):
    """The documented rule, on a toolchain laid out as rustup lays it out."""
    cargo, rustup, tool = tmp_path / "cargo", tmp_path / "rustup", tmp_path / "tool"
    (cargo / "bin").mkdir(parents=True)
    (cargo / "bin" / "cargo").write_text("")
    (rustup / "toolchains").mkdir(parents=True)
    (rustup / "settings.toml").write_text('default_toolchain = "stable"\n')
    tool.mkdir()
    monkeypatch.setenv(isolation_module.TOOLCHAIN, os.pathsep.join(map(str, (cargo, rustup, tool))))
    env = build.scrubbed_environment(tmp_path / "home")
    assert env["CARGO_HOME"] == str(cargo) and env["RUSTUP_HOME"] == str(rustup)
    assert env["PATH"].split(os.pathsep)[:3] == [str(cargo / "bin"), str(rustup), str(tool)]
    monkeypatch.delenv(isolation_module.TOOLCHAIN)
    assert "CARGO_HOME" not in build.scrubbed_environment(tmp_path / "home")


@jailed
def test_a_build_cannot_fill_the_disk(tmp_path, monkeypatch):
    if os.geteuid() != 0:
        pytest.skip("the size-capped scratch tmpfs needs a grader running as root")
    monkeypatch.setattr(build, "DISK_LIMIT", 64 * 2**20)
    fill = "for i in 1 2 3 4; do head -c 32M /dev/zero > fill$i || exit 9; done"
    result = _build(build_folder(tmp_path / "sub", fill, MAKE_MODULE))
    assert not result.ok and "exited with status 9" in result.detail, result.log
    assert "No space left on device" in result.log


@jailed
def test_a_build_cannot_take_3_gib_of_memory(tmp_path):
    grab = "python -c \"b = bytearray(3 * 2**30); b[::4096] = b'x' * len(b[::4096]); print('took', 'it')\""
    result = _build(build_folder(tmp_path / "sub", grab, MAKE_MODULE))
    assert not result.ok, result.log
    assert "MemoryError" in result.log and "took it" not in result.log


ASSEMBLYSCRIPT = """
export function add(a: i32, b: i32): i32 { return a + b; }
"""


def _asc() -> str | None:
    """A folder whose node_modules holds AssemblyScript (`npm install assemblyscript` there)."""
    home = os.environ.get("LATTICE_TEST_ASC_HOME")
    return home if home and (Path(home) / "node_modules" / "assemblyscript").is_dir() else None


@jailed
@pytest.mark.skipif(_asc() is None, reason="AssemblyScript (asc) is not installed")
def test_an_assemblyscript_build_passes(tmp_path, monkeypatch):
    """`asc` from a node_modules folder named as a toolchain (node itself is in /usr)."""
    home = Path(_asc() or "")
    monkeypatch.setenv(isolation_module.TOOLCHAIN, str(home))
    folder = build_folder(
        tmp_path / "sub", f"node {home}/node_modules/assemblyscript/bin/asc.js add.ts -O -o module.wasm"
    )
    (folder / "add.ts").write_text(ASSEMBLYSCRIPT)
    result = _build(folder)
    assert result.ok, result.log
    assert result.module is not None and result.module[:4] == b"\0asm"


@jailed
@pytest.mark.skipif(importlib.util.find_spec("ziglang") is None, reason="ziglang not installed")
def test_the_bundled_c_sample_still_builds_with_zig_in_the_jail():
    """`python -m ziglang cc …` of sample-lines, as its manifest says, byte for byte."""
    folder = CASES / "lattice" / "submissions" / "lines"
    result = _build(folder, timeout=600)
    assert result.ok, result.log
    assert result.module == (folder / "engine.wasm").read_bytes()


@jailed
def test_without_a_capped_tmpfs_a_build_past_the_disk_limit_is_stopped(tmp_path, monkeypatch):
    """A grader that may not mount (not root): the scratch folder's use is measured instead."""

    @contextmanager
    def not_capped(root: str, size: int) -> Iterator[str]:
        yield "a test: not capped"

    monkeypatch.setattr(build, "capped_scratch", not_capped)
    monkeypatch.setattr(build, "DISK_LIMIT", 64 * 2**20)
    fill = "for i in 1 2 3 4 5 6; do head -c 32M /dev/urandom > fill$i; sleep 1; done"
    result = _build(build_folder(tmp_path / "sub", fill, MAKE_MODULE))
    assert not result.ok, result.log
    assert "wrote more than the 67,108,864 bytes a build may" in result.detail
    assert "scratch folder not size-capped (a test: not capped)" in result.log

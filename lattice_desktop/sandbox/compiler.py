"""Compile modules out of process, with size and time limits, cached by content hash."""

from __future__ import annotations

import contextlib
import hashlib
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path

import wasmtime

from lattice_desktop.errors import Cancelled
from lattice_desktop.sandbox.disk_cache import BoundedFolder
from lattice_desktop.sandbox.engine import WASMTIME_VERSION, shared_engine
from lattice_desktop.sandbox.leftovers import sweep_leftovers
from lattice_desktop.sandbox.scratch import scratch_prefix
from lattice_desktop.work import Work

# The compile child's heap (RLIMIT_DATA): a base for Python and wasmtime, plus room that
# grows with the module (Cranelift needs tens of bytes per byte of code), capped.
COMPILE_MEMORY_BASE = 1024 * 1024 * 1024
COMPILE_MEMORY_PER_BYTE = 64
COMPILE_MEMORY = 4 * 1024 * 1024 * 1024
_WASM_MAGIC = b"\0asm"
_EXIT_INVALID = 3
_EXIT_OUT_OF_MEMORY = 4


class CompileError(Exception):
    """The module cannot be compiled: not wasm, too large, or too slow to compile."""


@dataclass(frozen=True)
class CompiledModule:
    module: wasmtime.Module
    sha256: str
    size: int
    from_cache: bool


# Compiled modules on disk (the least recently used evicted past the bound) and in memory.
MODULES = BoundedFolder(f"modules-wasmtime-{WASMTIME_VERSION}", max_bytes=2 * 1024**3, max_files=2048)
MEMORY_MODULES = 64


def cache_dir() -> Path:
    return MODULES.path


_memory_cache: OrderedDict[str, wasmtime.Module] = OrderedDict()
_lock = threading.Lock()


def compile_memory_limit(size: int) -> int:
    """Bytes of heap the compile child may use for a module of `size` bytes."""
    return min(COMPILE_MEMORY, COMPILE_MEMORY_BASE + COMPILE_MEMORY_PER_BYTE * size)


def compile_module(
    wasm: bytes, *, max_bytes: int, timeout: float, work: Work | None = None
) -> CompiledModule:
    """A compiled module for these bytes, from memory, disk cache, or a child compiler.

    Compiling is bounded by `max_bytes`, by `timeout` seconds of wall clock (and CPU) in a
    child process, and by `compile_memory_limit`; `work` stops the child at once.
    """
    sweep_leftovers()  # every command that runs wasm compiles first: clean up after dead graders
    if len(wasm) > max_bytes:
        raise CompileError(f"module is {len(wasm):,} bytes; the case allows {max_bytes:,}")
    if not wasm.startswith(_WASM_MAGIC):
        raise CompileError("not a WebAssembly module (no \\0asm header)")
    digest = hashlib.sha256(wasm).hexdigest()
    with _lock:
        if digest in _memory_cache:
            _memory_cache.move_to_end(digest)
            return CompiledModule(_memory_cache[digest], digest, len(wasm), True)
    path = cache_dir() / f"{digest}.cwasm"
    from_cache = path.is_file()
    if from_cache:
        try:
            module = wasmtime.Module.deserialize_file(shared_engine(), str(path))
            with contextlib.suppress(OSError):
                os.utime(path)  # used: the last to be evicted
        except wasmtime.WasmtimeError:
            path.unlink(missing_ok=True)  # stale or damaged: compile again
            from_cache = False
    if not from_cache:
        _compile_in_child(wasm, path, timeout, work or Work())
        module = wasmtime.Module.deserialize_file(shared_engine(), str(path))
        MODULES.trim(keep=path.name)
    with _lock:
        _memory_cache[digest] = module
        _memory_cache.move_to_end(digest)
        while len(_memory_cache) > MEMORY_MODULES:
            _memory_cache.popitem(last=False)
    return CompiledModule(module, digest, len(wasm), from_cache)


def _compile_in_child(wasm: bytes, target: Path, timeout: float, work: Work) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    memory = compile_memory_limit(len(wasm))
    with tempfile.TemporaryDirectory(prefix=scratch_prefix("compile")) as scratch:
        source = Path(scratch) / "module.wasm"
        source.write_bytes(wasm)
        errors = Path(scratch) / "stderr.txt"
        command = [
            sys.executable,
            "-m",
            "lattice_desktop.sandbox.compile_worker",
            str(source),
            str(target),
            str(memory),
            str(timeout),
        ]
        with errors.open("wb") as stderr:
            child = subprocess.Popen(
                command,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=stderr,
                start_new_session=True,
            )
            reason = _wait(child, timeout, work)
        message = errors.read_bytes()[:65536].decode("utf-8", "replace")
    if reason == "cancelled":
        raise Cancelled()
    if reason == "timeout":
        raise CompileError(f"compilation took longer than {timeout:g} s and was stopped")
    code = child.returncode
    if code == _EXIT_INVALID:
        raise CompileError(f"not a valid WebAssembly module: {_first_line(message)}")
    if code == _EXIT_OUT_OF_MEMORY or "memory allocation of" in message:
        raise CompileError(f"compiling needed more than {memory // 2**20:,} MiB of memory and was stopped")
    if code == -signal.SIGXCPU:
        raise CompileError(f"compilation used more than {timeout:g} s of CPU and was stopped")
    if code == -signal.SIGKILL:
        raise CompileError("the compiler was killed (out of CPU time or memory)")
    if code != 0:
        raise CompileError(f"the compiler stopped (exit {code}): {_first_line(message) or 'no message'}")


def _wait(child: subprocess.Popen[bytes], timeout: float, work: Work) -> str | None:
    """Wait for the compile child; kill it (and anything it started) on timeout or cancel."""
    deadline = time.monotonic() + timeout
    reason = None
    while True:
        try:
            child.wait(timeout=0.02)
            break
        except subprocess.TimeoutExpired:
            pass
        except BaseException:  # Ctrl+C: the child goes with us
            reason = "interrupted"
            _kill(child)
            raise
        if work.cancelled:
            reason = "cancelled"
        elif time.monotonic() > deadline:
            reason = "timeout"
        if reason:
            break
    if reason:
        _kill(child)
    return reason


def _kill(child: subprocess.Popen[bytes]) -> None:
    """Kill the compile child and its group (not yet reaped, so the group is still ours)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(child.pid, signal.SIGKILL)
    child.wait()


def _first_line(text: str) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[0].strip() if lines else ""

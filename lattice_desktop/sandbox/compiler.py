"""Compile modules out of process, with size and time limits, cached by content hash."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path

import platformdirs
import wasmtime

from lattice_desktop.sandbox.engine import WASMTIME_VERSION, shared_engine

COMPILE_MEMORY = 4 * 1024 * 1024 * 1024
_WASM_MAGIC = b"\0asm"


class CompileError(Exception):
    """The module cannot be compiled: not wasm, too large, or too slow to compile."""


@dataclass(frozen=True)
class CompiledModule:
    module: wasmtime.Module
    sha256: str
    size: int
    from_cache: bool


def cache_dir() -> Path:
    root = os.environ.get("LATTICE_DESKTOP_CACHE") or platformdirs.user_cache_dir("lattice-desktop")
    return Path(root) / f"modules-wasmtime-{WASMTIME_VERSION}"


_memory_cache: dict[str, wasmtime.Module] = {}
_lock = threading.Lock()


def compile_module(wasm: bytes, *, max_bytes: int, timeout: float) -> CompiledModule:
    """A compiled module for these bytes, from memory, disk cache, or a child compiler."""
    if len(wasm) > max_bytes:
        raise CompileError(f"module is {len(wasm):,} bytes; the case allows {max_bytes:,}")
    if not wasm.startswith(_WASM_MAGIC):
        raise CompileError("not a WebAssembly module (no \\0asm header)")
    digest = hashlib.sha256(wasm).hexdigest()
    with _lock:
        if digest in _memory_cache:
            return CompiledModule(_memory_cache[digest], digest, len(wasm), True)
    path = cache_dir() / f"{digest}.cwasm"
    from_cache = path.is_file()
    if from_cache:
        try:
            module = wasmtime.Module.deserialize_file(shared_engine(), str(path))
        except wasmtime.WasmtimeError:
            path.unlink(missing_ok=True)  # stale or damaged: compile again
            from_cache = False
    if not from_cache:
        _compile_in_child(wasm, path, timeout)
        module = wasmtime.Module.deserialize_file(shared_engine(), str(path))
    with _lock:
        _memory_cache[digest] = module
    return CompiledModule(module, digest, len(wasm), from_cache)


def _compile_in_child(wasm: bytes, target: Path, timeout: float) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="lattice-compile-") as scratch:
        source = Path(scratch) / "module.wasm"
        source.write_bytes(wasm)
        command = [
            sys.executable, "-m", "lattice_desktop.sandbox.compile_worker",
            str(source), str(target), str(COMPILE_MEMORY),
        ]
        try:
            done = subprocess.run(
                command, capture_output=True, text=True, timeout=timeout, check=False
            )
        except subprocess.TimeoutExpired:
            raise CompileError(f"compilation took longer than {timeout:g} s and was stopped") from None
    if done.returncode == 3:
        raise CompileError(f"not a valid WebAssembly module: {_first_line(done.stderr)}")
    if done.returncode != 0:
        raise CompileError(
            f"the compiler stopped (exit {done.returncode}): {_first_line(done.stderr) or 'no message'}"
        )


def _first_line(text: str) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[0].strip() if lines else ""

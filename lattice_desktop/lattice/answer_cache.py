"""A submission's answers to the Factory tab kept on disk between sessions: the records
at a tick and the per-tick checksums of the divergence search cost a full run of the
submission each (seconds on a big factory), and a module's answer to the same call
never changes. Keyed by the module's bytes, the call (export names and limits), its
arguments, the scenario and the wasmtime version (only successful answers are kept);
an answer is still decoded and checked strictly when it is read.
"""

from __future__ import annotations

import hashlib
import os
import zlib
from pathlib import Path

from lattice_desktop.lattice import keyframe_cache
from lattice_desktop.sandbox.engine import WASMTIME_VERSION


def answer_path(module_digest: str, call: str, scenario: bytes, args: tuple[int, ...]) -> Path:
    digest = hashlib.sha256()
    for part in (
        module_digest.encode(),
        call.encode(),
        repr(args).encode(),
        hashlib.sha256(scenario).digest(),
        WASMTIME_VERSION.encode(),
    ):
        digest.update(part + b"\0")
    return keyframe_cache.cache_dir().parent / "answers" / f"{digest.hexdigest()}.z"


def load(path: Path) -> bytes | None:
    try:
        return zlib.decompress(path.read_bytes())
    except (OSError, zlib.error):
        return None


def save(path: Path, data: bytes) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_suffix(f".part{os.getpid()}")
        partial.write_bytes(zlib.compress(data, 1))
        partial.replace(path)
    except OSError:
        pass  # a cache is an optimisation: a full or read-only disk only costs speed

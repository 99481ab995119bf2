"""Keyframes kept on disk between sessions, so a scenario's playback is warm after the
first time it was walked: every later open seeks from a nearby keyframe at once.

A file per (engine module, scenario, wasmtime version), in the user cache folder:
a magic line, a JSON line listing (tick, memory size, packed length), then the packed
memories back to back. A damaged or foreign file is ignored and rewritten.
"""

from __future__ import annotations

import hashlib
import json
import os
import zlib
from pathlib import Path

import platformdirs

from lattice_desktop.sandbox.engine import WASMTIME_VERSION

MAGIC = b"lattice-keyframes 1\n"


def cache_dir() -> Path:
    root = os.environ.get("LATTICE_DESKTOP_CACHE") or platformdirs.user_cache_dir("lattice-desktop")
    return Path(root) / "keyframes"


def cache_path(engine_path: str | Path, scenario: bytes) -> Path:
    digest = hashlib.sha256()
    digest.update(Path(engine_path).read_bytes())
    digest.update(b"\0" + scenario + b"\0" + WASMTIME_VERSION.encode())
    return cache_dir() / f"{digest.hexdigest()}.keyframes"


def save(path: Path, keyframes: list[tuple[int, int, bytes]]) -> None:
    """Write (tick, memory size, zlib-packed memory) keyframes atomically."""
    path.parent.mkdir(parents=True, exist_ok=True)
    header = json.dumps([[tick, size, len(data)] for tick, size, data in keyframes]).encode()
    partial = path.with_suffix(f".part{os.getpid()}")
    with partial.open("wb") as out:
        out.write(MAGIC + header + b"\n")
        for _tick, _size, data in keyframes:
            out.write(data)
    partial.replace(path)


def load(path: Path) -> list[tuple[int, int, bytes]] | None:
    """The keyframes in `path`, or None when there is no usable file."""
    try:
        blob = path.read_bytes()
    except OSError:
        return None
    try:
        if not blob.startswith(MAGIC):
            raise ValueError("not a keyframe file")
        end = blob.index(b"\n", len(MAGIC))
        entries = json.loads(blob[len(MAGIC) : end])
        keyframes, offset = [], end + 1
        for tick, size, length in entries:
            data = blob[offset : offset + length]
            if len(data) != length:
                raise ValueError("truncated")
            if len(zlib.decompress(data)) != size:
                raise ValueError("damaged keyframe")
            keyframes.append((int(tick), int(size), data))
            offset += length
        return keyframes
    except (ValueError, TypeError, zlib.error):
        path.unlink(missing_ok=True)
        return None

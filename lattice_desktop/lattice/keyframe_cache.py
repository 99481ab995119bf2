"""Keyframes kept on disk between sessions, so a scenario's playback is warm after the
first time it was walked: every later open seeks from a nearby keyframe at once.

A file per (engine module, scenario, wasmtime version), in the user cache folder:
a magic line, a JSON line listing (tick, memory size, packed length), then the packed
memories back to back. A damaged or foreign file is ignored and rewritten. The folder is
bounded (`KEYFRAMES`): the scenarios walked least recently are evicted past it, and a
walk whose keyframes alone pass it is not kept.
"""

from __future__ import annotations

import hashlib
import json
import zlib
from pathlib import Path

from lattice_desktop.sandbox.disk_cache import BoundedFolder
from lattice_desktop.sandbox.engine import WASMTIME_VERSION

MAGIC = b"lattice-keyframes 1\n"
KEYFRAMES = BoundedFolder("keyframes", max_bytes=2 * 1024**3, max_files=256)


def cache_dir() -> Path:
    return KEYFRAMES.path


def cache_path(engine_path: str | Path, scenario: bytes) -> Path:
    digest = hashlib.sha256()
    digest.update(Path(engine_path).read_bytes())
    digest.update(b"\0" + scenario + b"\0" + WASMTIME_VERSION.encode())
    return cache_dir() / f"{digest.hexdigest()}.keyframes"


def save(path: Path, keyframes: list[tuple[int, int, bytes]]) -> None:
    """Write (tick, memory size, zlib-packed memory) keyframes atomically, within the
    folder's bound (not at all when they alone pass it)."""
    header = json.dumps([[tick, size, len(data)] for tick, size, data in keyframes]).encode()
    KEYFRAMES.save_parts(path.name, [MAGIC + header + b"\n", *(data for _tick, _size, data in keyframes)])


def load(path: Path) -> list[tuple[int, int, bytes]] | None:
    """The keyframes in `path`, or None when there is no usable file."""
    blob = KEYFRAMES.load(path.name)
    if blob is None:
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

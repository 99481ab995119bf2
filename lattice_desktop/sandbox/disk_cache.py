"""The app's and the CLI's on-disk caches: one folder each under the user cache folder,
each with a size bound, evicting the least recently used files past it.

What a cache keeps is derived from untrusted modules (a submission's answers, compiled
modules, keyframes of an engine's memory), so without a bound a hostile module could fill
the disk one tick at a time. Every write goes through `BoundedFolder.save`: an entry larger
than the whole bound is not kept; after a write the folder is trimmed, oldest use first
(`load` marks a file used by touching its time), until it holds at most `max_bytes` in at
most `max_files` files. Part files left by a process that died mid-write are swept too.
A cache is an optimisation: a full or read-only disk costs only speed, never an error.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import platformdirs

PART = ".part"  # a file being written: NAME.partPID
STALE_PART_SECONDS = 3600.0  # a part file this old belongs to a process that died


def cache_root() -> Path:
    """The user cache folder (`LATTICE_DESKTOP_CACHE` overrides it)."""
    return Path(os.environ.get("LATTICE_DESKTOP_CACHE") or platformdirs.user_cache_dir("lattice-desktop"))


@dataclass(frozen=True)
class BoundedFolder:
    """A cache folder of at most `max_bytes` in at most `max_files` files."""

    name: str  # the folder's name under the cache root
    max_bytes: int
    max_files: int

    @property
    def path(self) -> Path:
        return cache_root() / self.name

    def file(self, key: str) -> Path:
        return self.path / key

    def load(self, key: str) -> bytes | None:
        """The bytes stored under `key` (marked as just used), or None."""
        path = self.file(key)
        try:
            data = path.read_bytes()
        except OSError:
            return None
        with contextlib.suppress(OSError):
            os.utime(path)
        return data

    def save(self, key: str, data: bytes) -> bool:
        """Store `data` under `key` atomically and trim the folder to its bound; False
        (nothing written) when it is larger than the bound or the disk refuses it."""
        return self.save_parts(key, [data])

    def save_parts(self, key: str, parts: Iterable[bytes]) -> bool:
        """`save` of the bytes `parts` hold back to back, written as they come: the write
        stops (nothing kept) as soon as they pass the bound."""
        path = self.file(key)
        partial = path.with_name(f"{path.name}{PART}{os.getpid()}")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            written = 0
            with partial.open("wb") as out:
                for part in parts:
                    written += len(part)
                    if written > self.max_bytes:
                        raise _TooLarge()
                    out.write(part)
            partial.replace(path)
        except (OSError, _TooLarge):
            with contextlib.suppress(OSError):
                partial.unlink()
            return False
        self.trim(keep=path.name)
        return True

    def forget(self, key: str) -> None:
        with contextlib.suppress(OSError):
            self.file(key).unlink()

    def usage(self) -> tuple[int, int]:
        """(bytes, files) the folder holds now."""
        entries = _entries(self.path)
        return sum(size for _, size, _ in entries), len(entries)

    def trim(self, *, keep: str | None = None) -> None:
        """Remove the least recently used files until the folder is within its bound
        (`keep`, the file just written, goes last); stale part files go first."""
        now = time.time()
        entries = []
        for name, size, used in _entries(self.path, parts=True):
            if PART in name:
                if now - used > STALE_PART_SECONDS:
                    self.forget(name)
                continue
            entries.append((name == keep, used, name, size))
        entries.sort()
        total, count = sum(e[3] for e in entries), len(entries)
        for _, _, name, size in entries:
            if total <= self.max_bytes and count <= self.max_files:
                break
            self.forget(name)
            total, count = total - size, count - 1


class _TooLarge(Exception):
    """An entry past its folder's whole bound: not kept."""


def _entries(folder: Path, *, parts: bool = False) -> list[tuple[str, int, float]]:
    """(name, size, last use) of each regular file in `folder`."""
    found = []
    try:
        with os.scandir(folder) as listing:
            for entry in listing:
                if not parts and PART in entry.name:
                    continue
                with contextlib.suppress(OSError):
                    info = entry.stat(follow_symlinks=False)
                    if entry.is_file(follow_symlinks=False):
                        found.append((entry.name, info.st_size, max(info.st_mtime, info.st_atime)))
    except OSError:
        return []
    return found

"""Scratch folders of builds and compiles, named for the process that owns them, so that
those of a grader killed mid-build (kill -9, a crash, power loss) are swept at the next
start instead of piling up in the temporary folder.

A build's scratch folder is, where the grader may mount (as root), a size-capped tmpfs:
whatever a build writes, it cannot fill the disk. Elsewhere its use is measured while the
build runs (`disk_use`), which stops a build soon after it passes the limit.
"""

from __future__ import annotations

import ctypes
import os
import re
import shutil
import stat
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

KINDS = ("build", "compile")
_NAME = re.compile(r"^lattice-(build|compile)-(\d+)-")
MS_NOSUID, MS_NODEV, MNT_DETACH = 2, 4, 2
_libc = ctypes.CDLL(None, use_errno=True)


def scratch_prefix(kind: str) -> str:
    """The `tempfile` prefix of a scratch folder owned by this process."""
    assert kind in KINDS
    return f"lattice-{kind}-{os.getpid()}-"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def sweep_stale_scratch(root: str | Path | None = None) -> list[Path]:
    """Remove scratch folders whose owning process is gone; return what was removed."""
    folder = Path(root or tempfile.gettempdir())
    swept: list[Path] = []
    try:
        entries = list(folder.iterdir())
    except OSError:
        return swept
    for entry in entries:
        match = _NAME.match(entry.name)
        if match is None or _alive(int(match.group(2))) or entry.is_symlink() or not entry.is_dir():
            continue
        if os.path.ismount(entry):  # a capped scratch tmpfs of a grader killed mid-build
            _libc.umount2(bytes(entry), MNT_DETACH)
        shutil.rmtree(entry, onerror=_make_writable_and_retry)
        if not entry.exists():
            swept.append(entry)
    return swept


def _make_writable_and_retry(function: Callable[[str], object], path: str, _exc: object) -> None:
    """A build may leave folders without write or search permission: open them up, retry."""
    try:
        parent = os.path.dirname(path)
        os.chmod(parent, os.stat(parent).st_mode | stat.S_IRWXU)
        if os.path.isdir(path) and not os.path.islink(path):
            os.chmod(path, os.stat(path).st_mode | stat.S_IRWXU)
        function(path)
    except OSError:
        pass


@contextmanager
def capped_scratch(root: str, size: int) -> Iterator[str | None]:
    """Mount a tmpfs of `size` bytes on the (empty) folder `root` for the block; yields None
    when capped, else why not (not root, not Linux, the mount refused)."""
    if not sys.platform.startswith("linux") or os.geteuid() != 0:
        yield "only root can mount a size-capped scratch folder"
        return
    options = f"size={size},mode=0700".encode()
    if _libc.mount(b"tmpfs", root.encode(), b"tmpfs", ctypes.c_ulong(MS_NOSUID | MS_NODEV), options) != 0:
        yield f"mounting a tmpfs failed: {os.strerror(ctypes.get_errno())}"
        return
    try:
        yield None
    finally:
        _libc.umount2(root.encode(), MNT_DETACH)


def disk_use(root: Path, stop_above: int) -> int:
    """Bytes of disk the files under `root` take (allocated blocks, links not followed),
    counted until past `stop_above`: a huge tree is not walked to its end."""
    total = 0
    folders = [str(root)]
    while folders:
        try:
            entries = list(os.scandir(folders.pop()))
        except OSError:
            continue
        for entry in entries:
            try:
                info = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            total += info.st_blocks * 512
            if stat.S_ISDIR(info.st_mode):
                folders.append(entry.path)
        if total > stop_above:
            break
    return total

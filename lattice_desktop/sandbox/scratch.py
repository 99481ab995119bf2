"""Scratch folders of builds and compiles, named for the process that owns them, so that
those of a grader killed mid-build (kill -9, a crash, power loss) are swept at the next
start instead of piling up in the temporary folder."""

from __future__ import annotations

import os
import re
import shutil
import stat
import tempfile
from pathlib import Path

KINDS = ("build", "compile")
_NAME = re.compile(r"^lattice-(build|compile)-(\d+)-")


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
    swept = []
    try:
        entries = list(folder.iterdir())
    except OSError:
        return swept
    for entry in entries:
        match = _NAME.match(entry.name)
        if match is None or _alive(int(match.group(2))) or entry.is_symlink() or not entry.is_dir():
            continue
        shutil.rmtree(entry, onerror=_make_writable_and_retry)
        if not entry.exists():
            swept.append(entry)
    return swept


def _make_writable_and_retry(function, path: str, _exc: object) -> None:
    """A build may leave folders without write or search permission: open them up, retry."""
    try:
        parent = os.path.dirname(path)
        os.chmod(parent, os.stat(parent).st_mode | stat.S_IRWXU)
        if os.path.isdir(path) and not os.path.islink(path):
            os.chmod(path, os.stat(path).st_mode | stat.S_IRWXU)
        function(path)
    except OSError:
        pass

"""What a test process left behind: child processes and scratch folders."""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path


def descendants(root: int | None = None) -> list[int]:
    """Live (not zombie) descendants of `root` (this process by default), read from /proc."""
    root = os.getpid() if root is None else root
    children: dict[int, list[int]] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            stat = Path(f"/proc/{name}/stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        if fields[0] == "Z":
            continue
        children.setdefault(int(fields[1]), []).append(int(name))
    found, todo = [], [root]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def with_environment(needle: bytes) -> list[int]:
    """Processes whose environment holds `needle` (a NAME=value entry)."""
    found = []
    for name in os.listdir("/proc"):
        if name.isdigit() and int(name) != os.getpid():
            try:
                if needle in Path(f"/proc/{name}/environ").read_bytes().split(b"\0"):
                    found.append(int(name))
            except OSError:
                pass
    return found


def wait_for_no_descendants(timeout: float = 30.0) -> list[int]:
    """Descendants still alive after `timeout` seconds (threads of ours are not processes)."""
    deadline = time.monotonic() + timeout
    while True:
        left = descendants()
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.05)


def scratch_folders(root: str | Path | None = None) -> list[str]:
    """Our build and compile scratch folders in `root` (the temp folder by default)."""
    root = root or tempfile.gettempdir()
    return sorted(n for n in os.listdir(root) if n.startswith(("lattice-build-", "lattice-compile-")))

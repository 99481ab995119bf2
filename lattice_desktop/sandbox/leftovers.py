"""What a grader killed mid-build or mid-compile leaves behind, removed once per process.

A grader killed with SIGKILL cannot clean up: its build's memory and pids cgroups and its
scratch folders stay. Every command that uses the sandbox compiles a module or starts a
build first, and both call `sweep_leftovers`: the first call in a process removes the
cgroups (`cgroup.sweep_stale_cgroups`) and scratch folders (`scratch.sweep_stale_scratch`)
whose grader is gone; later calls do nothing.
"""

from __future__ import annotations

import os
import threading

from lattice_desktop.sandbox.cgroup import sweep_stale_cgroups
from lattice_desktop.sandbox.scratch import sweep_stale_scratch

_lock = threading.Lock()
_swept: list[int] = []  # the pid that swept: a forked child sweeps again


def sweep_leftovers() -> None:
    """Remove what dead graders left, the first time this process uses the sandbox."""
    with _lock:
        if os.getpid() in _swept:
            return
        _swept.append(os.getpid())
    sweep_stale_cgroups()
    sweep_stale_scratch()

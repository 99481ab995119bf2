"""The app started as a user starts it: `python -c SCRIPT ARGS…` in its own process, on an
empty HOME (settings, data and caches under the test's folder), offscreen."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def run_app_script(script: str, *args: str, home: Path, timeout: float = 300) -> subprocess.CompletedProcess:
    env = {
        **os.environ,
        "HOME": str(home / "home"),
        "XDG_CONFIG_HOME": str(home / "config"),
        "XDG_DATA_HOME": str(home / "data"),
        "XDG_CACHE_HOME": str(home / "cache"),
        "LATTICE_DESKTOP_CACHE": str(home / "cache"),
        "QT_QPA_PLATFORM": "offscreen",
    }
    return subprocess.run(
        [sys.executable, "-c", script, *args],
        check=False,
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=timeout,
    )

""".ci/run cleans up however it ends and runs the README's test command as written.

The script runs in a copy of the checkout's shape where `.ci/postgres.sh` is a stand-in
that makes a folder (and deletes it on `stop`), `.ci/test_packages.sh` one that only logs, and `python3` on PATH is a stand-in whose
venv's pytest, ruff and mypy behave as each test asks: pass, fail, crash with a
segmentation fault, or hang until killed. The real postgres.sh is exercised by the
storage tests that .ci/run starts it for."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

FAKE_POSTGRES = """#!/usr/bin/env bash
set -euo pipefail
if [ "${1:-}" = stop ]; then rm -rf "$2"; echo stopped >> "$LOG"; exit 0; fi
folder=$(mktemp -d "$PG_TMP/lattice-pg.XXXXXX")
echo "$folder postgresql://postgres@127.0.0.1:1/postgres"
"""

FAKE_FONTS = """#!/usr/bin/env bash
echo fonts >> "$LOG"
"""

# `python3 -m venv .venv` writes a venv whose tools log their call and then do what
# $BEHAVE_<tool> says: "ok", "fail", "segv" or "hang".
FAKE_PYTHON3 = """#!/usr/bin/env bash
set -eu
[ "$1 $2 $3" = "-m venv .venv" ] || exit 99
mkdir -p .venv/bin
for tool in pip python ruff mypy; do
  cat > .venv/bin/$tool <<TOOL
#!/usr/bin/env bash
echo "$tool \\$*" | sed "s/ *\\$//" >> "\\$LOG"
name=$tool; [ "\\$name \\${1:-} \\${2:-}" = "python -m pytest" ] && name=pytest
what=\\$(printenv "BEHAVE_\\$name" || echo ok)
case "\\$what" in
  ok) exit 0 ;;
  fail) exit 1 ;;
  segv) kill -SEGV \\$\\$ ;;
  hang) echo \\$\\$ > "\\$LOG.hung"; sleep 600 ;;
esac
TOOL
  chmod +x .venv/bin/$tool
done
"""


@pytest.fixture
def checkout(tmp_path):
    """A folder shaped like the checkout, with the real .ci/run and the stand-ins."""
    repo = tmp_path / "repo"
    (repo / ".ci").mkdir(parents=True)
    shutil.copy(ROOT / ".ci" / "run", repo / ".ci" / "run")
    (repo / ".ci" / "postgres.sh").write_text(FAKE_POSTGRES)
    (repo / ".ci" / "postgres.sh").chmod(0o755)
    (repo / ".ci" / "test_packages.sh").write_text(FAKE_FONTS)
    (repo / ".ci" / "test_packages.sh").chmod(0o755)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "python3").write_text(FAKE_PYTHON3)
    (bin_dir / "python3").chmod(0o755)
    (tmp_path / "pg").mkdir()
    return repo


def environment(checkout: Path, **behave: str) -> dict[str, str]:
    env = {
        "PATH": f"{checkout.parent / 'bin'}:{os.environ['PATH']}",
        "LOG": str(checkout.parent / "log"),
        "PG_TMP": str(checkout.parent / "pg"),
        "HOME": str(checkout.parent),
    }
    env.update({f"BEHAVE_{tool}": what for tool, what in behave.items()})
    return env


def run_ci(checkout: Path, **behave: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(checkout / ".ci" / "run")],
        check=False,
        env=environment(checkout, **behave),
        capture_output=True,
        text=True,
        timeout=120,
    )


def calls(checkout: Path) -> list[str]:
    return (checkout.parent / "log").read_text().splitlines()


def pg_folders(checkout: Path) -> list[Path]:
    return list((checkout.parent / "pg").iterdir())


def test_ci_runs_the_readmes_test_command_as_written():
    readme = (ROOT / "README.md").read_text()
    set_up = re.findall(r"^    (python3 -m venv .venv && .*)$", readme, re.MULTILINE)
    assert len(set_up) == 2  # the README's two set-up commands: the app, and the tests
    test_command = next(c for c in set_up if "pytest" in c)
    assert test_command in (ROOT / ".ci" / "run").read_text()


def test_a_clean_run_runs_every_step_and_removes_the_server(checkout):
    done = run_ci(checkout)
    assert done.returncode == 0, done.stderr
    assert calls(checkout) == [
        "fonts",
        "pip install --no-compile -e .[test]",
        "python -m pytest",
        "ruff check .",
        "ruff format --check .",
        "mypy",
        "stopped",
    ]
    assert pg_folders(checkout) == []


@pytest.mark.parametrize(
    ("behave", "status"),
    [({"pytest": "segv"}, 139), ({"pytest": "fail"}, 1), ({"ruff": "fail"}, 1), ({"mypy": "fail"}, 1)],
)
def test_a_failing_or_crashing_step_still_lets_the_others_run_and_cleans_up(checkout, behave, status):
    done = run_ci(checkout, **behave)
    assert done.returncode == status
    assert "mypy" in calls(checkout)  # the last step ran whatever failed before it
    assert calls(checkout)[-1] == "stopped"
    assert pg_folders(checkout) == []
    assert "failed with exit status" in done.stderr


@pytest.mark.parametrize(("sig", "status"), [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_a_killed_run_stops_its_step_and_cleans_up(checkout, sig, status):
    ci = subprocess.Popen(
        [str(checkout / ".ci" / "run")],
        env=environment(checkout, pytest="hang"),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    hung = checkout.parent / "log.hung"
    for _ in range(600):  # until pytest's stand-in is running (a poll, not a timed assertion)
        if hung.exists() and hung.read_text().strip():
            break
        time.sleep(0.1)
    pytest_pid = int(hung.read_text())
    ci.send_signal(sig)
    assert ci.wait(timeout=60) == status
    assert calls(checkout)[-1] == "stopped"
    assert pg_folders(checkout) == []
    assert not running(pytest_pid)  # the hung step went with the run


def running(pid: int) -> bool:
    """Whether `pid` is a live process (a zombie left to a PID 1 that never reaps is not)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"

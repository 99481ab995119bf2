""".ci/test_packages.sh installs a desktop's fonts for the layout tests and Go for the pprof read-back only when they are missing and
the run may (root, apt-get), fetching the package lists only when an install needs them.
Stand-ins for dpkg-query, id and apt-get play the system; apt-get logs what it was asked."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = "fonts-dejavu fonts-noto fonts-noto-mono golang-go"

STAND_INS = {
    # Every package installed or none, as $INSTALLED says.
    "dpkg-query": """#!/usr/bin/env bash
for p in "${@:3}"; do
  if [ "$INSTALLED" = yes ]; then echo "install ok installed"; else echo "unknown ok not-installed"; fi
done
""",
    "id": """#!/usr/bin/env bash
echo "$AS_UID"
""",
    # `install` fails until `update` has fetched the lists ($LISTS: a file), or always ($APT=broken).
    "apt-get": """#!/usr/bin/env bash
echo "apt-get $*" >> "$LOG"
[ "${APT:-}" = broken ] && exit 100
case "$1" in
  update) touch "$LISTS" ;;
  install) [ -e "$LISTS" ] || exit 100 ;;
esac
""",
}


def packages(tmp_path: Path, *, installed: bool, uid: int, lists: bool = True, apt: str = "") -> tuple:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    for name, text in STAND_INS.items():
        (bin_dir / name).write_text(text)
        (bin_dir / name).chmod(0o755)
    if lists:
        (tmp_path / "lists").touch()
    script = tmp_path / "test_packages.sh"
    shutil.copy(ROOT / ".ci" / "test_packages.sh", script)
    done = subprocess.run(
        ["bash", str(script)],
        env={
            **os.environ,
            "PATH": f"{bin_dir}:{os.environ['PATH']}",
            "INSTALLED": "yes" if installed else "no",
            "AS_UID": str(uid),
            "LOG": str(tmp_path / "log"),
            "LISTS": str(tmp_path / "lists"),
            "APT": apt,
        },
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    log = tmp_path / "log"
    return done, log.read_text().splitlines() if log.exists() else []


@pytest.mark.parametrize("uid", [0, 1000])
def test_installed_packages_are_left_alone(tmp_path, uid):
    done, calls = packages(tmp_path, installed=True, uid=uid)
    assert done.returncode == 0 and "are installed" in done.stdout
    assert calls == []


def test_without_root_it_installs_nothing_and_says_why(tmp_path):
    done, calls = packages(tmp_path, installed=False, uid=1000)
    assert done.returncode == 0 and "needs root and apt-get" in done.stdout
    assert calls == []


@pytest.mark.parametrize("lists", [True, False])
def test_as_root_it_installs_them_and_fetches_the_lists_only_when_needed(tmp_path, lists):
    done, calls = packages(tmp_path, installed=False, uid=0, lists=lists)
    assert done.returncode == 0, done.stderr
    install = f"apt-get install -y -q --no-install-recommends {PACKAGES}"
    assert calls == ([install] if lists else [install, "apt-get update -q", install])
    assert f"installed {PACKAGES}" in done.stdout


def test_an_install_that_fails_fails_the_step(tmp_path):
    done, _ = packages(tmp_path, installed=False, uid=0, apt="broken")
    assert done.returncode != 0
    assert "test packages: installed" not in done.stdout

"""The suite writes nothing outside pytest's temp folder, checked at the end of the session.

`install` (tests/conftest.py calls it; `-p tests.leak_check` loads it into any pytest) points
TMPDIR, and with it everything that asks `tempfile` or Qt for a temporary folder (dask's
scratch space, PyInstaller's work folder, a subprocess's `mktemp`), into the session's own
temp folder. The process that runs the session (the xdist controller, or the one process of
`-n 0`) lists the real temp roots, the home folder and the caches under it when the session
starts, and fails the session when an entry that the suite could have made is there at the
end and was not at the start, naming it.

Other programs on the machine write into /tmp and the home folder too, so an entry counts
only if its name looks like the suite's: the app's own names, the folders its libraries make
there, the kinds of files it writes (screenshots, databases, scenarios, modules, profiles).
An entry that is there at the start (a previous run's) is not this run's. A name `tempfile`
made (tmpXXXXXXXX, or a prefix and 8 random characters) is left out too: with TMPDIR pointed
away the suite makes none in the real root, while every other Python program on the machine
does (another checkout's app and tests among them, with the app's own prefixes).
"""

from __future__ import annotations

import os
import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import pytest

# Top-level names the suite, the app or the tools it starts could leave behind.
SUITE_MADE = re.compile(
    r"""(?ix)^(
        .*lattice.* | dask-.* | \.?zig.* | inspect_ai | pyinstaller | qtproject.*
      | fontconfig | \.hypothesis | \.(cache|config|local)
      | .*\.(png|svg|jpe?g|db|db-wal|db-shm|db-journal|sqlite3?|lat|wasm|wat|u64|callgrind|eval
             |csv|html|dot|json|jsonl|toml|zip|tar|tar\.gz|tgz)
    )$"""
)
TEMPFILE_MADE = re.compile(r"^(tmp|.*[-_.])[a-z0-9_]{8}$")
# Folders under the home folder whose new entries count: where programs keep caches, settings
# and data when XDG_* are not set (conftest sets them for the suite).
HOME_FOLDERS = (".", ".cache", ".config", ".local/share", ".local/state")


SYSTEM_TMPDIR = "LATTICE_TEST_SYSTEM_TMPDIR"  # the real temp root, for the session's processes


def system_temp_root() -> Path:
    """The system's temp root, for the rare test that hands a folder to another user (a
    PostgreSQL server run as `postgres`): pytest's folders are its own user's alone. Such a
    test makes a `tempfile` folder there and removes it."""
    return Path(os.environ.get(SYSTEM_TMPDIR) or "/tmp")


def watched_folders(temp_root: Path) -> list[Path]:
    folders = [temp_root, Path("/tmp"), Path("/var/tmp")]
    home = Path.home()
    folders += [home / sub for sub in HOME_FOLDERS]
    unique: dict[Path, None] = {}
    for folder in folders:
        unique.setdefault(folder.resolve() if folder.exists() else folder, None)
    return list(unique)


def entries(folder: Path) -> set[str]:
    try:
        return {entry.name for entry in os.scandir(folder)}
    except OSError:  # not there (yet), or not ours to read
        return set()


@dataclass
class LeakCheck:
    folders: list[Path]
    own: set[Path]  # the session's temp folder and pytest's folder of the user's sessions
    before: dict[Path, set[str]] = field(default_factory=dict)
    found: list[Path] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.before = {folder: entries(folder) for folder in self.folders}

    def new_entries(self) -> list[Path]:
        made = []
        for folder, names in self.before.items():
            for name in sorted(entries(folder) - names):
                path = folder / name
                if SUITE_MADE.match(name) and not TEMPFILE_MADE.match(name) and path not in self.own:
                    made.append(path)
        return made

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        self.found = self.new_entries()
        if self.found and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def pytest_terminal_summary(self, terminalreporter) -> None:
        if not self.found:
            return
        terminalreporter.section("written outside pytest's temp folder", sep="=", red=True)
        for path in self.found:
            terminalreporter.line(f"{path}{'/' if path.is_dir() else ''}")
        terminalreporter.line(
            "A test (or what it started) made these during the run: write into tmp_path, "
            "or pass the tool a folder there."
        )


def install(config: pytest.Config) -> None:
    """Redirect TMPDIR into the session's temp folder; in the process that runs the session,
    start the check. Call it after pytest's own configure (its temp folder factory)."""
    if config.pluginmanager.has_plugin("lattice-leak-check"):
        return
    basetemp = config._tmp_path_factory.getbasetemp()
    real_root = Path(tempfile.gettempdir())
    os.environ.setdefault(SYSTEM_TMPDIR, str(real_root))  # a worker keeps its controller's
    redirected = basetemp / "tmp"
    redirected.mkdir(exist_ok=True)
    os.environ["TMPDIR"] = str(redirected)
    tempfile.tempdir = str(redirected)
    check = None
    if not hasattr(config, "workerinput"):  # a worker leaves the check to its controller
        # pytest-of-USER is pytest's own, and pytest removes what it made there.
        own = {basetemp.resolve(), basetemp.resolve().parent}
        check = LeakCheck(folders=watched_folders(real_root), own=own)
    config.pluginmanager.register(check or object(), "lattice-leak-check")


@pytest.hookimpl(trylast=True)
def pytest_configure(config: pytest.Config) -> None:
    install(config)

"""Issue 45 item 1: the Source and Lines views read nothing a submitter cannot.

The review made 1,118 of 5,000 `source_text` calls and 222 of 1,000 `run_sources` calls
return a 0600 root-only file: the reader checked a line table's file name, then opened it
again following links, so a submitter (another uid) flipping a folder on the way to a link
in between made the app read, with its own rights, a file outside the submission. Here a
swapper running as an unprivileged uid (when the test runs as root) flips every folder on
the way, the submission folder itself included, between the real folder and a link to a
tree of the same shape whose file is root's secret; every read must give the submission's
own source or None, never the secret.
"""

from __future__ import annotations

import json
import os
import select
import time
import traceback
from dataclasses import dataclass
from pathlib import Path

import pytest

from lattice_desktop.cli.main import main
from lattice_desktop.services.profiling import run_sources, source_text
from lattice_desktop.store.database import open_database
from tests.core.wat_cases import ECHO, ECHO_CASES, write_case, write_submission

SOURCE = "a/b/c/echo.c"
HONEST = "/* the submission's own source */\nint echo(void) { return 0; }\n"
SECRET = "/* root's secret: no submitter may read this */\nint key = 42;\n"
SOURCE_READS = 5000
RUN_READS = 1000
NOBODY = 65534


@dataclass
class Field:
    case: Path
    folder: Path
    flips: list[tuple[str, str]]  # (a folder on the way, from field/, its link's tree)


def _field(tmp_path: Path) -> Field:
    """A submission holding its source three folders deep, owned by the submitter (nobody,
    when run as root), and beside it, for each folder on the way, a tree of the same shape
    whose source is root's 0600 secret."""
    case = write_case(tmp_path / "case", ECHO_CASES)
    folder = write_submission(tmp_path / "field" / "racer", ECHO)
    (folder / SOURCE).parent.mkdir(parents=True)
    (folder / SOURCE).write_text(HONEST)
    flips = []
    walked = Path("racer")
    for depth, part in enumerate(["", *SOURCE.split("/")[:-1]]):
        walked = walked / part if part else walked
        tree = tmp_path / "other" / f"level-{depth}"
        target = tree.joinpath(*SOURCE.split("/")[depth:])
        target.parent.mkdir(parents=True)
        target.write_text(SECRET)
        os.chmod(target, 0o600)
        flips.append((str(walked), str(tree)))
    if os.geteuid() == 0:
        for path in [tmp_path / "field", *(tmp_path / "field").rglob("*")]:
            os.chown(path, NOBODY, NOBODY, follow_symlinks=False)
    return Field(case, folder, flips)


def _swap(flips: list[tuple[str, str]], stop: int) -> int:
    """Flip each folder to a link (absolute and relative in turn) and back until `stop`
    (a pipe's read end) is readable; the number of flips."""
    count = 0
    while not select.select([stop], [], [], 0)[0]:
        for folder, tree in flips:
            aside = folder + ".real"
            link = tree if count % 2 else os.path.relpath(tree, os.path.dirname(os.path.abspath(folder)))
            os.rename(folder, aside)
            os.symlink(link, folder)
            time.sleep(0.0001)
            os.unlink(folder)
            os.rename(aside, folder)
            count += 1
            time.sleep(0.0001)  # the real tree stands for a moment too: honest reads happen
    return count


class Swapper:
    """The submitter: a forked process, as nobody when the test is root (the uid changed
    after the fork, so no interpreter need be readable by nobody), flipping each folder of
    `flips` (relative to `cwd`) to a link and back until the block ends."""

    def __init__(self, cwd: Path, flips: list[tuple[str, str]]) -> None:
        self.cwd, self.flips = cwd, flips
        self.count = 0
        self.uid = -1

    def __enter__(self) -> Swapper:
        self.stop_read, self.stop_write = os.pipe()
        report_read, report_write = os.pipe()
        self.pid = os.fork()
        if self.pid == 0:  # the child: never returns into pytest
            code = 1
            try:
                os.chdir(self.cwd)
                if os.geteuid() == 0:
                    os.setgroups([])
                    os.setgid(NOBODY)
                    os.setuid(NOBODY)
                os.write(report_write, f"{os.geteuid()}\n".encode())
                os.write(report_write, f"{_swap(self.flips, self.stop_read)}\n".encode())
                code = 0
            except BaseException:
                traceback.print_exc()
            finally:
                os._exit(code)
        os.close(report_write)
        self.report = os.fdopen(report_read, "r")
        self.uid = int(self.report.readline())
        return self

    def __exit__(self, *_exc: object) -> None:
        os.write(self.stop_write, b"x")
        self.count = int(self.report.readline() or -1)
        _, status = os.waitpid(self.pid, 0)
        self.report.close()
        os.close(self.stop_read)
        os.close(self.stop_write)
        assert os.waitstatus_to_exitcode(status) == 0, "the swapper failed"


def _tally(seen: dict[str, int], text: str | None) -> None:
    key = (
        "refused" if text is None else "honest" if text == HONEST else "secret" if text == SECRET else "other"
    )
    seen[key] += 1


def test_no_source_read_reaches_a_file_outside_the_submission(tmp_path):
    field = _field(tmp_path)
    names = [SOURCE, str(field.folder / SOURCE)]  # a line table names files either way
    assert source_text(str(field.folder), names[0]) == source_text(str(field.folder), names[1]) == HONEST
    seen = {"honest": 0, "refused": 0, "secret": 0, "other": 0}
    with Swapper(tmp_path / "field", field.flips) as swapper:
        for index in range(SOURCE_READS):
            _tally(seen, source_text(str(field.folder), names[index % 2]))
    assert swapper.uid == (NOBODY if os.geteuid() == 0 else os.geteuid())
    assert seen["secret"] == 0, f"{seen['secret']} of {SOURCE_READS} reads returned root's file: {seen}"
    assert seen["other"] == 0, seen
    assert swapper.count > len(field.flips) * 10, "the swapper never raced the reads"
    assert seen["honest"] > 0 and seen["refused"] > 0, seen


def test_no_stored_runs_source_reaches_a_file_outside_the_submission(tmp_path, capsys):
    """What the Source and Lines views call on a stored run."""
    field = _field(tmp_path)
    database = tmp_path / "runs.db"
    assert main(["grade", str(field.folder), "--case", str(field.case), "--db", str(database), "--json"]) == 0
    run_id = json.loads(capsys.readouterr().out)["run_id"]
    open_database(database)
    names = [SOURCE, str(field.folder / SOURCE)]
    assert run_sources(run_id, names) == dict.fromkeys(names, HONEST)
    seen = {"honest": 0, "refused": 0, "secret": 0, "other": 0}
    with Swapper(tmp_path / "field", field.flips) as swapper:
        for _ in range(RUN_READS):
            for text in run_sources(run_id, names).values():
                _tally(seen, text)
    assert seen["secret"] == 0, f"{seen['secret']} of {2 * RUN_READS} reads returned root's file: {seen}"
    assert seen["other"] == 0, seen
    assert swapper.count > 0 and seen["honest"] > 0, seen


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("../../other/level-0/a/b/c/echo.c", "outside the submission folder"),
        ("/etc/passwd", "outside the submission folder"),
        ("a/b/c/linked.c", "is a link to a file outside the submission folder"),
        ("a/b", "not a regular file"),
        ("a/b/missing.c", "does not exist"),
    ],
)
def test_a_name_leading_out_of_the_folder_is_a_located_refusal(tmp_path, name, why):
    from lattice_desktop.profile.source_files import SourceRefused, read_source

    field = _field(tmp_path)
    (field.folder / "a/b/c/linked.c").symlink_to(tmp_path / "other" / "level-3" / "echo.c")
    with pytest.raises(SourceRefused, match=why) as refused:
        read_source(field.folder, name)
    assert name in str(refused.value)
    assert source_text(str(field.folder), name) is None


def test_a_link_inside_the_folder_is_followed(tmp_path):
    field = _field(tmp_path)
    (field.folder / "echo.c").symlink_to(Path("a/b/c/echo.c"))
    assert source_text(str(field.folder), "echo.c") == HONEST
    assert source_text(str(field.folder), "a/b/../b/c/echo.c") == HONEST

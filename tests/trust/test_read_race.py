"""Issue 33 item 1: no race forges a verdict.

The review stored 3 of 30 `grade` runs ✓ correct with another submission's 0600 module (91
of 2,000 direct reads): the loader resolved the module's path, then opened it, and only the
last component refused a link, so a submitter flipping a folder on the path to a link in
between made the grader read a file outside the submission. Here a swapper thread flips
every folder on the way (the submission folder itself included) between the real folder and
a link to a tree holding a "secret" module, while the real readers run: each read must give
the submission's own module or a clear refusal, never the secret.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
import wasmtime

from lattice_desktop.cli.common import EXIT_INTERNAL
from lattice_desktop.cli.main import main
from lattice_desktop.errors import UserError
from lattice_desktop.manifest import Submission, load_submission
from lattice_desktop.sandbox.beneath import MAX_COPY_DEPTH
from lattice_desktop.sandbox.build import _copy_submission, load_shipped_module
from lattice_desktop.services.profiling import submission_target
from tests.core.wat_cases import ECHO, ECHO_CASES, write_case, write_submission

MODULE = "a/b/c/module.wasm"
# Also a correct echo, so a leaked read would be graded ✓ correct: only its bytes differ.
SECRET = ECHO.replace("(module", '(module (func (export "secret_of_another_submission"))', 1)
LOADS = 12000
GRADES = 40
COPIES = 400


@dataclass
class Field:
    case: Path
    folder: Path
    honest: bytes
    secret: bytes
    flips: list[tuple[Path, Path]]  # (a folder on the module's path, the tree its link points to)


def _field(tmp_path: Path) -> Field:
    """A submission whose module lies three folders deep, and beside it, for each folder on
    the way, a tree of the same shape whose module is another submission's 0600 secret."""
    case = write_case(tmp_path / "case", ECHO_CASES)
    folder = write_submission(tmp_path / "field" / "racer", ECHO)
    (folder / "a" / "b" / "c").mkdir(parents=True)
    (folder / "module.wasm").rename(folder / MODULE)
    manifest = folder / "submission.toml"
    manifest.write_text(manifest.read_text().replace('"module.wasm"', f'"{MODULE}"'))
    secret = bytes(wasmtime.wat2wasm(SECRET))
    flips = []
    walked = folder
    for depth, part in enumerate(["", *MODULE.split("/")[:-1]]):
        walked = walked / part if part else walked
        rest = MODULE.split("/")[depth:]
        tree = tmp_path / "other" / f"level-{depth}"
        target = tree.joinpath(*rest)
        target.parent.mkdir(parents=True)
        target.write_bytes(secret)
        os.chmod(target, 0o600)
        if os.geteuid() == 0:
            os.chown(target, 65534, 65534)  # another user's module: only root reads it
        flips.append((walked, tree))
    return Field(case, folder, (folder / MODULE).read_bytes(), secret, flips)


SWAP = """
import os, signal, sys, time
flips = [(sys.argv[i], sys.argv[i + 1]) for i in range(1, len(sys.argv), 2)]
count = 0
stop = []
signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
print("ready", flush=True)
while not stop:
    for folder, tree in flips:
        aside = folder + ".real"
        link = tree if count % 2 else os.path.relpath(tree, os.path.dirname(folder))
        os.rename(folder, aside)
        os.symlink(link, folder)
        time.sleep(0.0001)
        os.unlink(folder)
        os.rename(aside, folder)
        count += 1
        time.sleep(0.0001)  # the real tree stands for a moment too: honest reads happen
print(count)
"""


class Swapper:
    """Another process (as a submitter's would be) flipping each folder of `flips` to a link,
    absolute and relative in turn, and back, until the block ends."""

    def __init__(self, flips: list[tuple[Path, Path]]) -> None:
        self.argv = [sys.executable, "-c", SWAP, *(str(p) for pair in flips for p in pair)]
        self.count = 0

    def __enter__(self) -> Swapper:
        self.process = subprocess.Popen(self.argv, stdout=subprocess.PIPE, text=True)
        assert self.process.stdout is not None
        assert self.process.stdout.readline() == "ready\n"
        return self

    def __exit__(self, *_exc: object) -> None:
        self.process.terminate()
        output, _ = self.process.communicate()
        self.count = int(output)


def _read(field: Field, loaded: Submission | None) -> bytes | None:
    """One read by the loaders graders use; None for a refusal (which must say why)."""
    try:
        submission = loaded if loaded is not None else load_submission(field.folder)
        shipped = load_shipped_module(submission, 1 << 20)
    except UserError as exc:
        assert str(exc)
        return None
    assert shipped.module is not None or shipped.detail
    return shipped.module


def test_no_direct_read_reaches_a_file_outside_the_submission(tmp_path):
    field = _field(tmp_path)
    loaded_before = load_submission(field.folder)
    seen = {"honest": 0, "refused": 0, "secret": 0}
    with Swapper(field.flips) as swapper:
        for index in range(LOADS):
            data = _read(field, loaded_before if index % 2 else None)
            seen["refused" if data is None else "honest" if data == field.honest else "secret"] += 1
            if data is not None:
                assert data in (field.honest, field.secret)
            if index % 20 == 0:
                try:
                    wasm = submission_target(str(field.folder), str(field.case)).wasm
                except UserError:
                    continue
                assert wasm == field.honest, "profile read another submission's module"
    assert seen["secret"] == 0, f"{seen['secret']} of {LOADS} reads returned the secret module: {seen}"
    assert swapper.count > len(field.flips) * 10, "the swapper never raced the reads"
    assert seen["honest"] > 0 and seen["refused"] > 0, seen


def test_no_graded_run_stores_another_submissions_module(tmp_path, capsys):
    field = _field(tmp_path)
    database = tmp_path / "runs.db"
    command = ["grade", str(field.folder), "--case", str(field.case), "--db", str(database)]
    with Swapper(field.flips) as swapper:
        codes = [main(command) for _ in range(GRADES)]
    captured = capsys.readouterr()
    assert swapper.count > 0
    assert EXIT_INTERNAL not in codes, captured.err  # a refusal is a verdict or a usage error
    assert "Traceback" not in captured.err
    with sqlite3.connect(database) as db:
        stored = db.execute(
            "SELECT s.module_sha256, r.verdict FROM run r JOIN submission s ON r.submission_id = s.id"
        ).fetchall()
    forged = [verdict for digest, verdict in stored if digest == hashlib.sha256(field.secret).hexdigest()]
    assert forged == [], f"{len(forged)} of {GRADES} runs stored another submission's module: {forged}"
    assert {d for d, _ in stored} <= {hashlib.sha256(field.honest).hexdigest(), None}
    assert codes.count(0) > 0, "no run was graded while racing"


def test_a_builds_copy_never_holds_a_file_outside_the_submission(tmp_path):
    """The scratch copy a build starts from (handed to the build's user afterwards) is read
    from the folder's descriptor too: it holds the submission's files or fails, never the
    secret."""
    field = _field(tmp_path)
    submission = load_submission(field.folder)
    copied = {"whole": 0, "refused": 0, "secret": 0}
    assert _copy_submission(submission, tmp_path / "calm", []) is None
    assert (tmp_path / "calm" / MODULE).read_bytes() == field.honest
    problems = set()
    with Swapper(field.flips) as swapper:
        for index in range(COPIES):
            target = tmp_path / "copies" / str(index)
            problem = _copy_submission(submission, target, [])
            files = [Path(d, f) for d, _, fs in os.walk(target) for f in fs]
            held = [p.read_bytes() for p in files if p.is_file() and not p.is_symlink()]
            copied["secret"] += field.secret in held
            copied["refused" if problem else "whole"] += 1
            if problem is not None:
                problems.add(problem.split(":")[0])
    assert copied["secret"] == 0, copied
    assert swapper.count > 0
    assert problems <= {"the submission folder could not be copied"}, problems


@pytest.mark.parametrize("depth", [0, 1, 3])
def test_a_link_on_the_way_is_a_located_refusal(tmp_path, depth):
    field = _field(tmp_path)
    submission = load_submission(field.folder)
    folder, tree = field.flips[depth]
    folder.rename(folder.with_name(folder.name + ".real"))
    folder.symlink_to(tree)
    shipped = load_shipped_module(submission, 1 << 20)
    assert shipped.module is None
    assert shipped.detail.startswith(MODULE), shipped.detail
    assert ("link" if depth else "changed while it was being graded") in shipped.detail, shipped.detail


def test_a_relative_link_climbing_out_of_the_folder_is_refused(tmp_path):
    """A link inside the folder is walked from the descriptors already held, so '..' in its
    target can never climb above the submission folder."""
    field = _field(tmp_path)
    module = field.folder / MODULE
    module.unlink()
    module.symlink_to(Path("..", "..", "..", "..", "..", "other", "level-3", "module.wasm"))
    shipped = load_shipped_module(load_submission(field.folder), 1 << 20)
    assert shipped.module is None
    assert f"{MODULE} was not read" in shipped.detail and "outside the submission folder" in shipped.detail


def test_a_manifest_linked_from_elsewhere_is_refused(tmp_path):
    field = _field(tmp_path)
    elsewhere = write_submission(tmp_path / "elsewhere", ECHO, model="not-the-racer")
    (field.folder / "submission.toml").unlink()
    (field.folder / "submission.toml").symlink_to(elsewhere / "submission.toml")
    with pytest.raises(UserError, match=r"submission\.toml is a link to a file outside its folder"):
        load_submission(field.folder)


def test_a_folder_nested_too_deeply_is_a_clear_copy_failure(tmp_path):
    field = _field(tmp_path)
    deep = field.folder.joinpath(*["d"] * (MAX_COPY_DEPTH + 2))
    deep.mkdir(parents=True)
    problem = _copy_submission(load_submission(field.folder), tmp_path / "copy", [])
    assert problem is not None and f"more than {MAX_COPY_DEPTH} folders deep" in problem

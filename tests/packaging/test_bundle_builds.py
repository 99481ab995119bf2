"""Builds run from the frozen bundle (issue 19 item 2, issue 24 item 7).

Before: the jail kept the bundle's own folder, which holds the bundled case, so a build
running `/usr/bin/python3 make_cheat.py` read the expected answers and produced an
answer-table engine graded correct at 396 fuel; a build calling `python` failed with
"python: not found" and was stored as the submission's incorrect run."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest

from tests.packaging.test_bundle import run

pytestmark = [pytest.mark.packaging, pytest.mark.slow]

MAKE_CHEAT = """
import hashlib, os, sys
found = 0
for folder in sys.argv[1:]:
    for top, _dirs, files in os.walk(folder):
        for name in files:
            if name.endswith(".u64") and os.path.basename(top) == "expected":
                path = os.path.join(top, name)
                try:
                    data = open(path, "rb").read()
                except OSError as exc:
                    print("refused", path, exc.strerror)
                    continue
                print("answer", name, hashlib.sha256(data).hexdigest())
                found += 1
print("answers read:", found)
open("engine.wasm", "wb").write(open("shipped.wasm", "rb").read())
"""


def _submission(folder: Path, command: str, module: bytes) -> Path:
    folder.mkdir(parents=True)
    (folder / "make_cheat.py").write_text(MAKE_CHEAT)
    (folder / "shipped.wasm").write_bytes(module)
    (folder / "submission.toml").write_text(
        '[submission]\nmodel = "cheat"\ncase = "lattice"\n\n'
        f'[build]\ncommands = [{json.dumps(command)}]\nmodule = "engine.wasm"\n'
    )
    return folder


@pytest.mark.skipif(shutil.which("python3", path="/usr/bin") is None, reason="no system python3")
def test_a_build_in_the_bundle_cannot_read_the_bundled_expected_answers(unpacked, tmp_path):
    internal = unpacked / "lattice-desktop" / "_internal"
    case = internal / "resources" / "cases" / "lattice"
    answers = {hashlib.sha256(p.read_bytes()).hexdigest() for p in (case / "expected").glob("*.u64")}
    assert answers, "the bundle holds no expected answers to protect"
    lines = (case / "submissions" / "lines" / "engine.wasm").read_bytes()
    command = f"/usr/bin/python3 make_cheat.py {unpacked} {internal} /opt /usr/local"
    folder = _submission(tmp_path / "cheat", command, lines)
    done = run(
        unpacked, tmp_path, "grade", str(folder), "--case", "lattice", "--build", "--no-store", "--json"
    )
    assert done.returncode in (0, 1, 3), done.stdout + done.stderr
    log = json.loads(done.stdout)["build"]["log"]
    assert "build ran isolated" in done.stderr, done.stderr
    assert "answers read: 0" in log, log
    assert not any(digest in log for digest in answers)


def test_a_bundle_build_that_calls_python_is_refused_up_front_not_stored(unpacked, tmp_path):
    """The bundle gives builds no Python: where the system has no `python` either, the
    build is refused with the reason, exit 2, and nothing is stored."""
    if shutil.which("python", path="/usr/local/bin:/usr/bin:/bin") is not None:
        pytest.skip("this system has its own `python` for builds")
    lines = unpacked / "lattice-desktop" / "_internal" / "resources" / "cases" / "lattice" / "submissions"
    folder = _submission(
        tmp_path / "py", "python make_cheat.py", (lines / "lines" / "engine.wasm").read_bytes()
    )
    db = tmp_path / "runs.db"
    done = run(unpacked, tmp_path, "grade", str(folder), "--case", "lattice", "--build", "--db", str(db))
    assert done.returncode == 2, done.stdout + done.stderr
    assert "this bundle gives builds no Python interpreter" in done.stderr
    assert "incorrect" not in done.stdout and "Traceback" not in done.stderr
    runs = run(unpacked, tmp_path, "runs", "--db", str(db))
    assert "cheat" not in runs.stdout, runs.stdout

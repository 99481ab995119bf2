"""The batch core imports and grades without dask; only the cluster needs it, and its
absence is a clear message, not a traceback."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

BLOCK_DASK = """
import importlib.abc, pkgutil, importlib, sys
class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name.split('.')[0] in ('dask', 'distributed'):
            raise ImportError('no dask here: ' + name)
sys.meta_path.insert(0, Block())
import lattice_desktop.batch
for m in pkgutil.walk_packages(lattice_desktop.batch.__path__, 'lattice_desktop.batch.'):
    if m.name != 'lattice_desktop.batch.dask_backend':
        importlib.import_module(m.name)
from lattice_desktop.batch.backend import SerialBackend
from lattice_desktop.batch.driver import grade_batch
from lattice_desktop.batch.field import find_submissions
from lattice_desktop.manifest import load_case
case = load_case(sys.argv[1])
subs, _ = find_submissions([sys.argv[2]])
print(grade_batch(case, subs, backend=SerialBackend()).runs[0].report.verdict.value)
from lattice_desktop.cli.main import main
sys.exit(main(['grade-batch', sys.argv[2], '--case', sys.argv[1], '--db', sys.argv[3]]))
"""


def test_the_batch_core_runs_without_dask_and_the_cli_says_what_is_missing(tmp_path):
    from tests.batch.fields import echo_case
    from tests.core.wat_cases import ECHO, write_submission

    case = echo_case(tmp_path / "case")
    write_submission(tmp_path / "field" / "echo", ECHO)
    done = subprocess.run(
        [sys.executable, "-c", BLOCK_DASK, str(case), str(tmp_path / "field"), str(tmp_path / "l.db")],
        check=False,
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert done.stdout.strip() == "correct", done.stderr
    assert done.returncode == 2
    assert (
        "needs dask.distributed, which is missing from this Python environment: pip install 'dask[distributed]"
        in done.stderr
    )

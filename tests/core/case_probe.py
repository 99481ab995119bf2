"""The probe of issue 36: a submission that ships its own copy of the bundled `lattice` case
(cut down to its smoke tests and smallest stress case, so the content differs) at the
bundled version and at a version never published, graded through the real CLI after
`lines` on the real case. Both versions are read from the case's own files, so the probe
follows the bundle when it moves to a new version."""

from __future__ import annotations

import re
import shutil
from dataclasses import dataclass
from pathlib import Path

import tomli

from lattice_desktop.cli.main import main
from lattice_desktop.manifest import load_case
from lattice_desktop.resources import CASES

REAL = CASES / "lattice"
LINES = REAL / "submissions" / "lines"
BUNDLED = load_case(REAL / "case.toml").version  # the version the bundle holds today
# A version no release of the case has used: one past the last one published.
UNPUBLISHED = 1 + max(p["version"] for p in tomli.loads((REAL / "published.toml").read_text())["published"])
SAME, NEVER = "impostor-bundled", "impostor-unpublished"  # the copies' models


def lattice_copy(folder: Path, version: int) -> Path:
    """The bundled case under its own name at `version`, with its stress cases cut to the
    smallest: the same name, another content."""
    folder.mkdir(parents=True)
    text = (REAL / "case.toml").read_text()
    kept = text[: text.index('[[case]]\nname = "stress-128"')]
    kept, count = re.subn(r"^version = \d+$", f"version = {version}", kept, count=1, flags=re.M)
    assert count == 1, "the bundled case.toml has no version line"
    (folder / "case.toml").write_text(kept)
    for sub in ("smoke", "expected"):
        shutil.copytree(REAL / sub, folder / sub)
    (folder / "stress").mkdir()
    for name in re.findall(r'input_file = "stress/(.+?)"', kept):
        shutil.copy(REAL / "stress" / name, folder / "stress")
    return folder


def impostor(folder: Path, model: str, version: int) -> Path:
    """A submission (the `lines` engine, prebuilt) shipping its own `lattice` at `version`."""
    folder.mkdir(parents=True)
    shutil.copy(LINES / "engine.wasm", folder)
    lattice_copy(folder / "case", version)
    (folder / "submission.toml").write_text(
        f'[submission]\nmodel = "{model}"\ncase = "case"\n\n[build]\nmodule = "engine.wasm"\n'
    )
    return folder


@dataclass(frozen=True)
class Probe:
    folder: Path  # the submissions, each beside its copy of the case (folder / model)
    db: Path
    real: str  # the registered content hash
    same: str  # the copy's content at the bundled version
    never: str  # the copy's content at a version never published
    run_ids: dict[str, int]  # model -> its run

    @property
    def args(self) -> list[str]:
        return ["--db", str(self.db)]


def build_probe(folder: Path) -> Probe:
    """`lines` on the real case, then the two copies graded last (runs 1, 2 and 3)."""
    db = folder / "runs.db"
    real = load_case(REAL / "case.toml").manifest_hash
    assert main(["grade", str(LINES), "--case", "lattice", "--db", str(db)]) == 0
    copies = {
        model: impostor(folder / model, model, v) for model, v in ((SAME, BUNDLED), (NEVER, UNPUBLISHED))
    }
    for sub in copies.values():
        assert main(["grade", str(sub), "--db", str(db)]) == 0  # ✓ correct on its own copy
    same, never = (load_case(copies[m] / "case" / "case.toml").manifest_hash for m in (SAME, NEVER))
    assert len({real, same, never}) == 3
    return Probe(folder, db, real, same, never, {"sample-lines": 1, SAME: 2, NEVER: 3})

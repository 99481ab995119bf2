"""The probe of issue 36: a submission that ships its own copy of the bundled `lattice` case
(cut down to its smoke tests and smallest stress case, so the content differs) at the
bundled version and at a version no bundled case has, graded through the real CLI after
`lines` on the real case."""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

from lattice_desktop.cli.main import main
from lattice_desktop.manifest import load_case
from lattice_desktop.resources import CASES

REAL = CASES / "lattice"
LINES = REAL / "submissions" / "lines"


def lattice_copy(folder: Path, version: int) -> Path:
    """The bundled case under its own name at `version`, with its stress cases cut to the
    smallest: the same name, another content."""
    folder.mkdir(parents=True)
    text = (REAL / "case.toml").read_text()
    kept = text[: text.index('[[case]]\nname = "stress-128"')]
    (folder / "case.toml").write_text(kept.replace("version = 3", f"version = {version}", 1))
    for sub in ("smoke", "expected"):
        shutil.copytree(REAL / sub, folder / sub)
    (folder / "stress").mkdir()
    shutil.copy(REAL / "stress" / "stress-64.lat", folder / "stress")
    return folder


def impostor(folder: Path, version: int) -> Path:
    """A submission (the `lines` engine, prebuilt) shipping its own `lattice` at `version`."""
    folder.mkdir(parents=True)
    shutil.copy(LINES / "engine.wasm", folder)
    lattice_copy(folder / "case", version)
    (folder / "submission.toml").write_text(
        f'[submission]\nmodel = "impostor-v{version}"\ncase = "case"\n\n[build]\nmodule = "engine.wasm"\n'
    )
    return folder


@dataclass(frozen=True)
class Probe:
    folder: Path  # the submissions, each beside its copy of the case
    db: Path
    real: str  # the registered content hash
    v3: str  # the copy's content at the bundled version
    v4: str  # the copy's content at a version no bundled case has
    run_ids: dict[str, int]  # model -> its run

    @property
    def args(self) -> list[str]:
        return ["--db", str(self.db)]


def build_probe(folder: Path) -> Probe:
    """`lines` on the real case, then the two copies graded last (runs 1, 2 and 3)."""
    db = folder / "runs.db"
    real = load_case(REAL / "case.toml").manifest_hash
    assert main(["grade", str(LINES), "--case", "lattice", "--db", str(db)]) == 0
    copies = {version: impostor(folder / f"impostor-v{version}", version) for version in (3, 4)}
    for sub in copies.values():
        assert main(["grade", str(sub), "--db", str(db)]) == 0  # ✓ correct on its own copy
    v3, v4 = (load_case(copies[v] / "case" / "case.toml").manifest_hash for v in (3, 4))
    assert len({real, v3, v4}) == 3
    runs = {"sample-lines": 1, "impostor-v3": 2, "impostor-v4": 3}
    return Probe(folder, db, real, v3, v4, runs)

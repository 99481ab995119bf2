"""The Lattice sample folders carry copies of resources/engines/ (each folder builds alone);
the copies stay byte-equal to their one source."""

from __future__ import annotations

import shutil
from pathlib import Path

from lattice_desktop.lattice.build_engines import SAMPLES, SUBMISSIONS_DIR, staged_files, stale_copies


def test_every_sample_folder_holds_exact_copies_of_its_sources():
    assert stale_copies() == []
    shared = [s for s in SAMPLES if "lines.c" in s.includes]
    assert len(shared) >= 2, "two samples include lines.c; the check covers them"
    for sample in SAMPLES:
        folder = SUBMISSIONS_DIR / sample.name
        assert (folder / "lattice_common.h").read_bytes() == staged_files(sample)["lattice_common.h"]


def test_a_drifted_missing_or_stray_copy_is_named(tmp_path: Path):
    for sample in SAMPLES:
        shutil.copytree(SUBMISSIONS_DIR / sample.name, tmp_path / sample.name)
    assert stale_copies(tmp_path) == []
    header = tmp_path / "lines" / "lattice_common.h"
    header.write_bytes(header.read_bytes() + b"/* edited in place */\n")
    (tmp_path / "scale_bug" / "lines.c").unlink()
    (tmp_path / "buggy" / "lines.c").write_text("/* not staged by the build */\n")
    assert stale_copies(tmp_path) == ["lines/lattice_common.h", "buggy/lines.c", "scale_bug/lines.c"]

"""Prewarming the demo: after the first start grades it, its stress scenarios are walked
once in the background so the Factory tab can show any tick of them at once (keyframes
are kept on disk between sessions)."""

from __future__ import annotations

from pathlib import Path

from lattice_desktop.lattice.playback import Playback
from lattice_desktop.lattice.proven import proven_engine
from lattice_desktop.manifest import load_case
from lattice_desktop.work import Work


def prewarm(case_path: str | Path, work: Work | None = None) -> int:
    """Walk every stress scenario of a Lattice case once with its fastest proven engine, largest
    first, so their keyframes are on disk before anyone scrubs them. Returns how many
    scenarios were walked (those already cached are skipped)."""
    case = load_case(case_path)
    if case.family != "lattice-v1":
        return 0
    work = work or Work()
    walked = 0
    entries = sorted(case.stress, key=lambda e: -e.size)
    for index, entry in enumerate(entries):
        work.raise_if_cancelled()
        proven = proven_engine(case, entry.input_bytes(), entry.expected_bytes())
        if proven is None:
            break
        playback = Playback(entry.input_bytes(), proven.engine)
        if playback.prepared < 1.0:
            playback.prepare(work.part(index / len(entries), (index + 1) / len(entries)))
            walked += 1
    work.report(1.0, f"{walked} scenario{'s' if walked != 1 else ''} walked")
    return walked

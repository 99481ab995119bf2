"""Work on a submission's own records, run on workers by the Factory tab: its diff against the
reference at one tick, and the search for the first tick at which it departs from the reference."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from lattice_desktop.lattice.divergence import Divergence, find_divergence
from lattice_desktop.lattice.playback import Playback
from lattice_desktop.lattice.records import RecordDiff, cell_counts, diff_pairs
from lattice_desktop.lattice.simulators import state_from_records
from lattice_desktop.lattice.submission_records import (
    SubmissionRecords,
    submission_checksums,
    submission_pairs,
)
from lattice_desktop.lattice.view import FactoryState
from lattice_desktop.work import Work


@dataclass(frozen=True)
class SubmissionDiff:
    """The submission's factory at `tick` and where its records differ from the reference's."""

    tick: int
    state: FactoryState
    diffs: list[RecordDiff]
    counts: dict[int, int]  # differing records per differing cell, in grid order


def submission_diff(sub: SubmissionRecords, playback: Playback, tick: int) -> SubmissionDiff:
    got = submission_pairs(sub, playback.scenario, playback.data, tick)
    diffs = diff_pairs(playback.records_at(tick), got)
    state = state_from_records(playback.scenario, got, tick=tick, grid=playback.grid)
    return SubmissionDiff(tick, state, diffs, cell_counts(diffs))


def search_divergence(
    sub: SubmissionRecords, playback: Playback, agrees: int, differs: int, work: Work
) -> tuple[Playback, Divergence]:
    """The first tick in (agrees, differs] where the submission departs from the reference;
    cancelling `work` stops it between runs and interrupts a run of the submission."""
    engine = playback.engine

    def reference_checksums(data: bytes) -> list[int]:
        return engine.run(data) if engine is not None else []

    def reference_records(tick: int) -> np.ndarray:
        return playback.records_at(tick)

    found = find_divergence(
        playback.data,
        agrees=agrees,
        differs=differs,
        reference_checksums=reference_checksums,
        submission_checksums=lambda data: submission_checksums(sub, data, work=work),
        reference_records=reference_records,
        submission_records=lambda tick: submission_pairs(
            sub, playback.scenario, playback.data, tick, work=work
        ),
        work=work,
    )
    return playback, found

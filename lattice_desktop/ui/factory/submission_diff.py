"""Diffing a submission's own records against the reference at one tick (on a worker)."""

from __future__ import annotations

from dataclasses import dataclass

from lattice_desktop.lattice.playback import Playback
from lattice_desktop.lattice.records import RecordDiff, diff_records
from lattice_desktop.lattice.view import FactoryState
from lattice_desktop.ui.factory.submission_records import SubmissionRecords, submission_records


@dataclass(frozen=True)
class SubmissionDiff:
    """The submission's factory at `tick` and where its records differ from the reference's."""

    tick: int
    state: FactoryState
    diffs: list[RecordDiff]


def submission_diff(sub: SubmissionRecords, playback: Playback, tick: int) -> SubmissionDiff:
    got = submission_records(sub, playback.data, tick)
    expected_pairs = playback.records_at(tick)
    expected = dict(zip(expected_pairs[:, 0].tolist(), expected_pairs[:, 1].tolist()))
    diffs = diff_records(expected, got)
    state = FactoryState.from_records(playback.scenario, got, tick=tick)
    return SubmissionDiff(tick, state, diffs)

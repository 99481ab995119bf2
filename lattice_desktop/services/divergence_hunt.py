"""Play to the next divergence: from the tick shown, the first tick where the submission's
state parts from the reference's (not only at snapshots), worked out on a worker for the
Factory tab. See `lattice.divergence.next_divergence` for how, and what it costs."""

from __future__ import annotations

from lattice_desktop.lattice.divergence import Divergence, next_divergence
from lattice_desktop.lattice.playback import Playback
from lattice_desktop.lattice.rules import simulate
from lattice_desktop.lattice.scenario import parse_scenario
from lattice_desktop.lattice.submission_records import (
    SubmissionRecords,
    submission_checksums,
    submission_pairs,
)
from lattice_desktop.work import Work


def hunt_divergence(
    sub: SubmissionRecords, playback: Playback, start: int, work: Work
) -> tuple[Playback, int, Divergence | None]:
    """(playback, start, the next divergence after `start` or None); the reference's side is
    run by the playback's engine (the fastest proven on this scenario), cancelling `work`
    interrupts either engine's run."""
    engine = playback.engine

    def reference_checksums(data: bytes) -> list[int]:
        return (
            engine.run(data, work=work) if engine is not None else simulate(parse_scenario(data), work=work)
        )

    def submission_records(tick: int):
        return submission_pairs(sub, playback.scenario, playback.data, tick, work=work)

    found = next_divergence(
        playback.data,
        start=start,
        end=playback.ticks,
        reference_checksums=reference_checksums,
        submission_checksums=lambda data: submission_checksums(sub, data, work=work),
        reference_records=lambda tick: playback.records_at(tick, work),
        submission_records=lambda tick: submission_pairs(
            sub, playback.scenario, playback.data, tick, work=work
        ),
        work=work,
        known=playback.tick_checksums,
    )
    return playback, start, found

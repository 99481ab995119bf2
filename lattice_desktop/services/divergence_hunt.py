"""Play to the next divergence: from the tick shown, the first tick where the submission's
state parts from the reference's (not only at snapshots), worked out on a worker for the
Factory tab. See `lattice.divergence.next_divergence` for how, and what it costs; here the
submission's side runs beside the reference's, on the other core."""

from __future__ import annotations

from concurrent.futures import Future, ThreadPoolExecutor

from lattice_desktop.lattice.divergence import Divergence, next_divergence
from lattice_desktop.lattice.playback import Playback
from lattice_desktop.lattice.rules import simulate
from lattice_desktop.lattice.scenario import parse_scenario
from lattice_desktop.lattice.submission_records import (
    SubmissionRecords,
    submission_checksums,
    submission_pairs,
)
from lattice_desktop.lattice.wasm_engine import WasmEngine
from lattice_desktop.work import Work

# The first window's ticks past the start: a divergence near the start (the usual case when
# P is pressed on a wrong run) costs half of next_divergence's 64; a far one about the same.
FIRST_WINDOW = 32


def hunt_divergence(
    sub: SubmissionRecords,
    playback: Playback,
    start: int,
    work: Work,
    *,
    engine: WasmEngine | None = None,
    differs: int | None = None,
) -> tuple[Playback, int, Divergence | None]:
    """(playback, start, the next divergence after `start` or None); the reference's side is
    run by `engine`, else the playback's (the fastest proven on this scenario); cancelling
    `work` interrupts either engine's run. `differs`: the first snapshot tick past `start`
    whose checksums are known to differ (the graded run's): no window steps over it.

    The two sides run at once, on two cores: whenever the search asks for the reference's
    checksums (or records), the submission's for the same run start on a second thread
    (wasm runs without the GIL), and are collected when the search asks for them."""
    engine = engine or playback.engine
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="hunt-submission") as beside:
        ahead: dict[object, Future] = {}

        def submission_checksums_of(data: bytes) -> list[int]:
            return submission_checksums(sub, data, work=work)

        def submission_records_at(tick: int):
            return submission_pairs(sub, playback.scenario, playback.data, tick, work=work)

        def reference_checksums(data: bytes) -> list[int]:
            ahead[data] = beside.submit(submission_checksums_of, data)
            if engine is not None:
                return engine.run(data, work=work)
            return simulate(parse_scenario(data), work=work)

        def reference_records(tick: int):
            ahead[("records", tick)] = beside.submit(submission_records_at, tick)
            return playback.records_at(tick, work)

        def collected(key: object, run, arg):
            future = ahead.pop(key, None)
            return future.result() if future is not None else run(arg)

        found = next_divergence(
            playback.data,
            start=start,
            end=playback.ticks,
            reference_checksums=reference_checksums,
            submission_checksums=lambda data: collected(data, submission_checksums_of, data),
            reference_records=reference_records,
            submission_records=lambda tick: collected(("records", tick), submission_records_at, tick),
            work=work,
            window=FIRST_WINDOW,
            cap=differs,
            known=playback.tick_checksums,
        )
    return playback, start, found

"""The first wrong tick of one scenario and its diagnosis, given the two engines' answers.

`explain_scenario` finds the first tick where the submission's records part from the
reference's within (agrees, differs] (`divergence.find_divergence`), reads the state both
agreed on the tick before, and diagnoses that tick. The reference's tables for the tick's
trace are built on a thread meanwhile (the engines' runs are wasm calls, outside the GIL)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence

from lattice_desktop.lattice.divergence import Divergence, Records, find_divergence
from lattice_desktop.lattice.explain.diagnosis import Diagnosis, diagnose
from lattice_desktop.lattice.explain.tracer import prepare
from lattice_desktop.lattice.records import as_pairs
from lattice_desktop.lattice.scenario import parse_scenario
from lattice_desktop.work import Work


def explain_scenario(
    data: bytes,
    *,
    case: str,
    agrees: int,
    differs: int,
    reference_checksums: Callable[[bytes], Sequence[int]],
    submission_checksums: Callable[[bytes], Sequence[int]],
    reference_records: Callable[[int], Records],
    submission_records: Callable[[int], Records],
    work: Work | None = None,
) -> tuple[Divergence, Diagnosis]:
    work = work or Work()
    scenario = parse_scenario(data)
    failed: list[BaseException] = []

    def build() -> None:
        try:
            prepare(scenario)
        except BaseException as exc:  # raised again below, on the caller's thread
            failed.append(exc)

    tables = threading.Thread(target=build, name="explain-tables", daemon=True)
    tables.start()
    found = find_divergence(
        data,
        agrees=agrees,
        differs=differs,
        reference_checksums=reference_checksums,
        submission_checksums=submission_checksums,
        reference_records=reference_records,
        submission_records=submission_records,
        work=work,
    )
    work.report(0.8, f"diagnosing tick {found.tick:,}…")
    tables.join()
    if failed:
        raise failed[0]
    before = as_pairs(reference_records(found.tick - 1))
    diagnosis = diagnose(
        scenario,
        case=case,
        tick=found.tick,
        before=before,
        reference=as_pairs(reference_records(found.tick)),
        submission=as_pairs(submission_records(found.tick)),
        work=work,
    )
    return found, diagnosis

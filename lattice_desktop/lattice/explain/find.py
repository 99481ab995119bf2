"""The first wrong tick of one scenario and its diagnosis, given the two engines' answers.

`explain_scenario` finds the first tick where the submission's records part from the
reference's within (agrees, differs] (`divergence.find_divergence`), reads the state both
agreed on the tick before, and diagnoses that tick."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from lattice_desktop.lattice.divergence import Divergence, Records, find_divergence
from lattice_desktop.lattice.explain.diagnosis import Diagnosis, diagnose
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
    before = as_pairs(reference_records(found.tick - 1))
    diagnosis = diagnose(
        parse_scenario(data),
        case=case,
        tick=found.tick,
        before=before,
        reference=as_pairs(reference_records(found.tick)),
        submission=as_pairs(submission_records(found.tick)),
        work=work,
    )
    return found, diagnosis

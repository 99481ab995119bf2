"""Opening a stored run's scenario for the Factory tab (on a worker thread), with the check
that the stored run still matches the case files on disk, and diffing a submission's own
records against the reference at one tick."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from lattice_desktop.grading.report import CaseResult
from lattice_desktop.lattice.playback import Playback, reference_engine
from lattice_desktop.lattice.proven import proven_engine
from lattice_desktop.lattice.scenario import parse_scenario
from lattice_desktop.lattice.scenario_file import (
    EXPECTED_SUFFIX,
    read_scenario_file,
    reference_checksums,
)
from lattice_desktop.lattice.snapshots import Snapshots
from lattice_desktop.manifest.case import CaseManifest
from lattice_desktop.store.queries import StoredRun
from lattice_desktop.work import Work


def stale_reasons(
    run: StoredRun, case: CaseManifest, result: CaseResult, playback: Playback, expected: bytes
) -> list[str]:
    """Why the stored run does not belong to the case files on disk now (empty: it does).

    The run keeps what grading saw: its snapshot interval, the submission's checksums, the
    expected checksum at the first mismatch and the manifest's hash (which covers every
    case's input and expected files)."""
    reasons = []
    interval, count = playback.scenario.snapshot, len(expected) // 8
    if result.snapshot_interval and result.snapshot_interval != interval:
        reasons.append(f"a snapshot every {result.snapshot_interval:,} ticks then, every {interval:,} now")
    if result.outcome.correct and result.checksums is not None and result.checksums != expected:
        then = len(result.checksums) // 8
        reasons.append(
            f"its {then:,} snapshot checksums were right then and are not the expected ones now"
            + (f" ({count:,} snapshots now)" if then != count else "")
        )
    mismatch = result.mismatch
    if mismatch is not None and mismatch.expected is not None and mismatch.unit != "byte":
        now = (
            int.from_bytes(expected[8 * mismatch.index : 8 * mismatch.index + 8], "little")
            if 8 * mismatch.index + 8 <= len(expected)
            else None
        )
        if now != mismatch.expected:
            reasons.append(
                f"snapshot {mismatch.index + 1:,} expected {mismatch.expected:016x} then, "
                + ("none now" if now is None else f"{now:016x} now")
            )
    stored = run.manifest_hash
    if stored and stored != case.manifest_hash:
        reasons.append(f"the case manifest's hash was {stored[:12]} then, {case.manifest_hash[:12]} now")
    return reasons


@dataclass(frozen=True)
class OpenedCase:
    """One scenario of a stored run, ready to replay: its playback, its snapshot checksums,
    and why (if at all) the run no longer matches the case files on disk."""

    name: str
    playback: Playback
    snapshots: Snapshots
    stale: list[str]  # reasons, empty when the run matches
    specific: bool  # a reason concerns this scenario, so its ✓/✗ would not be the run's
    source: str = ""  # where the expected checksums came from, when not from the case
    pending: bool = False  # the checksums are still to come (`file_checksums`): none shown yet


def open_case(
    run: StoredRun, case: CaseManifest, result: CaseResult, *, work: Work | None = None
) -> OpenedCase:
    """Read the scenario's input and expected answers and set up its playback (on a worker);
    cancelling `work` stops it between those steps."""
    work = work or Work()
    entry = case.entry(result.name)
    data = entry.input_bytes()
    expected = entry.expected_bytes()
    work.raise_if_cancelled()
    playback = proven_playback(case, data, expected)
    work.raise_if_cancelled()
    reasons = stale_reasons(run, case, result, playback, expected)
    # Only what belongs to this scenario makes its ✓/✗ meaningless; a changed hash alone
    # (another case's file) keeps the comparison but still says so.
    specific = any(not r.startswith("the case manifest") for r in reasons)
    snapshots = Snapshots.from_bytes(
        playback.scenario.snapshot, expected, None if specific else result.checksums
    )
    return OpenedCase(result.name, playback, snapshots, reasons, specific)


def proven_playback(case: CaseManifest, data: bytes, expected: bytes) -> Playback:
    """Playback by the fastest engine proven on this scenario (`lines` for the bundled case)."""
    proven = proven_engine(case, data, expected)
    if proven is None:
        return Playback(data, None)
    label = "wasm reference" if proven.name == "reference" else f"{proven.name} (proven on this scenario)"
    return Playback(data, proven.engine, name=label)


def open_scenario_view(path: Path, *, work: Work | None = None) -> OpenedCase:
    """A scenario file's first stage: parsed (its error located) and ready to replay, its
    snapshots still unknown. The reference's whole run, which the checksums take (seconds
    on a 2048² factory), is left to `file_checksums`, so the map shows at once."""
    work = work or Work()
    path = Path(path).resolve()
    data = read_scenario_file(path)
    scenario = parse_scenario(data, source=str(path))
    work.raise_if_cancelled()
    playback = Playback(data, reference_engine(), scenario=scenario)
    snapshots = Snapshots.from_bytes(playback.scenario.snapshot, b"", None)
    return OpenedCase(str(path), playback, snapshots, [], False, "", pending=True)


@dataclass(frozen=True)
class FileChecksums:
    snapshots: Snapshots
    source: str  # where the expected checksums came from


def file_checksums(path: Path, playback: Playback, *, work: Work | None = None) -> FileChecksums:
    """The second stage: the reference's checksums, or stored NAME.u64 answers compared
    with them. Cancelling `work` stops the reference's run at once."""
    computed = reference_checksums(playback, playback.engine, work=work)
    interval = playback.scenario.snapshot
    stored = Path(path).with_suffix(EXPECTED_SUFFIX)
    if stored.is_file():
        return FileChecksums(
            Snapshots.from_bytes(interval, stored.read_bytes(), computed), f"expected from {stored.name}"
        )
    return FileChecksums(
        Snapshots.from_bytes(interval, computed, None), f"checksums from the {playback.engine_name}"
    )

"""What a batch amounts to: verdict counts over its submissions and the field's top ten."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from lattice_desktop.batch.driver import BatchProgress, BatchResult
from lattice_desktop.manifest.case import CaseManifest
from lattice_desktop.sandbox.engine import WASMTIME_VERSION
from lattice_desktop.store.field import BoardEntry, leaderboard

TOP = 10


@dataclass(frozen=True)
class BatchSummary:
    graded: int
    already_stored: int
    problems: int
    verdicts: dict[str, int]  # over graded and already-stored runs
    top: list[BoardEntry]  # the field's best (every stored run of this case counts)

    def to_dict(self) -> dict[str, Any]:
        return {
            "graded": self.graded,
            "already_stored": self.already_stored,
            "problems": self.problems,
            "verdicts": self.verdicts,
            "top": [{"rank": e.rank, "model": e.model, "run_id": e.run_id, "fuel": e.fuel} for e in self.top],
        }


def summarize(case: CaseManifest, result: BatchResult, *, stored: bool) -> BatchSummary:
    counts = Counter(r.report.verdict.value for r in result.runs)
    counts.update(run.verdict.value for _s, run in result.skipped)
    top: list[BoardEntry] = []
    if stored:
        board = leaderboard(
            case.name, case.version, case.variant, WASMTIME_VERSION, content=case.manifest_hash
        )
        top = board.entries[:TOP]
    return BatchSummary(
        len(result.runs), len(result.skipped), len(result.problems), dict(sorted(counts.items())), top
    )


def clock(seconds: float | None) -> str:
    if seconds is None:
        return "--:--"
    hours, rest = divmod(int(seconds), 3600)
    return f"{hours}:{rest // 60:02d}:{rest % 60:02d}" if hours else f"{rest // 60:02d}:{rest % 60:02d}"


def progress_text(p: BatchProgress, *, since: float = 0.0) -> str:
    """Where the batch stands, `since` seconds after `p` was reported (a display that
    ticks between reports: the elapsed time goes on, the time left counts down)."""
    remaining = p.remaining
    left = None if remaining is None else max(0.0, remaining - since)
    return (
        f"{p.jobs_done}/{p.jobs_total} jobs · {p.runs_done}/{p.runs_total} runs · "
        f"{clock(p.elapsed + since)} elapsed · {clock(left)} left"
    )


def outcome_text(result: BatchResult) -> str:
    """The batch in a sentence or two, naming the first submissions that could not be read."""
    counts = Counter(r.report.verdict for r in result.runs)
    verdicts = ", ".join(f"{n} {v.label}" for v, n in sorted(counts.items(), key=lambda kv: -kv[1]))
    text = f"Graded {len(result.runs)} submission(s)" + (f": {verdicts}" if verdicts else "")
    if result.skipped:
        text += f"; {len(result.skipped)} already stored, skipped"
    if result.problems:
        named = "; ".join(p.describe() for p in result.problems[:3])
        more = f" and {len(result.problems) - 3} more" if len(result.problems) > 3 else ""
        text += f". {len(result.problems)} could not be graded: {named}{more}"
    return text + "."

"""A stored run as plain text, for "Copy report" (no Qt: testable on its own)."""

from __future__ import annotations

from lattice_desktop.formatting import grouped
from lattice_desktop.grading.report import CaseResult
from lattice_desktop.outcomes import Outcome
from lattice_desktop.services.run_failure import NOT_RUN, run_failure
from lattice_desktop.store.pages import RunPage


def report_text(page: RunPage) -> str:
    run, s = page.run, page.run.summary
    lines = [
        f"{s.submission} · {s.case_label} · {s.model} · run {s.id}",
        s.verdict.look.text + (f" · score {grouped(s.score)} fuel" if s.score is not None else ""),
    ]
    if note := s.identity.note:
        lines.append(f"case {note} — ranked apart")
    if page.standing is not None:
        lines.append(f"standing {page.standing.describe()}")
    lines.append(f"module sha256 {run.module_sha256 or '-'}")
    lines.append(run.fuel_settings)
    failure = run_failure(run.results, run.build_log)
    if failure is not None:
        lines += ["", *failure.lines()]
    for title, smoke in (("Smoke tests (correctness only)", True), ("Stress cases (fuel)", False)):
        rows = [r for r in run.results if r.is_smoke == smoke]
        if not rows:
            continue
        lines += ["", title]
        for r in rows:
            if failure is not None:
                lines.append(f"  {r.name} · {NOT_RUN}")
                continue
            cells = [
                r.name,
                r.behaviour if smoke else f"size {grouped(r.size)}",
                r.outcome.look.text,
                f"{grouped(r.fuel)} fuel",
            ]
            if not smoke and r.percent_of_ceiling is not None:
                cells.append(f"{r.percent_of_ceiling:.1f}% of ceiling")
            detail = detail_text(r, exact=True)
            if detail:
                cells.append(detail.splitlines()[0])
            lines.append("  " + " · ".join(c for c in cells if c))
    if run.build_log:
        lines += ["", "Build log", run.build_log]
    return "\n".join(lines)


def detail_text(r: CaseResult, *, exact: bool = False) -> str:
    """The failing behaviour in one line: the first divergence, the trap and its frame, or
    the core's own detail. `exact` keeps whole checksums (for copying and tooltips)."""
    m = r.mismatch
    if m is not None:
        return m.describe(short=not exact)
    if r.trap_code and r.outcome is not Outcome.PASS:
        frame = f" in {r.frames[0]}" if r.frames else ""
        return f"trap {r.trap_code}{frame}"
    first = r.detail.strip().splitlines()
    if not first:
        return ""
    return r.detail.strip() if exact else first[0]

"""The batch on a terminal: one progress bar on stderr (or, when stderr is not a terminal,
one line per finished run), and the summary table."""

from __future__ import annotations

from typing import TextIO

from lattice_desktop.batch.driver import BatchProgress
from lattice_desktop.batch.field import Problem
from lattice_desktop.batch.summary import BatchSummary, progress_text
from lattice_desktop.cli.terminal import shown
from lattice_desktop.formatting import fuel
from lattice_desktop.manifest.case import CaseManifest
from lattice_desktop.manifest.case_identity import identify_case
from lattice_desktop.outcomes import Verdict
from lattice_desktop.work import Step

BAR_WIDTH = 28


def bar_line(p: BatchProgress) -> str:
    share = p.jobs_done / p.jobs_total if p.jobs_total else 0.0
    filled = int(share * BAR_WIDTH)
    return f"[{'#' * filled}{'.' * (BAR_WIDTH - filled)}] {progress_text(p)}"


def run_line(p: BatchProgress, index: int) -> str:
    finished = p.landed[index]
    report = finished.report
    where = f"run {finished.run_id}" if finished.run_id is not None else "not stored"
    return (
        f"[{p.runs_done - len(p.landed) + index + 1}/{p.runs_total}] {shown(report.submission.model)} "
        f"({shown(report.submission.name)}): {report.verdict.symbol} {report.verdict.label} · "
        f"stress fuel {fuel(report.stress_fuel)} · {where}"
    )


class ProgressPrinter:
    """A listener for a batch's `Work` writing to `stream` (normally stderr)."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.live = stream.isatty()
        self._width = 0

    def __call__(self, step: Step) -> None:
        p = step.item
        if not isinstance(p, BatchProgress):
            return
        if p.problem is not None:
            self.problem(p.problem)
        if self.live:
            line = bar_line(p)
            self.stream.write("\r" + line.ljust(self._width))
            self._width = len(line)
            self.stream.flush()
            return
        for index in range(len(p.landed)):
            self.stream.write(run_line(p, index) + "\n")
        self.stream.flush()

    def problem(self, problem: Problem) -> None:
        self._clear()
        self.stream.write(f"error: {shown(problem.describe(), keep=chr(10))}\n")
        self.stream.flush()

    def close(self) -> None:
        if self.live and self._width:
            self.stream.write("\n")
            self.stream.flush()
            self._width = 0

    def _clear(self) -> None:
        if self.live and self._width:
            self.stream.write("\r" + " " * self._width + "\r")


def summary_lines(case: CaseManifest, summary: BatchSummary) -> list[str]:
    lines = [
        f"{shown(identify_case(case).label)}: {summary.graded} graded, "
        f"{summary.already_stored} already stored, {summary.problems} could not be read",
        "",
    ]
    lines.append(f"{'verdict':<16}{'runs':>6}")
    for verdict in Verdict:
        count = summary.verdicts.get(verdict.value)
        if count:
            lines.append(f"{verdict.symbol} {verdict.label:<14}{count:>6}")
    lines += ["", "The field's top ten" if summary.top else "No correct run in the field yet."]
    if summary.top:
        lines.append(f"{'rank':>4}  {'model':<28}{'fuel':>14}  run")
        lines += [f"{e.rank:>4}  {shown(e.model):<28}{fuel(e.fuel):>14}  {e.run_id}" for e in summary.top]
    return lines

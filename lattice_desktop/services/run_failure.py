"""A run that failed before any case ran — its build, or the module it produced — told as
that one failure: the command, its exit status and the last lines of its log, with every
case "not run". The grader stores such a failure on each case (every smoke test carries
it, the stress cases are skipped because of it); repeating it per case hid what happened."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from lattice_desktop.grading.report import CaseResult
from lattice_desktop.outcomes import Outcome

# Outcomes that belong to the module, not to one case: the grader gives all cases the same.
MODULE_LEVEL = (
    Outcome.BUILD_FAILURE,
    Outcome.INVALID_MODULE,
    Outcome.MISSING_EXPORT,
    Outcome.LINK_ERROR,
    Outcome.INSTANTIATION_FAILURE,
)
LOG_TAIL = 12  # lines of the failing command's output shown with the failure
NOT_RUN = "– not run"
_EXITED = re.compile(r"^`(?P<command>.*)` exited with status (?P<status>-?\d+)$", re.DOTALL)


@dataclass(frozen=True)
class RunFailure:
    outcome: Outcome
    reason: str  # as the grader put it: "`make` exited with status 2", "… produced no m.wasm"
    command: str | None  # the command that failed, when a build command did
    exit_status: int | None
    log_tail: tuple[str, ...]  # the last lines of the failing command's output
    cases: int  # how many cases did not run

    @property
    def is_build(self) -> bool:
        return self.outcome is Outcome.BUILD_FAILURE

    @property
    def headline(self) -> str:
        what = "The build failed" if self.is_build else f"The module was refused ({self.outcome.label})"
        return f"{what} — none of the {self.cases} cases ran (each counts as failed)"

    @property
    def why(self) -> str:
        """The failure in one line, for "why:" and tooltips."""
        if self.command is not None and self.exit_status is not None:
            command = self.command if len(self.command) <= 60 else self.command[:59] + "…"
            return f"the build failed: `{command}` exited with status {self.exit_status}"
        return ("the build failed: " if self.is_build else f"{self.outcome.label}: ") + self.reason

    def lines(self) -> list[str]:
        """The failure as plain lines: headline, command, status, the log's last lines."""
        lines = [f"✗ {self.headline}"]
        if self.command is not None:
            lines.append(f"command: {self.command}")
        if self.exit_status is not None:
            lines.append(f"exit status: {self.exit_status}")
        else:
            lines.append(f"reason: {self.reason}")
        if self.log_tail:
            lines.append("last lines of its log:" if self.command else "last lines of the build log:")
            lines += [f"  {line}" for line in self.log_tail]
        return lines


def run_failure(results: Sequence[CaseResult], build_log: str) -> RunFailure | None:
    """The failure every case of `results` carries, if they all carry one module-level
    failure (and the skipped stress cases were skipped because of it); else None."""
    ran = [r for r in results if r.outcome is not Outcome.SKIPPED]
    if not ran or ran[0].outcome not in MODULE_LEVEL:
        return None
    outcome, reason = ran[0].outcome, ran[0].detail
    if any(r.outcome is not outcome or r.detail != reason for r in ran):
        return None
    if any(r.detail != f"skipped: {outcome.label}" for r in results if r.outcome is Outcome.SKIPPED):
        return None
    exited = _EXITED.match(reason.strip())
    command = exited["command"] if exited else _last_command(build_log)
    return RunFailure(
        outcome,
        reason.strip(),
        command,
        int(exited["status"]) if exited else None,
        _tail(build_log) if outcome is Outcome.BUILD_FAILURE else (),
        len(results),
    )


def _last_command(log: str) -> str | None:
    commands = [line[2:] for line in log.splitlines() if line.startswith("$ ")]
    return commands[-1] if commands else None


def _tail(log: str) -> tuple[str, ...]:
    """The last lines of what the last command printed (of the whole log if none ran)."""
    lines = log.splitlines()
    starts = [i for i, line in enumerate(lines) if line.startswith("$ ")]
    output = lines[starts[-1] + 1 :] if starts else lines
    while output and not output[-1].strip():
        output.pop()
    return tuple(output[-LOG_TAIL:])

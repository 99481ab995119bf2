"""What can happen to one case, and to a whole run."""

from __future__ import annotations

from enum import StrEnum


class Outcome(StrEnum):
    PASS = "pass"
    OVER_CEILING = "over_ceiling"  # correct, but only on the fuel runway
    WRONG_ANSWER = "wrong_answer"
    TRAP = "trap"
    OUT_OF_FUEL = "out_of_fuel"  # exhausted the runway: no answer, which is not a wrong one
    MEMORY_LIMIT = "memory_limit"
    TIMEOUT = "timeout"  # the wall-clock backstop stopped it
    MISSING_EXPORT = "missing_export"
    LINK_ERROR = "link_error"
    INVALID_MODULE = "invalid_module"
    BUILD_FAILURE = "build_failure"
    INSTANTIATION_FAILURE = "instantiation_failure"
    SKIPPED = "skipped"  # a smoke test failed; counted failed
    INTERNAL_ERROR = "internal_error"  # our fault, never the submission's

    @property
    def passed(self) -> bool:
        return self is Outcome.PASS

    @property
    def correct(self) -> bool:
        return self in (Outcome.PASS, Outcome.OVER_CEILING)

    @property
    def label(self) -> str:
        return _LABELS[self]


_LABELS = {
    Outcome.PASS: "pass",
    Outcome.OVER_CEILING: "over ceiling",
    Outcome.WRONG_ANSWER: "wrong answer",
    Outcome.TRAP: "trap",
    Outcome.OUT_OF_FUEL: "runway exhausted",
    Outcome.MEMORY_LIMIT: "memory limit",
    Outcome.TIMEOUT: "wall-clock limit",
    Outcome.MISSING_EXPORT: "missing export",
    Outcome.LINK_ERROR: "link error",
    Outcome.INVALID_MODULE: "invalid module",
    Outcome.BUILD_FAILURE: "build failure",
    Outcome.INSTANTIATION_FAILURE: "instantiation failure",
    Outcome.SKIPPED: "skipped",
    Outcome.INTERNAL_ERROR: "internal error",
}


class Verdict(StrEnum):
    CORRECT = "correct"
    OVER_CEILING = "over_ceiling"
    INCORRECT = "incorrect"
    INTERNAL_ERROR = "internal_error"
    RUNNING = "running"
    INTERRUPTED = "interrupted"  # the process died mid-run; found on next start
    CANCELLED = "cancelled"

    @property
    def symbol(self) -> str:
        return _SYMBOLS[self]

    @property
    def label(self) -> str:
        return self.value.replace("_", " ")

    @property
    def finished(self) -> bool:
        return self not in (Verdict.RUNNING,)


_SYMBOLS = {
    Verdict.CORRECT: "✓",
    Verdict.OVER_CEILING: "▲",
    Verdict.INCORRECT: "✗",
    Verdict.INTERNAL_ERROR: "!",
    Verdict.RUNNING: "◌",
    Verdict.INTERRUPTED: "⏸",
    Verdict.CANCELLED: "⏹",
}

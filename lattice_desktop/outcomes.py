"""What can happen to one case and to a whole run, and how each is shown.

Every view (Results, Fuel, Factory, the leaderboard, the runs list, the CLI) takes an
outcome's or a verdict's symbol, colour and words from `look` here, so that one state
never wears two faces. Colours are hex strings; the UI turns them into QColors.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

# Okabe–Ito: distinguishable with the common colour-vision deficiencies.
GREEN, AMBER, RED, BLUE, PURPLE, GREY = ("#009E73", "#E69F00", "#D55E00", "#0072B2", "#CC79A7", "#8A8F98")


@dataclass(frozen=True)
class Look:
    """How a state is shown: a symbol and words (never the colour alone), and a colour."""

    symbol: str
    words: str
    colour: str

    @property
    def text(self) -> str:
        return f"{self.symbol} {self.words}"


class Outcome(StrEnum):
    PASS = "pass"
    OVER_CEILING = "over_ceiling"  # correct, but only on the fuel runway
    WRONG_ANSWER = "wrong_answer"
    TRAP = "trap"
    OUT_OF_FUEL = "out_of_fuel"  # exhausted the runway: no answer, which is not a wrong one
    MEMORY_LIMIT = "memory_limit"
    CONTRACT_VIOLATION = "contract_violation"  # broke the calling convention (alloc, output pointer)
    TIMEOUT = "timeout"  # the wall-clock backstop stopped it
    MISSING_EXPORT = "missing_export"
    LINK_ERROR = "link_error"
    INVALID_MODULE = "invalid_module"
    BUILD_FAILURE = "build_failure"
    INSTANTIATION_FAILURE = "instantiation_failure"
    SKIPPED = "skipped"  # a smoke test failed; counted failed
    INTERNAL_ERROR = "internal_error"  # our fault, never the submission's
    UNKNOWN = "unknown"  # a stored row holds a word this version does not know

    @classmethod
    def stored(cls, text: object) -> Outcome:
        """The outcome a stored row names, or UNKNOWN (one odd row never hides the others)."""
        try:
            return cls(str(text))
        except ValueError:
            return cls.UNKNOWN

    @property
    def passed(self) -> bool:
        return self is Outcome.PASS

    @property
    def correct(self) -> bool:
        return self in (Outcome.PASS, Outcome.OVER_CEILING)

    @property
    def look(self) -> Look:
        return _OUTCOME_LOOKS[self]

    @property
    def label(self) -> str:
        return self.look.words

    @property
    def symbol(self) -> str:
        return self.look.symbol


_OUTCOME_LOOKS = {
    Outcome.PASS: Look("✓", "pass", GREEN),
    Outcome.OVER_CEILING: Look("▲", "over ceiling", AMBER),
    Outcome.WRONG_ANSWER: Look("✗", "wrong answer", RED),
    Outcome.TRAP: Look("✗", "trap", RED),
    Outcome.OUT_OF_FUEL: Look("✗", "runway exhausted", RED),
    Outcome.MEMORY_LIMIT: Look("✗", "memory limit", RED),
    Outcome.CONTRACT_VIOLATION: Look("✗", "contract violation", RED),
    Outcome.TIMEOUT: Look("✗", "wall-clock limit", RED),
    Outcome.MISSING_EXPORT: Look("✗", "missing export", RED),
    Outcome.LINK_ERROR: Look("✗", "link error", RED),
    Outcome.INVALID_MODULE: Look("✗", "invalid module", RED),
    Outcome.BUILD_FAILURE: Look("✗", "build failure", RED),
    Outcome.INSTANTIATION_FAILURE: Look("✗", "instantiation failure", RED),
    Outcome.SKIPPED: Look("⊘", "skipped", GREY),
    Outcome.INTERNAL_ERROR: Look("!", "internal error", PURPLE),
    Outcome.UNKNOWN: Look("?", "unknown", GREY),
}


class Verdict(StrEnum):
    CORRECT = "correct"
    OVER_CEILING = "over_ceiling"
    INCORRECT = "incorrect"
    BUILD_FAILED = "build_failed"  # no module to grade: not a wrong answer of the model
    INTERNAL_ERROR = "internal_error"
    RUNNING = "running"
    INTERRUPTED = "interrupted"  # the process died mid-run; found on next start
    CANCELLED = "cancelled"
    UNKNOWN = "unknown"  # a stored row holds a word this version does not know

    @classmethod
    def stored(cls, text: object) -> Verdict:
        """The verdict a stored row names, or UNKNOWN."""
        try:
            return cls(str(text))
        except ValueError:
            return cls.UNKNOWN

    @classmethod
    def filters(cls) -> list[Verdict]:
        """The verdicts a user can filter runs by (a stored run is never UNKNOWN on purpose)."""
        return [v for v in cls if v is not cls.UNKNOWN]

    @property
    def look(self) -> Look:
        return _VERDICT_LOOKS[self]

    @property
    def symbol(self) -> str:
        return self.look.symbol

    @property
    def label(self) -> str:
        return self.look.words

    @property
    def finished(self) -> bool:
        return self not in (Verdict.RUNNING,)

    @property
    def failed(self) -> bool:
        """The run finished and was not correct: a wrong answer, or nothing to grade."""
        return self in (Verdict.INCORRECT, Verdict.BUILD_FAILED)

    @property
    def counted(self) -> bool:
        """Whether the run counts among a model's runs on a leaderboard: a build that
        failed, like a run still going, says nothing of the model's answers."""
        return self not in (Verdict.RUNNING, Verdict.BUILD_FAILED)


_VERDICT_LOOKS = {
    Verdict.CORRECT: Look("✓", "correct", GREEN),
    Verdict.OVER_CEILING: Look("▲", "over ceiling", AMBER),
    Verdict.INCORRECT: Look("✗", "incorrect", RED),
    Verdict.BUILD_FAILED: Look("⚒", "build failed", RED),
    Verdict.INTERNAL_ERROR: Look("!", "internal error", PURPLE),
    Verdict.RUNNING: Look("◌", "running", BLUE),
    Verdict.INTERRUPTED: Look("‖", "interrupted", GREY),
    Verdict.CANCELLED: Look("■", "cancelled", GREY),
    Verdict.UNKNOWN: Look("?", "unknown", GREY),
}

"""How a box reads Inspect AI logs: which score or flag captures which objective, and what
each model's tokens cost. Declared in the box's optional `[inspect]` table (docs/harness.md).

Nothing is guessed: a score no rule names captures nothing, and tokens of a model with no
price (when the log has no provider cost) leave Cost missing, never 0.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from fractions import Fraction
from typing import Any, Protocol

PRICE_KEYS = ("input", "output", "cache_read", "cache_write")
"""Token kinds a price may name, in USD per million tokens."""


def plain(x: float) -> str:
    """A rate as written: 3 for 3.0, full precision when the short form would round."""
    short = f"{x:g}"
    return short if float(short) == x else repr(x)


class _TableReader(Protocol):
    data: dict[str, Any]

    def error(self, message: str, key: str | None = None) -> Exception: ...
    def check_keys(self, allowed: set[str]) -> None: ...
    def string(self, key: str, *, default: str | None = None) -> str: ...
    def number(self, key: str, *, default: float | None = None, positive: bool = True) -> float: ...
    def sub(self, section: str, data: dict[str, Any], index: int | None = None) -> _TableReader: ...


@dataclass(frozen=True)
class CaptureRule:
    """`objective` is captured when the sample's `scorer` gave `value`, or when a tool
    result contains the text `flag` (exactly one of the two)."""

    objective: str
    scorer: str | None = None
    value: str | float | bool | None = None
    flag: str | None = None

    def describe(self) -> str:
        if self.flag is not None:
            return f"{self.objective}: a tool result contains {self.flag!r}"
        return f"{self.objective}: scorer {self.scorer!r} gave {self.value!r}"


@dataclass(frozen=True)
class Price:
    """USD per million tokens of one model; a kind left out has no price."""

    model: str
    per_mtok: dict[str, float]

    def cost(self, tokens: dict[str, int]) -> tuple[Fraction | None, str]:
        """Exact cost of `tokens` (kind -> count) and how it was priced; None when a kind
        with tokens has no price."""
        terms, total = [], Fraction(0)
        for kind, count in tokens.items():
            if not count:
                continue
            if kind not in self.per_mtok:
                return None, f"{count} {kind} tokens but no {kind} price for {self.model}"
            rate = Fraction(repr(self.per_mtok[kind]))
            total += count * rate / 1_000_000
            terms.append(f"{count} {kind} x ${plain(self.per_mtok[kind])}/Mtok")
        return total, " + ".join(terms) or "no tokens"


@dataclass(frozen=True)
class RunningRule:
    """A call of `tool` whose result contains `result` means "the job is still running":
    polling it again is exempt from Focus's loops."""

    tool: str
    result: str


DEFAULT_CRASHED_STATUS = 500
"""A tool call that failed with a hard error (the tool raised): a server error."""


@dataclass(frozen=True)
class InspectMapping:
    captures: tuple[CaptureRule, ...]
    prices: tuple[Price, ...] = ()
    harness: str | None = None
    """The harness name to record (default: the log's solver or plan)."""
    running: tuple[RunningRule, ...] = ()
    crashed_status: int = DEFAULT_CRASHED_STATUS
    """The status of a tool call Inspect records as failed (`failed: true`, no error type)."""

    def price(self, model: str) -> Price | None:
        return next((p for p in self.prices if p.model == model), None)

    def still_running(self, tool: str, result: str) -> bool:
        return any(r.tool == tool and r.result in result for r in self.running)

    def to_dict(self) -> dict[str, Any]:
        return {
            "captures": [{k: v for k, v in asdict(r).items() if v is not None} for r in self.captures],
            "prices": [asdict(p) for p in self.prices],
            **({"harness": self.harness} if self.harness else {}),
            **({"running": [asdict(r) for r in self.running]} if self.running else {}),
            **(
                {"crashed_status": self.crashed_status}
                if self.crashed_status != DEFAULT_CRASHED_STATUS
                else {}
            ),
        }


def parse_mapping(reader: _TableReader, objectives: set[str]) -> InspectMapping:
    """The `[inspect]` table of a box; `objectives` are the ids the box defines."""
    reader.check_keys({"captures", "prices", "harness", "running", "crashed_status"})
    harness = reader.string("harness") if "harness" in reader.data else None
    raw_rules = reader.data.get("captures")
    if not isinstance(raw_rules, list) or not raw_rules or not all(isinstance(r, dict) for r in raw_rules):
        raise reader.error(
            "at least one [[inspect.captures]] table is required: which score "
            "or flag captures which objective",
            "captures",
        )
    rules = []
    for i, raw in enumerate(raw_rules):
        rule = reader.sub("inspect.captures", raw, i)
        rule.check_keys({"objective", "scorer", "value", "flag"})
        objective = rule.string("objective")
        if objective not in objectives:
            raise rule.error(
                f"objective {objective!r} is not defined by this box "
                f"(it defines {', '.join(sorted(objectives))})",
                "objective",
            )
        if ("flag" in raw) == ("scorer" in raw):
            raise rule.error("give either 'scorer' (with 'value') or 'flag', not both or neither", "scorer")
        if "flag" in raw:
            if "value" in raw:
                raise rule.error("'value' goes with 'scorer', not with 'flag'", "value")
            rules.append(CaptureRule(objective, flag=rule.string("flag")))
            continue
        value = raw.get("value")
        if isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        if not isinstance(value, str | float | bool):
            raise rule.error(
                "'value' is required with 'scorer': the score value that means "
                'captured (a string such as "C", a number or a boolean)',
                "value",
            )
        rules.append(CaptureRule(objective, scorer=rule.string("scorer"), value=value))
    prices: list[Price] = []
    raw_prices = reader.data.get("prices", [])
    if not isinstance(raw_prices, list) or not all(isinstance(p, dict) for p in raw_prices):
        raise reader.error("[[inspect.prices]] must be tables", "prices")
    for i, raw in enumerate(raw_prices):
        price = reader.sub("inspect.prices", raw, i)
        price.check_keys({"model", *(f"{k}_per_mtok" for k in PRICE_KEYS)})
        model = price.string("model")
        if any(p.model == model for p in prices):
            raise price.error(f"model {model!r} is priced twice", "model")
        per = {k: price.number(f"{k}_per_mtok", positive=False) for k in PRICE_KEYS if f"{k}_per_mtok" in raw}
        if not per:
            raise price.error(
                "give at least 'input_per_mtok' and 'output_per_mtok' (USD per million tokens)", "model"
            )
        prices.append(Price(model, per))
    return InspectMapping(tuple(rules), tuple(prices), harness, _running(reader), _crashed(reader))


def _running(reader: _TableReader) -> tuple[RunningRule, ...]:
    raw_rules = reader.data.get("running", [])
    if not isinstance(raw_rules, list) or not all(isinstance(r, dict) for r in raw_rules):
        raise reader.error("[[inspect.running]] must be tables", "running")
    rules = []
    for i, raw in enumerate(raw_rules):
        rule = reader.sub("inspect.running", raw, i)
        rule.check_keys({"tool", "result"})
        rules.append(RunningRule(rule.string("tool"), rule.string("result")))
    return tuple(rules)


def _crashed(reader: _TableReader) -> int:
    value = reader.data.get("crashed_status", DEFAULT_CRASHED_STATUS)
    if isinstance(value, bool) or not isinstance(value, int) or not 100 <= value <= 599:
        raise reader.error(
            f"'crashed_status' must be an HTTP status (100-599), not {value!r}", "crashed_status"
        )
    return value

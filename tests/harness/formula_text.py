"""Recomputing a harness formula from its printed text, as a reviewer would by hand.

A formula is statements joined by "; " (`elapsed = … = 36.00 s; Time = … = 0.98`). Each
statement is `name = expression = … = result`, with words between the numbers: labels
(`user 2.00`, `gaming 1.00`), units (`36.00 s`, `0.00 paused`) and remarks in parentheses
(`(no loop of 3 or more repetitions)`, `(at most: …)`). `recompute` evaluates every
expression part exactly from its digits (`x` multiplies, `min` and `mean` as written, `-`
inside `mean` is a part not evaluated) and returns, per statement, the exact value and the
result the text prints. Parts made only of words (`captured weight / total weight`) are
skipped. An approximate number (`≈`) is not a number one can recompute from: it fails.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction

from lattice_desktop.formatting import rounded

_TOKEN = re.compile(r"\s*(?:(\d+(?:\.\d+)?)|([A-Za-z_][\w\-]*)|(\S))")


class NotAnExpression(ValueError):
    """The part is words, not arithmetic."""


class Approximate(AssertionError):
    """A number marked "≈": the text does not carry the exact operand."""


def _tokens(text: str) -> list[tuple[str, str]]:
    out = []
    for number, word, other in _TOKEN.findall(text):
        if number:
            out.append(("num", number))
        elif word:
            out.append(("word", word))
        elif other:
            if other == "≈":
                raise Approximate(f"an approximate number in {text!r}")
            out.append(("op", other))
    return out


class _Parser:
    def __init__(self, tokens: list[tuple[str, str]]) -> None:
        self.tokens = tokens
        self.at = 0

    def peek(self, offset: int = 0) -> tuple[str, str] | None:
        i = self.at + offset
        return self.tokens[i] if i < len(self.tokens) else None

    def take(self) -> tuple[str, str]:
        token = self.peek()
        if token is None:
            raise NotAnExpression("ends too soon")
        self.at += 1
        return token

    def expect(self, value: str) -> None:
        if self.take()[1] != value:
            raise NotAnExpression(f"expected {value!r}")

    def whole(self) -> Fraction:
        value = self.expr()
        if self.peek() is not None:
            raise NotAnExpression(f"left over: {self.tokens[self.at :]}")
        return value

    def expr(self) -> Fraction:
        value = self.term()
        while self.peek() in (("op", "+"), ("op", "-")):
            sign = self.take()[1]
            right = self.term()
            value = value + right if sign == "+" else value - right
        return value

    def term(self) -> Fraction:
        value = self.factor()
        while self.peek() in (("op", "/"), ("word", "x"), ("op", "*")):
            operator = self.take()[1]
            right = self.factor()
            if operator == "/":
                if right == 0:
                    raise NotAnExpression("division by zero")
                value = value / right
            else:
                value = value * right
        return value

    def factor(self) -> Fraction:
        kind, text = self.take()
        if kind == "num":
            value = Fraction(text)
        elif (kind, text) == ("op", "("):
            value = self.expr()
            self.expect(")")
        elif kind == "word" and text in ("min", "max") and self.peek() == ("op", "("):
            self.take()
            first = self.expr()
            self.expect(",")
            second = self.expr()
            self.expect(")")
            value = min(first, second) if text == "min" else max(first, second)
        elif kind == "word" and text == "mean" and self.peek() == ("op", "("):
            value = self.mean()
        elif kind == "word" and self.peek() is not None and self.peek()[0] in ("num",):
            return self.factor()  # a label before its number: "user 2.00"
        else:
            raise NotAnExpression(f"not a number: {text!r}")
        self.suffixes()
        return value

    def suffixes(self) -> None:
        """Units and remarks after a number: "36.00 s", "0.00 paused", "0.70 (serious …)"."""
        while True:
            token = self.peek()
            if token is None:
                return
            kind, text = token
            if kind == "word" and text not in ("x",) and (self.peek(1) is None or self.peek(1)[0] != "num"):
                self.take()
            elif (kind, text) == ("op", "("):
                self.skip_group()
            else:
                return

    def skip_group(self) -> None:
        depth = 0
        while True:
            _kind, text = self.take()
            depth += {"(": 1, ")": -1}.get(text, 0)
            if depth == 0:
                return

    def mean(self) -> Fraction:
        self.take()  # "("
        parts: list[Fraction] = []
        while True:
            if self.peek() is not None and self.peek()[0] == "word":
                self.take()  # the part's name
            if self.peek() == ("op", "-") and self.peek(1) in (("op", ","), ("op", ")")):
                self.take()  # a part not evaluated
            else:
                parts.append(self.expr())
            if self.take()[1] == ")":
                break
        if not parts:
            raise NotAnExpression("a mean of nothing")
        return sum(parts, Fraction(0)) / len(parts)


def evaluate(text: str) -> Fraction:
    """The exact value of one expression part; `NotAnExpression` when it is words."""
    return _Parser(_tokens(text)).whole()


def _split(text: str, separator: str) -> list[str]:
    """`text` split on `separator` outside parentheses."""
    parts, depth, start, i = [], 0, 0, 0
    while i < len(text):
        char = text[i]
        depth += {"(": 1, ")": -1}.get(char, 0)
        if depth == 0 and text.startswith(separator, i):
            parts.append(text[start:i])
            i += len(separator)
            start = i
            continue
        i += 1
    parts.append(text[start:])
    return parts


_RESULT = re.compile(r"\s*(≤?)(-|\d+(?:\.\d+)?(?:/\d+)?)(?=\s|$)")


@dataclass(frozen=True)
class Statement:
    name: str
    exact: Fraction | None
    """The value of its expressions (None: no expression, a missing metric)."""
    printed: str
    """The result as printed at its end: "0.97", "1/3", "36.00" or "-"."""

    @property
    def reproduces(self) -> bool:
        """The printed result is the exact value, or the exact value rounded half up."""
        if self.exact is None:
            return self.printed == "-"
        if self.printed == "-":
            return False
        return Fraction(self.printed) == self.exact or rounded(self.exact) == self.printed


def recompute(formula: str) -> list[Statement]:
    """Every statement of a printed formula, recomputed from its own digits."""
    statements = []
    for text in _split(formula, "; "):
        parts = _split(text, " = ")
        assert len(parts) >= 2, f"not a statement: {text!r}"
        match = _RESULT.match(parts[-1])
        assert match, f"no result printed at the end of {text!r}"
        values = []
        for part in parts[1:-1]:
            try:
                values.append(evaluate(part))
            except NotAnExpression:
                continue
        assert len(set(values)) <= 1, f"the steps of {text!r} disagree: {values}"
        statements.append(Statement(parts[0].strip(), values[0] if values else None, match.group(2)))
    return statements


def shown_result(formula: str) -> str:
    """What the formula's last statement prints as its result ("≤" kept off)."""
    return recompute(formula)[-1].printed


def check_page_row(name: str, shown_value: str, formula: str) -> None:
    """One metric as a page prints it: its value and its formula. Every statement
    reproduces from its own digits, and the last one gives the value shown."""
    statements = recompute(formula)
    for statement in statements:
        assert statement.reproduces, (name, statement, formula)
    last = statements[-1]
    assert shown_value.lstrip("≤") == last.printed, (name, shown_value, formula)
    if last.exact is not None:
        assert rounded(last.exact) == shown_value.lstrip("≤"), (name, shown_value, formula)
    assert shown_value.startswith("≤") == ("(at most:" in formula), (name, shown_value, formula)

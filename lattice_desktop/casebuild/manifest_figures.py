"""Write the calibrated figures into case.toml, in place, touching nothing else.

The author writes case.toml by hand (its behaviours, names, sizes and comments are theirs);
a build owns two kinds of line only: [sandbox]'s `fuel_limit` and each stress case's
`fuel_runway`, each with a note of the fuel it came from — a comment at the end of the line,
or (`notes_below`, the Lattice case's layout) the comment line right after the stress case's
last key. The same figures give the same text, so an unchanged case rebuilds byte-identical.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

import tomli

_HEADER = re.compile(r"^\s*\[\[?\s*([A-Za-z0-9_.\-]+)\s*\]\]?\s*(#.*)?$")
_KEY = re.compile(r"^\s*([A-Za-z0-9_\-]+)\s*=")


@dataclass(frozen=True)
class Runway:
    """A stress case's runway and the note saying the fuel it came from."""

    runway: int
    note: str


def with_figures(
    text: str,
    ceiling: int,
    runways: Mapping[str, Runway],
    *,
    note: str = "",
    notes_below: bool = False,
) -> str:
    """`text` with `fuel_limit = ceiling` (commented with `note`, if any) and, for each stress
    case named in `runways`, `fuel_runway = R` with its note."""
    cases = tomli.loads(text).get("case", [])
    out: list[str] = []
    case_index = 0
    for header, block in _blocks(text.splitlines()):
        body = block
        if header == "sandbox":
            body = _set_key(body, "fuel_limit", _commented(f"fuel_limit = {ceiling:_}", note))
        elif header == "case":
            name = cases[case_index].get("name") if case_index < len(cases) else None
            case_index += 1
            if isinstance(name, str) and name in runways:
                figure = runways[name]
                line = f"fuel_runway = {figure.runway}"
                if notes_below:
                    body = _set_note_below(_set_key(body, "fuel_runway", line), f"# {figure.note}")
                else:
                    body = _set_key(body, "fuel_runway", _commented(line, figure.note))
        out += body
    return "\n".join(out) + "\n"


def _commented(line: str, note: str) -> str:
    return f"{line}  # {note}" if note else line


def _blocks(lines: list[str]) -> list[tuple[str | None, list[str]]]:
    """The text cut at each table header: (the table's name, its lines with the header)."""
    blocks: list[tuple[str | None, list[str]]] = [(None, [])]
    for line in lines:
        match = _HEADER.match(line)
        if match:
            blocks.append((match.group(1), [line]))
        else:
            blocks[-1][1].append(line)
    return blocks


def _keyed(body: list[str]) -> list[int]:
    return [i for i, text in enumerate(body) if _KEY.match(text)]


def _set_key(body: list[str], key: str, line: str) -> list[str]:
    """The block with `key`'s line replaced by `line`, or `line` added after its last key."""
    keyed = _keyed(body)
    own = [i for i in keyed if (m := _KEY.match(body[i])) and m.group(1) == key]
    if own:
        return [*body[: own[0]], line, *body[own[0] + 1 :]]
    at = keyed[-1] if keyed else 0
    return [*body[: at + 1], line, *body[at + 1 :]]


def _set_note_below(body: list[str], note: str) -> list[str]:
    """The block with `note` as the line after its last key (replacing the comment line
    there, which is the build's own note)."""
    at = _keyed(body)[-1] + 1
    replaced = at < len(body) and body[at].lstrip().startswith("#")
    return [*body[:at], note, *body[at + int(replaced) :]]

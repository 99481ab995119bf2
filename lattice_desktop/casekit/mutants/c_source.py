"""Just enough of C to mutate a reference: where its code is, its functions, and which of
them the entry export reaches.

No parser: the references are plain freestanding C, so masking comments, string and char
literals and preprocessor lines, then matching braces at the top level, finds every
function definition. A function is *run* when the entry export (or `alloc`, which the
grader calls first) reaches it through calls by name, which covers the Lattice engine
hooks (`engine_tick`, …) since the header calls them by name too.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

IDENT = re.compile(r"[A-Za-z_]\w*")
KEYWORDS = frozenset(
    [
        "if",
        "else",
        "for",
        "while",
        "do",
        "switch",
        "case",
        "default",
        "return",
        "break",
        "continue",
        "sizeof",
        "goto",
    ]
)


@dataclass(frozen=True)
class Function:
    file: str
    name: str
    head: int  # offset where its head (return type, name, parameters) begins
    start: int  # offset of its body's `{`
    end: int  # offset just past its body's `}`


def mask(text: str) -> str:
    """`text` with comments, literals and preprocessor lines blanked (newlines kept), so an
    offset in the mask is the same offset in the text."""
    out = list(text)
    i, n = 0, len(text)
    line_start = True
    while i < n:
        ch = text[i]
        if line_start and ch == "#":
            j = i
            while j < n and text[j] != "\n":  # a directive, with its continuation lines
                j = j + 2 if text.startswith("\\\n", j) else j + 1
            _blank(out, i, j)
            i = j
            continue
        if ch in " \t":
            i += 1
            continue
        line_start = ch == "\n"
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
        elif ch in "\"'":
            j = i + 1
            while j < n and text[j] != ch:
                j += 2 if text[j] == "\\" else 1
            j += 1
        else:
            i += 1
            continue
        _blank(out, i, j)
        i = j
    return "".join(out)


def _blank(out: list[str], start: int, end: int) -> None:
    for k in range(start, min(end, len(out))):
        if out[k] != "\n":
            out[k] = " "


def functions(file: str, masked: str) -> list[Function]:
    """Every function definition: a top-level `{ … }` whose head ends in `)`."""
    found = []
    depth = 0
    head_start = 0
    i = 0
    while i < len(masked):
        ch = masked[i]
        if ch == "{":
            if depth == 0:
                close = _match(masked, i)
                name = _function_name(masked[head_start:i])
                if name:
                    found.append(Function(file, name, _skip_space(masked, head_start), i, close + 1))
                i = close + 1
                head_start = i
                continue
            depth += 1
        elif ch == "}":
            depth -= 1
        elif ch == ";" and depth == 0:
            head_start = i + 1
        i += 1
    return found


def _skip_space(masked: str, at: int) -> int:
    while at < len(masked) and masked[at].isspace():
        at += 1
    return at


def _match(masked: str, open_at: int) -> int:
    depth = 0
    for j in range(open_at, len(masked)):
        if masked[j] == "{":
            depth += 1
        elif masked[j] == "}":
            depth -= 1
            if depth == 0:
                return j
    raise ValueError(f"unbalanced braces from offset {open_at}")


def _function_name(head: str) -> str | None:
    head = re.sub(r"__attribute__\s*\(\(.*?\)\)", " ", head.strip(), flags=re.S)
    if not head.endswith(")") or "=" in head.split("(")[0]:
        return None
    depth = 0
    for j in range(len(head) - 1, -1, -1):  # the `(` that opens the parameter list
        if head[j] == ")":
            depth += 1
        elif head[j] == "(":
            depth -= 1
            if depth == 0:
                names = IDENT.findall(head[:j])
                return names[-1] if names and names[-1] not in KEYWORDS else None
    return None


def reached(bodies: dict[str, str], roots: tuple[str, ...]) -> set[str]:
    """The functions `roots` reach by name; `bodies` maps each function to its masked body
    (a wrapper's own export named in a macro is reached through its name in any body)."""
    seen: set[str] = set()
    todo = [r for r in roots if r in bodies]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        todo += [w for w in IDENT.findall(bodies[name]) if w in bodies and w not in seen]
    return seen


def line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def line_text(text: str, line: int) -> str:
    return text.splitlines()[line - 1].strip() if line <= text.count("\n") + 1 else ""


def typedef_names(masked: str) -> set[str]:
    """Names a typedef declares: `typedef … NAME;` and `} NAME;` after a struct body."""
    names = set(re.findall(r"typedef\s+[^;{}]*?\b(\w+)\s*;", masked))
    names |= set(re.findall(r"\}\s*(\w+)\s*;", masked))
    return names

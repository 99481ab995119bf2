"""The mutation operators: each a small, plausible slip in one place of the reference.

Every mutant changes one span of one source file. The operators, over the functions the
entry reaches (c_source.py):

| operator | what it does |
|---|---|
| `arithmetic` | a binary `+ - * / % << >> & \\| ^`, a compound `+= -= &= \\|=`, `++`/`--`, |
|  | or `&&`/`\\|\\|`, swapped for its counterpart |
| `comparison` | `<` ↔ `<=`, `>` ↔ `>=`, `==` ↔ `!=` |
| `constant` | an integer literal up to 65,536 made one more, or one less |
| `swap` | two adjacent statements of a block in the other order |
| `remove` | one statement left out |
| `loop_direction` | `for (i = a; i < b; i++)` run from b − 1 down to a |
| `narrow` | a `u64` made 32-bit, a `u32` 16-bit, an `i32` 16-bit (bodies and signatures) |

Larger constants (hash multipliers, masks) are left alone: a change to one is a change to
every answer, which says nothing about any test.
"""

from __future__ import annotations

import hashlib
import itertools
import re
from dataclasses import dataclass

from lattice_desktop.casekit.mutants.c_source import (
    IDENT,
    KEYWORDS,
    Function,
    functions,
    line_of,
    line_text,
    mask,
    reached,
    typedef_names,
)

TOKEN = re.compile(
    r"0[xX][0-9a-fA-F]+[uUlL]*|\d+[uUlL]*|[A-Za-z_]\w*|"
    r"<<=|>>=|\+\+|--|->|&&|\|\||<<|>>|<=|>=|==|!=|\+=|-=|\*=|/=|%=|&=|\|=|\^=|[-+*/%<>&|^!=~?:;,()\[\]{}.]"
)
ARITHMETIC = {
    "+": "-",
    "-": "+",
    "*": "/",
    "/": "*",
    "%": "/",
    "<<": ">>",
    ">>": "<<",
    "&": "|",
    "|": "&",
    "^": "|",
    "+=": "-=",
    "-=": "+=",
    "&=": "|=",
    "|=": "&=",
    "++": "--",
    "--": "++",
    "&&": "||",
    "||": "&&",
}
UNARY_TOO = frozenset({"+", "-", "*", "&"})  # binary only after an operand
COMPARISON = {"<": "<=", "<=": "<", ">": ">=", ">=": ">", "==": "!=", "!=": "=="}
NARROW = {
    "u64": ("unsigned int", "u64→u32"),
    "u32": ("unsigned short", "u32→u16"),
    "i32": ("short", "i32→i16"),
}
BASE_TYPES = frozenset(
    [
        "void",
        "char",
        "short",
        "int",
        "long",
        "unsigned",
        "signed",
        "const",
        "static",
        "struct",
        "enum",
        "volatile",
    ]
)
LARGEST_CONSTANT = 65_536
LOOP = re.compile(
    r"for\s*\(\s*((?:\w+\s+)?)(\w+)\s*=\s*([^;()]*?)\s*;\s*\2\s*<\s*([^;]*?)\s*;\s*(?:\2\s*\+\+|\+\+\s*\2)\s*\)"
)
NO_SWAP = re.compile(r"(else|case|default|return|break|continue|goto)\b")


@dataclass(frozen=True)
class Mutant:
    """One change to the reference: `replacement` in place of `file`[start:end]."""

    key: str  # a hash of the mutated source: the same mutant has the same key in every run
    operator: str
    file: str
    start: int
    end: int
    replacement: str
    function: str
    line: int
    before: str  # the line as the reference has it
    after: str  # the line as the mutant has it
    name: str = ""  # a declared mutant's name
    breaks: str = ""  # a declared mutant's rule

    def apply(self, sources: dict[str, str]) -> dict[str, str]:
        text = sources[self.file]
        return {**sources, self.file: text[: self.start] + self.replacement + text[self.end :]}

    @property
    def label(self) -> str:
        return self.name or f"{self.operator} {self.file}:{self.line}"


def make(
    sources: dict[str, str],
    *,
    operator: str,
    file: str,
    start: int,
    end: int,
    new: str,
    function: str,
    name: str = "",
    breaks: str = "",
) -> Mutant:
    text = sources[file]
    mutated = text[:start] + new + text[end:]
    key = hashlib.sha256(f"{file}\0{mutated}".encode()).hexdigest()[:16]
    line = line_of(text, start)
    after_line = line_of(mutated, start)
    return Mutant(
        key,
        operator,
        file,
        start,
        end,
        new,
        function,
        line,
        line_text(text, line),
        line_text(mutated, after_line),
        name,
        breaks,
    )


def generate(sources: dict[str, str], roots: tuple[str, ...]) -> list[Mutant]:
    """Every mutant of the functions `roots` reach, once each (by key), in source order."""
    masks = {f: mask(t) for f, t in sources.items()}
    funcs = [fn for f, m in masks.items() for fn in functions(f, m)]
    bodies = {fn.name: masks[fn.file][fn.start : fn.end] for fn in funcs}
    run = reached(bodies, roots)
    types = {n for m in masks.values() for n in typedef_names(m)} | BASE_TYPES
    out: dict[str, Mutant] = {}
    for fn in funcs:
        if fn.name not in run:
            continue
        for mutant in _of_function(sources, masks[fn.file], fn, types):
            out.setdefault(mutant.key, mutant)
    return list(out.values())


def _of_function(sources: dict[str, str], masked: str, fn: Function, types: set[str]) -> list[Mutant]:
    found: list[Mutant] = []

    def add(operator: str, start: int, end: int, new: str) -> None:
        found.append(
            make(sources, operator=operator, file=fn.file, start=start, end=end, new=new, function=fn.name)
        )

    tokens = [(m.start(), m.group()) for m in TOKEN.finditer(masked, fn.head, fn.end)]
    previous = ""
    for at, tok in tokens:
        in_body = at > fn.start
        if tok in NARROW:
            add("narrow", at, at + len(tok), NARROW[tok][0])
        elif in_body and tok in ARITHMETIC and (tok not in UNARY_TOO or _operand(previous, types)):
            add("arithmetic", at, at + len(tok), ARITHMETIC[tok])
        elif in_body and tok in COMPARISON:
            add("comparison", at, at + len(tok), COMPARISON[tok])
        elif in_body and tok[0].isdigit():
            digits = tok.rstrip("uUlL")
            value = int(digits, 0)
            if value <= LARGEST_CONSTANT:
                suffix = tok[len(digits) :]
                add("constant", at, at + len(tok), f"{value + 1}{suffix}")
                if value > 0:
                    add("constant", at, at + len(tok), f"{value - 1}{suffix}")
        previous = tok
    for m in LOOP.finditer(masked, fn.start, fn.end):
        head, var, low, high = m.groups()
        add("loop_direction", m.start(), m.end(), f"for ({head}{var} = {high}; {var}-- > {low};)")
    statements = _statements(masked, fn)
    statements = [(a, b) for a, b in statements if not _else_follows(masked, b)]  # if-else: one statement
    for start, end in statements:
        if not _declaration(masked[start:end], types):
            add("remove", start, end + 1, "")
    for (a0, a1), (b0, b1) in itertools.pairwise(statements):
        first, second = masked[a0:a1], masked[b0:b1]
        if masked[a1 + 1 : b0].strip() or NO_SWAP.match(first) or NO_SWAP.match(second):
            continue
        if _declaration(first, types) or _declaration(second, types):
            continue
        text = sources[fn.file]
        add("swap", a0, b1 + 1, text[b0 : b1 + 1] + text[a1 + 1 : b0] + text[a0 : a1 + 1])
    return found


def _operand(previous: str, types: set[str]) -> bool:
    """Whether the token before an operator ends an operand (so the operator is binary)."""
    if previous in (")", "]") or previous[:1].isdigit():
        return True
    return bool(IDENT.fullmatch(previous)) and previous not in KEYWORDS and previous not in types


def _statements(masked: str, fn: Function) -> list[tuple[int, int]]:
    """Each simple statement of the body as (start, offset of its `;`): text after `{`, `}`
    or `;` up to the next `;` outside parentheses, with no brace between."""
    spans = []
    depth = 0
    begin = fn.start + 1
    for i in range(fn.start + 1, fn.end - 1):
        ch = masked[i]
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch in "{}" and depth == 0:
            begin = i + 1
        elif ch == ";" and depth == 0:
            start = begin
            while start < i and masked[start].isspace():
                start += 1
            label = re.match(r"(case\s+\w+\s*:|default\s*:|else\b)\s*", masked[start:i])
            if label:
                start += label.end()
            if start < i and not re.match(r"(do|switch)\b", masked[start:i]):
                spans.append((start, i))
            begin = i + 1
    return spans


def _else_follows(masked: str, semicolon: int) -> bool:
    """Whether an `else` follows the statement ending at `semicolon`: then it is the body of
    an `if` that goes on, and moving or removing it alone would move that `else` too."""
    return re.match(r"\s*else\b", masked[semicolon + 1 : semicolon + 64]) is not None


def _declaration(statement: str, types: set[str]) -> bool:
    first = IDENT.match(statement.strip())
    return first is not None and first.group() in types

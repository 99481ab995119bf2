"""The files `case new` writes: a small case that builds and checks as it stands.

Its problem is deliberately plain (the sum of the numbers in the input) so that an author
replaces it rather than reads it: the point is the shape — a reference in C built with the
bundled toolchain, an input generator, smoke tests that each isolate one behaviour, one
slip per behaviour, stress inputs of a few sizes, and kit.toml tying them together.
"""

from __future__ import annotations

from dataclasses import dataclass

COMPILE = (
    "python -m ziglang cc --target=wasm32-freestanding -O2 -g -fdebug-compilation-dir=. -nostdlib "
    "-Wl,--no-entry -o solution.wasm solution.c"
)

REFERENCE_HEADER = r"""/* The reference: its answers are the case's expected answers, and its fuel sets the
 * ceiling and the runways (`lattice-desktop case build`). Replace `solve`'s loop with your
 * problem; keep the contract: the grader calls alloc(len), writes the input there, calls
 * solve(ptr, len) and reads the answer at (result >> 32), (result & 0xffffffff) bytes long.
 *
 * This one answers the sum of the decimal numbers in the input, as one u64. */
"""

SOLUTION_C = r"""#define EXPORT(name) __attribute__((export_name(name)))
typedef unsigned int u32;
typedef unsigned long long u64;

extern unsigned char __heap_base;
static u32 top;

/* A bump allocator over linear memory, grown as needed; nothing is ever freed. */
EXPORT("alloc") u32 alloc(u32 n) {
    if (!top) top = ((u32)&__heap_base + 7) & ~7u;
    u64 p = top, end = p + n;
    u64 have = (u64)__builtin_wasm_memory_size(0) * 65536;
    if (end > have) {
        unsigned long pages = (unsigned long)((end - have + 65535) / 65536);
        if (__builtin_wasm_memory_grow(0, pages) == (unsigned long)-1) __builtin_trap();
    }
    top = (u32)((end + 7) & ~7ull);
    return (u32)p;
}

EXPORT("solve") u64 solve(u32 ptr, u32 len) {
    const unsigned char *s = (const unsigned char *)(unsigned long)ptr;
    u64 sum = 0;
    u32 i = 0;
    while (i < len) {
        if (s[i] < '0' || s[i] > '9') { i++; continue; }
        u64 v = 0;
        while (i < len && s[i] >= '0' && s[i] <= '9') v = v * 10 + (u64)(s[i++] - '0');
        sum += v;
    }
    u64 *out = (u64 *)(unsigned long)alloc(8);
    *out = sum;
    return ((u64)(unsigned long)out << 32) | 8;
}
"""

REFERENCE_C = REFERENCE_HEADER + SOLUTION_C


@dataclass(frozen=True)
class SlipText:
    """A slip: the reference's code with one mistake (`old` made `new`), and its own header."""

    folder: str
    breaks: str  # the smoke test (so the behaviour) it must fail
    mistake: str  # what it gets wrong, for its header
    old: str
    new: str

    def source(self) -> str:
        if self.old not in SOLUTION_C:
            raise AssertionError(f"the slip {self.folder} no longer applies to the reference")
        header = (
            f"/* A slip: the reference with one mistake, which the smoke tests of `{self.breaks}`\n"
            f" * (and no other) must catch; `lattice-desktop case check` proves they do.\n"
            f" *\n * The mistake: {self.mistake}. */\n"
        )
        return header + SOLUTION_C.replace(self.old, self.new, 1)


SLIPS = (
    SlipText(
        "newline_ends_input",
        "separators",
        "it stops at the first newline, as if the input ended there",
        "if (s[i] < '0' || s[i] > '9') { i++; continue; }",
        "if (s[i] == '\\n') break;\n        if (s[i] < '0' || s[i] > '9') { i++; continue; }",
    ),
    SlipText(
        "sum_in_32_bits",
        "wide_sum",
        "it adds in 32 bits, so a sum past 4,294,967,295 wraps around",
        "u64 sum = 0;",
        "u32 sum = 0;",
    ),
)

GENERATOR = '''"""Write the stress inputs: `python generate.py` (`lattice-desktop case build` runs it).

Deterministic: each size has its own seed, so a rebuild writes the same bytes. Give each
input a [[case]] in case.toml with its `size`, which the Fuel tab plots fuel against.
"""

import random
from pathlib import Path

SIZES = (1_000, 10_000, 100_000)


def main() -> None:
    out = Path(__file__).parent / "stress"
    out.mkdir(exist_ok=True)
    for n in SIZES:
        rng = random.Random(n)
        values = [str(rng.getrandbits(32)) for _ in range(n)]
        (out / f"n-{n}.txt").write_text("\\n".join(values) + "\\n")


if __name__ == "__main__":
    main()
'''


def case_toml(name: str) -> str:
    stress = "".join(
        f'\n[[case]]\nname = "n-{n}"\nkind = "stress"\ninput_file = "stress/n-{n}.txt"\n'
        f'expected_file = "expected/n-{n}.u64"\nsize = {n}\n'
        for n in (1_000, 10_000, 100_000)
    )
    return f'''# The case manifest (docs/manifests.md). `lattice-desktop case build .` writes the
# expected answers and the figures (fuel_limit, each stress case's fuel_runway).
[meta]
name = "{name}"
version = 1
description = "The sum of the decimal numbers in the input, as one u64."

[contract]
abi = "bytes"
entry = "solve"
output = "u64-list"

[sandbox]
fuel_limit = 1_000_000_000
wall_clock_s = 60

# Smoke tests: tiny inputs, each isolating one behaviour; a slip in kit.toml breaks each.
[[case]]
name = "separators"
kind = "smoke"
behaviour = "Numbers are separated by any run of spaces, tabs and newlines."
input = "1  2\\n3\\t4\\n"
expected = [10]

[[case]]
name = "wide_sum"
kind = "smoke"
behaviour = "The sum needs 64 bits."
input = "4294967295 1"
expected = [4294967296]

# Stress cases: written by generate.py, answered by the reference, graded on fuel.
{stress}'''


def kit_toml() -> str:
    slips = "".join(
        f'\n[[slip]]\nsubmission = "slips/{slip.folder}"\nbreaks = "{slip.breaks}"\n' for slip in SLIPS
    )
    return f"""# How `lattice-desktop case build` builds this case, and what `case check` proves.
[reference]
submission = "submissions/reference"   # its answers are the expected ones

[inputs]
generator = "generate.py"              # run before every build

[calibration]                          # the rule (docs/case-authoring.md, "Build")
headroom = 1.5                         # ceiling = 1.5 × the reference's most fuel on a stress case
reading = 4                            # an engine 4× slower than the reference still gets a reading
step = 0.05                            # each smaller size gets 5% more runway
slack = 1.0                            # fuel the reading engine's meter leaves out (1.0: none)
# reading_sample = "submissions/slow"  # size the runway on this correct sample's measured
                                       # fuel instead of the reference's ("Choosing reading")

# Slips: small wrong submissions, each failing exactly the smoke tests of its behaviour.
{slips}"""


def submission_toml(model: str, verdict: str | None) -> str:
    expected = f'expected_verdict = "{verdict}"\n' if verdict else ""
    return (
        f'[submission]\nmodel = "{model}"\ncase = "../.."\n{expected}\n'
        f'[build]\ncommands = ["{COMPILE}"]\nmodule = "solution.wasm"\n'
    )


def readme(name: str) -> str:
    return f"""# The `{name}` case

A performance case for Lattice Desktop, made with `lattice-desktop case new`. The walk-through
is docs/case-authoring.md; this is the map of the folder.

| Path | What it is | Who writes it |
|---|---|---|
| `case.toml` | the manifest: contract, sandbox, smoke and stress cases | you; `case build` its figures |
| `kit.toml` | the reference, the generator, the calibration rule, the slips | you |
| `submissions/reference/solution.c` | the reference: its answers are the expected ones | you |
| `generate.py` | writes `stress/`, deterministically | you |
| `stress/`, `expected/`, `*.wasm` | inputs, answers, modules | `case build` |
| `submissions/*/` | samples, each with its `expected_verdict` | you |
| `slips/*/` | wrong submissions, one behaviour each (kit.toml names it) | you |

The loop:

    lattice-desktop case build . --allow-case-code          # generate, compile, answer, calibrate
    lattice-desktop case check .                            # samples get their verdicts, slips
                                                            # fail their smoke tests
    lattice-desktop case build . --allow-case-code --check  # for CI: exit 1 if a build changes anything

`--allow-case-code` runs this folder's generator and build commands, jailed like a
submission's build: give it only to a case whose code you are willing to run.
"""


def files(name: str) -> dict[str, str]:
    """Every file of a new case called `name`, by path inside its folder."""
    out = {
        "case.toml": case_toml(name),
        "kit.toml": kit_toml(),
        "generate.py": GENERATOR,
        "README.md": readme(name),
        "submissions/reference/solution.c": REFERENCE_C,
        "submissions/reference/submission.toml": submission_toml("sample-reference", "correct"),
    }
    for slip in SLIPS:
        out[f"slips/{slip.folder}/solution.c"] = slip.source()
        out[f"slips/{slip.folder}/submission.toml"] = submission_toml(f"slip-{slip.folder}", None)
    return out

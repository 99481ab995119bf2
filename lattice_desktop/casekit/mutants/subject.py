"""What a mutation run works on: the case, its reference's sources, the functions to start
from, the rule each mutant's code belongs to, the mutants the case declares, and how to
make generated inputs that tell an equivalent mutant from a survivor.

A kit case (kit.toml) describes all that in its `[mutants]` table and `[[mutant]]` tables:

    [mutants]
    inputs = "sample_inputs.py"   # `python sample_inputs.py FOLDER COUNT` writes COUNT inputs
    samples = 40                  # how many (default 40)

    [[mutant]]                    # a rule-level mutant: one text replacement in the reference
    name = "count_in_32_bits"
    breaks = "wide_count"         # a smoke test (or behaviour) it must fail
    file = "solution.c"           # default: the reference's one .c file
    old = "u64 count ="
    new = "u32 count ="

The bundled Lattice case ships no kit, so lattice_subject.py says the same in code.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from lattice_desktop.casekit.kit_file import Kit
from lattice_desktop.casekit.mutants.operators import Mutant, generate, make
from lattice_desktop.errors import UserError
from lattice_desktop.manifest import CaseManifest
from lattice_desktop.manifest.toml_source import TomlDocument

SOURCE_SUFFIXES = (".c", ".h")
DEFAULT_SAMPLES = 40
SAMPLE_TIMEOUT_S = 300


@dataclass(frozen=True)
class Declared:
    """A mutant the case declares: `new` in place of the one `old` in `file`."""

    name: str
    breaks: str
    file: str
    old: str
    new: str
    line: int  # where it is declared, for located messages
    where: str  # the file that declares it


@dataclass(frozen=True)
class Subject:
    case: CaseManifest
    reference: Path  # the reference submission's folder
    roots: tuple[str, ...]  # the exports the grader calls
    declared: tuple[Declared, ...] = ()
    rule_of: Callable[[Mutant], str] = field(default=lambda _: "")  # "" when in no rule's code
    samples: Callable[[int], list[bytes]] = field(default=lambda _: [])
    sample_count: int = DEFAULT_SAMPLES

    def sources(self) -> dict[str, str]:
        return {
            p.name: p.read_text()
            for p in sorted(self.reference.iterdir())
            if p.is_file() and p.suffix in SOURCE_SUFFIXES
        }

    def mutants(self) -> list[Mutant]:
        """The declared mutants first, then every operator's, once each."""
        sources = self.sources()
        out: dict[str, Mutant] = {}
        for d in self.declared:
            text = sources.get(d.file)
            if text is None or text.count(d.old) != 1:
                found = "not found" if text is None or d.old not in text else "found more than once"
                raise UserError(f"{d.where}:{d.line}: mutant {d.name}: its `old` text is {found} in {d.file}")
            start = text.index(d.old)
            function = ""
            m = make(
                sources,
                operator="declared",
                file=d.file,
                start=start,
                end=start + len(d.old),
                new=d.new,
                function=function,
                name=d.name,
                breaks=d.breaks,
            )
            out.setdefault(m.key, m)
        for m in generate(sources, self.roots):
            out.setdefault(m.key, m)
        return list(out.values())

    def rule(self, mutant: Mutant) -> str:
        return mutant.breaks or self.rule_of(mutant)


def kit_subject(case: CaseManifest, kit: Kit) -> Subject:
    doc = TomlDocument.load(kit.path)
    table = doc.table("mutants", required=False)
    table.check_keys(("inputs", "samples"))
    script = table.file("inputs", None)
    count = table.integer("samples", DEFAULT_SAMPLES, minimum=0, maximum=10_000)
    c_files = sorted(p.name for p in kit.reference.glob("*.c"))
    declared = []
    for t in doc.tables("mutant"):
        t.check_keys(("name", "breaks", "file", "old", "new"))
        default_file = c_files[0] if len(c_files) == 1 else None
        declared.append(
            Declared(
                name=t.string("name"),
                breaks=t.string("breaks"),
                file=t.string("file", default_file),
                old=t.string("old"),
                new=t.string("new"),
                line=doc.line_of(t.path),
                where=str(kit.path),
            )
        )
    return Subject(
        case=case,
        reference=kit.reference,
        roots=(case.contract.entry, case.contract.alloc),
        declared=tuple(declared),
        samples=(lambda n: _script_samples(Path(script), n)) if script else (lambda _: []),
        sample_count=count if script else 0,
    )


def _script_samples(script: Path, count: int) -> list[bytes]:
    """Run the case's sample script into a fresh folder; its files, by name."""
    with tempfile.TemporaryDirectory(prefix="mutant-inputs-") as tmp:
        done = subprocess.run(
            [sys.executable, script.name, tmp, str(count)],
            cwd=script.parent,
            capture_output=True,
            text=True,
            timeout=SAMPLE_TIMEOUT_S,
            check=False,
        )
        if done.returncode != 0:
            log = (done.stdout + done.stderr).strip()[-2000:]
            raise UserError(f"{script}: the sample inputs script failed (exit {done.returncode}):\n{log}")
        return [p.read_bytes() for p in sorted(Path(tmp).iterdir(), key=lambda p: p.name)]

"""The bundled Lattice case as a mutation subject: its `reference` sample (reference.c and
lattice_common.h), the rule each function (or line) of it carries out, the single-rule
slips written as text changes, and generated factories to tell equivalent mutants apart.

The map is by function, refined by a line's text where one function serves several rules
(`step` decides belts, side-load ranks and exits alike). `turn` owns no code here: a belt
takes a side-load by the same move as an item from behind (`target_of`, `step`), and the
list of a slot's contenders (`belt_contenders`) only ranks them, so it is
`side_load_priority`'s (a slot with one contender takes its item whatever the list says,
unless the list names a cell that holds one). Code no rule owns — the parser, the
checksum, the allocator, the exports — counts in the smoke and whole-case scores but in no
rule's.
"""

from __future__ import annotations

from lattice_desktop.casekit.mutants.operators import Mutant
from lattice_desktop.casekit.mutants.subject import Declared, Subject
from lattice_desktop.errors import UserError
from lattice_desktop.lattice.generator import generate
from lattice_desktop.manifest import CaseManifest

SAMPLES = 24
FUNCTIONS = {
    "produce": "source_period_and_full_buffer",
    "craft": "crafting_timing",
    "accept_pass": "assembler_capacity",
    "asm_accepts": "assembler_capacity",
    "asm_input": "assembler_refuses_unneeded_type",
    "sink_add": "sink_counting",
    "deliver": "sink_counting",
    "neighbor": "grid_edge",
    "target_of": "grid_edge",
    "belt_contenders": "side_load_priority",
    "moved": "straight_belt",
    "step": "chained_movement",
    "resolve": "chained_movement",
    "engine_tick": "chained_movement",
}
# (function, a text of the line) -> rule, checked before the function's own rule. A text
# with a newline is the end of the line before and the start of the line itself (for a
# statement, as `break;`, that the function has more than once).
LINES = (
    ("accept_pass", "for (u32 q = 0; q < 4; q++)", "assembler_priority"),
    ("accept_pass", "if (!k) continue;", "assembler_priority"),
    ("deliver", "a->buf[asm_input(a, type)]++", "assembler_capacity"),
    ("deliver", "Assembler *a", "assembler_capacity"),
    ("target_of", "if (t < 0)", "grid_edge"),
    ("target_of", "BELT_DIR(k) != (u8)OPP(d)", "opposite_belt_refused"),
    ("target_of", "K_SINK", "sink_counting"),
    ("target_of", "K_ASM", "assembler_capacity"),
    # the last line, a target that refuses (blocked): after "if (t < 0)", which also has it
    ("target_of", "return T_NONE;", "compression_behind_blocked_exit"),
    ("step", "CONTENDER_ORDER", "side_load_priority"),
    ("step", "for (u32 r = 0; r < 3; r++)", "side_load_priority"),
    ("step", "cc != (i32)c", "side_load_priority"),
    ("step", "engine_exit_item(w, (u32)cc)", "side_load_priority"),
    ("step", "case T_SINK", "sink_counting"),
    ("step", "case T_ASM", "assembler_capacity"),
    ("step", "default: return STAYS", "grid_edge"),
    ("step", "slot_item((u32)tc, 0)", "straight_belt"),
    ("step", "i32 cont[3]", "side_load_priority"),  # the contenders' list, as belt_contenders
    ("resolve", "PENDING", "ring_rotation"),
    ("resolve", "result = MOVES;", "ring_rotation"),
    ("resolve", "result = MOVES;\nbreak;", "ring_rotation"),
    ("engine_tick", "get_decision(c, s) != MOVES", "compression_behind_blocked_exit"),
    ("engine_tick", "now |= item << (8 * s)", "compression_behind_blocked_exit"),
    ("engine_tick", "now |= item << (8 * (s + 1))", "straight_belt"),
    ("engine_tick", "else if (s < 3)", "straight_belt"),  # the condition of the line after
    ("engine_tick", "incoming[c]", "straight_belt"),
    ("engine_tick", "produce(w, t)", "source_period_and_full_buffer"),
    ("engine_tick", "craft(w, 0)", "crafting_timing"),
    ("engine_tick", "accept_pass(w)", "assembler_capacity"),
)


def rule_of(mutant: Mutant, sources: dict[str, str] | None = None) -> str:
    """The rule whose code the mutant changes; "" for shared code and for a narrowed type
    (a slip of scale, not of a rule: only a large input shows it, as with `scale_bug`).
    `sources` (the reference's files) gives the line before the mutant's, for LINES' texts
    that need it."""
    if mutant.operator == "narrow":
        return ""
    line = mutant.before.strip()
    above = ""
    if sources and mutant.file in sources:
        text = sources[mutant.file]
        end = text.rfind("\n", 0, mutant.start)  # where the mutant's line begins, less one
        above = text[text.rfind("\n", 0, max(end, 0)) + 1 : max(end, 0)].strip()
    for function, text, rule in LINES:
        if mutant.function == function and text in (f"{above}\n{line}" if "\n" in text else line):
            return rule
    return FUNCTIONS.get(mutant.function, "")


def _declared(name: str, breaks: str, file: str, old: str, new: str) -> Declared:
    return Declared(name, breaks, file, old, new, 0, "lattice_subject.py")


H, C = "lattice_common.h", "engine.c"
DECLARED = (
    _declared(
        "source_clock_pauses_while_full",
        "source_period_and_full_buffer",
        H,
        "if (!s->buf && s->phase == 0) s->buf = s->type;",
        "if (s->buf) continue; /* the clock pauses while the buffer is full */\n"
        "        if (s->phase == 0) s->buf = s->type;",
    ),
    _declared(
        "edge_wraps_as_a_torus",
        "grid_edge",
        H,
        "if (nx < 0 || ny < 0 || nx >= (i32)w->w || ny >= (i32)w->h) return -1;",
        "nx = (nx + (i32)w->w) % (i32)w->w;\n    ny = (ny + (i32)w->h) % (i32)w->h;",
    ),
    _declared(
        "edge_wraps_by_index",
        "grid_edge",
        H,
        "if (nx < 0 || ny < 0 || nx >= (i32)w->w || ny >= (i32)w->h) return -1;",
        "if (ny < 0 || ny >= (i32)w->h) return -1;\n"
        "    if (nx < 0 || nx >= (i32)w->w) return (i32)c + DX[d] < (i32)w->ncells ? (i32)c + DX[d] : -1;",
    ),
    _declared(
        "right_before_left",
        "side_load_priority",
        C,
        "CONTENDER_ORDER[3] = {0, 1, 2}",
        "CONTENDER_ORDER[3] = {0, 2, 1}",
    ),
    _declared(
        "opposite_belt_accepted",
        "opposite_belt_refused",
        H,
        "if (IS_BELT(k) && BELT_DIR(k) != (u8)OPP(d)) return T_BELT;",
        "if (IS_BELT(k)) return T_BELT;",
    ),
    _declared(
        "craft_while_output_waits",
        "crafting_timing",
        H,
        "if (a->remaining || a->output) continue;",
        "if (a->remaining) continue;",
    ),
    _declared(
        "room_ignores_this_tick",
        "assembler_capacity",
        H,
        "a->buf[j] + taken[j] >= 2 * a->cnt[j]",
        "a->buf[j] >= 2 * a->cnt[j]",
    ),
    _declared(
        "offers_taken_west_first",
        "assembler_priority",
        H,
        "for (u32 q = 0; q < 4; q++) {\n            if (a->nb[q] < 0) continue;",
        "for (u32 r = 0; r < 4; r++) {\n            u32 q = 3 - r;\n            if (a->nb[q] < 0) continue;",
    ),
    _declared(
        "unneeded_type_ends_the_tick",
        "assembler_refuses_unneeded_type",
        H,
        "if (j < 0 || a->buf[j]",
        "if (j < 0) break;\n            if (a->buf[j]",
    ),
    _declared(
        "rings_never_rotate",
        "ring_rotation",
        C,
        "/* back at the start: a ring of full slots rotates */\n            result = MOVES;",
        "/* back at the start */\n            result = STAYS;",
    ),
    _declared(
        "lands_in_slot_one",
        "straight_belt",
        C,
        "u32 old = slots[c], now = incoming[c];",
        "u32 old = slots[c], now = incoming[c] << 8;",
    ),
)


def samples(count: int) -> list[bytes]:
    """Small generated factories, each with every feature the generator lays."""
    return [
        generate(7_000 + i, width=20 + i % 5, height=18 + i % 7, ticks=60, snapshot=5).encode()
        for i in range(count)
    ]


def lattice_subject(case: CaseManifest) -> Subject:
    folder = (case.samples_dir or case.path.parent / "submissions") / "reference"
    if not (folder / C).is_file():
        raise UserError(f"{folder}: no {C}, the reference engine a Lattice mutation run mutates")
    sources = Subject(case=case, reference=folder, roots=()).sources()
    return Subject(
        case=case,
        reference=folder,
        roots=(case.contract.entry, case.contract.alloc),
        declared=DECLARED,
        rule_of=lambda mutant: rule_of(mutant, sources),
        samples=samples,
        sample_count=SAMPLES,
    )

"""Fields of submissions for the batch tests: the bundled samples on a trimmed copy of the
bundled case, hostile modules on a tiny echo case, and slow modules for cancel and kill."""

from __future__ import annotations

import shutil
from pathlib import Path

from lattice_desktop.resources import RESOURCES
from tests.core.wat_cases import ECHO, ECHO_CASES, module_with_run_body, write_case, write_submission

BUNDLED = RESOURCES / "cases" / "lattice"
KEEP_STRESS = ("stress-64", "stress-128")


def small_lattice_case(folder: Path) -> Path:
    """The bundled case with its smoke tests and only its two smallest stress cases."""
    folder.mkdir(parents=True, exist_ok=True)
    text = (BUNDLED / "case.toml").read_text()
    head, *blocks = text.split("[[case]]")
    kept = [b for b in blocks if 'kind = "smoke"' in b or any(f'name = "{n}"' in b for n in KEEP_STRESS)]
    (folder / "case.toml").write_text(head + "".join("[[case]]" + b for b in kept))
    for sub in ("smoke", "stress", "expected"):
        shutil.copytree(BUNDLED / sub, folder / sub)
    return folder / "case.toml"


def sample_field(folder: Path) -> Path:
    """A folder holding copies of the bundled sample submissions."""
    shutil.copytree(BUNDLED / "submissions", folder)
    return folder


SLOW = """
(module (memory (export "memory") 1)
 (func (export "alloc") (param i32) (result i32) i32.const 1024)
 (func (export "run") (param i32 i32) (result i64) (local $i i32)
   (local.set $i (i32.const {spins}))
   (block $done (loop $spin
     (br_if $done (i32.eqz (local.get $i)))
     (local.set $i (i32.sub (local.get $i) (i32.const 1)))
     (br $spin)))
   (i64.or (i64.shl (i64.extend_i32_u (local.get 0)) (i64.const 32))
           (i64.extend_i32_u (local.get 1)))))
"""


def echo_case(folder: Path, **options) -> Path:
    return write_case(folder, ECHO_CASES, **options)


def hostile_field(folder: Path) -> Path:
    """Modules that fail in every way a module can, beside one that passes."""
    bodies = {
        "passes": None,
        "endless": "(loop $forever (br $forever)) (i64.const 0)",
        "traps": "unreachable",
        "wrong": "(i64.const 0)",
        "stack": "(drop (call $down (i32.const 0))) (i64.const 0)",
    }
    down = "(func $down (param i32) (result i32) (i32.add (call $down (local.get 0)) (i32.const 1)))"
    for name, body in bodies.items():
        wat = ECHO if body is None else module_with_run_body(body, extra=down if name == "stack" else "")
        write_submission(folder / name, wat, model=f"hostile-{name}")
    write_submission(
        folder / "imports",
        ECHO.replace("(module", '(module (import "env" "f" (func)) ', 1),
        model="hostile-imports",
    )
    write_submission(folder / "no-alloc", ECHO.replace('(export "alloc")', ""), model="hostile-no-alloc")
    garbage = write_submission(folder / "garbage", ECHO, model="hostile-garbage")
    (garbage / "module.wasm").write_bytes(b"\0asm\x01\0\0\0 this is not a module")
    return folder


def slow_field(folder: Path, count: int, *, spins: int = 40_000_000) -> Path:
    """`count` correct echo modules, each spinning about `spins` loop turns per call (distinct hashes)."""
    for i in range(count):
        write_submission(folder / f"slow-{i:02d}", SLOW.format(spins=spins + i), model=f"slow-{i:02d}")
    return folder

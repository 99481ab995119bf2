"""`explain RUN`: why a wrong run departed from the reference (`services.explain_run`)."""

from __future__ import annotations

import argparse
import json
import sys

from lattice_desktop.cli.common import add_db_option, err, open_storage
from lattice_desktop.cli.run_ids import run_id
from lattice_desktop.cli.terminal import shown
from lattice_desktop.errors import UserError
from lattice_desktop.lattice.explain.diagnosis import Diagnosis
from lattice_desktop.services.explain_run import explain_run
from lattice_desktop.store.queries import load_run
from lattice_desktop.work import Step, Work


def register(commands: argparse._SubParsersAction) -> None:
    p = commands.add_parser(
        "explain",
        help="why a wrong run departed from the reference: the rule it broke, where and when",
        description="For the run's first wrong scenario (or --case), find the first tick where the "
        "submission's state differs from the reference's, check that no item appeared or vanished "
        "between that tick and the one before, and rank the rules of the spec whose decisions at "
        "that tick the submission's state contradicts, with the events behind each. Exits 0 with a "
        "diagnosis, 2 when the run has no wrong answer to explain.",
    )
    p.add_argument("run", type=run_id, help="a run id (see `runs`)")
    p.add_argument("--case", help="the scenario to explain (default: the run's first wrong one)")
    p.add_argument("--json", action="store_true", help="print the diagnosis as JSON")
    add_db_option(p)
    p.set_defaults(func=_explain)


def _explain(args: argparse.Namespace) -> int:
    writer = open_storage(args)
    try:
        run = load_run(args.run)
    finally:
        writer.close()
    if run is None:
        raise UserError(f"there is no run {args.run} (see `lattice-desktop runs --all`)")
    work = Work(_progress if sys.stderr.isatty() else None)
    diagnosis = explain_run(run, case_name=args.case, work=work)
    if args.json:
        json.dump({"run_id": run.id, **diagnosis.to_json()}, sys.stdout, indent=2)
        print()
        return 0
    print("\n".join(diagnosis_lines(diagnosis, run_id=run.id)))
    return 0


def diagnosis_lines(d: Diagnosis, *, run_id: int) -> list[str]:
    lines = [
        f"run {run_id} · {shown(d.case)} · first wrong tick {d.tick:,} · first differing cell "
        f"({d.cell[0]}, {d.cell[1]}) · {d.differing_cells:,} cells differ, {d.root_cells:,} where it starts",
        "",
        shown(d.summary),
        "",
        f"Conservation (tick {d.tick - 1:,} → {d.tick:,}):",
    ]
    if not d.conservation:
        lines.append("  every item accounted for on both sides")
    lines += [f"  {law.side}: {shown(law.text)}" for law in d.conservation]
    lines += ["", "Rules, most likely first:" if d.explained else "Rules deciding nearby (none explains it):"]
    if not d.rules:
        lines.append("  none: no rule's decision touches the cells where the difference starts")
    for i, r in enumerate(d.rules, 1):
        lines.append(
            f"  {i}. {r.rule}  (score {r.score:.1f}: {r.hits:,} root cells, {r.events:,} decisions that tick)"
        )
        lines.append(f"     {r.sentence}")
        for e in r.evidence[:3]:
            lines.append(
                f"     tick {e.tick:,} ({e.cell[0]}, {e.cell[1]}): {shown(e.spec)}; "
                f"the submission's {shown(e.submission)}"
            )
    return lines


def _progress(step: Step) -> None:
    if step.message:
        err(f"  {step.message}")

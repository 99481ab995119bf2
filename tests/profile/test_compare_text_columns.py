"""`compare`'s terminal table keeps its columns aligned whatever the case names: Lattice's
`compression_behind_blocked_exit` once pushed its row's figures 15 characters right of the
others'."""

from __future__ import annotations

from lattice_desktop.cli.compare_cmd import comparison_text
from lattice_desktop.services.compare_runs import CaseChange, Comparison, RunSide


def side(run_id: int) -> RunSide:
    return RunSide(run_id, f"run {run_id} · x", "model", "case 1/standard", "h", "50.0.1", "correct", 10)


def test_every_row_puts_its_figures_under_the_headings():
    names = ["turn", "compression_behind_blocked_exit", "stress-512"]
    cases = tuple(CaseChange(n, "smoke", 1, 1_000, 2_000, "pass", "pass") for n in names)
    text = comparison_text(Comparison(side(1), side(2), cases), threshold=None)
    lines = text.splitlines()
    head = next(i for i, line in enumerate(lines) if line.startswith("case "))
    rows = lines[head : head + 1 + len(names)]
    ends = {line.index("verdict" if i == 0 else "pass") for i, line in enumerate(rows)}
    assert len(ends) == 1, "\n".join(rows)
    assert all(row.split()[0] in ["case", *names] for row in rows)

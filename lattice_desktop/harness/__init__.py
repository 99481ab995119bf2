"""Scoring recorded runs of AI agent harnesses against security boxes (no Qt here).

`score(load_box(...), load_trace(...))` gives a `HarnessResult` with Score, Cost, Focus,
Time, Compliance, Tools and Execution, each with its evidence, formula and inputs.
The formats and every formula are described in docs/harness.md.
"""

from lattice_desktop.harness.box import Box, Objective, Tool, load_box, parse_box
from lattice_desktop.harness.focus import Loop, loop_penalty
from lattice_desktop.harness.metric import Metric
from lattice_desktop.harness.ranking import Ranked, leaderboard, rank
from lattice_desktop.harness.result import SCORER_VERSION, HarnessResult, score, verify
from lattice_desktop.harness.tools_check import ToolFinding
from lattice_desktop.harness.trace import Trace, load_trace, parse_trace

__all__ = [
    "SCORER_VERSION",
    "Box",
    "HarnessResult",
    "Loop",
    "Metric",
    "Objective",
    "Ranked",
    "Tool",
    "ToolFinding",
    "Trace",
    "leaderboard",
    "load_box",
    "load_trace",
    "loop_penalty",
    "parse_box",
    "parse_trace",
    "rank",
    "score",
    "verify",
]

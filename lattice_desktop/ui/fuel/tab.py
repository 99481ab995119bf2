"""The Fuel tab: where a run spent its fuel, against the ceiling, the field's best and
(optionally) another run, and how its fuel grows with input size."""

from __future__ import annotations

import math
from dataclasses import dataclass

from PySide6.QtCore import Qt, Slot
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QSplitter, QStackedWidget, QVBoxLayout, QWidget

from lattice_desktop.grading.fuel_growth import describe_slope
from lattice_desktop.grading.report import CaseResult
from lattice_desktop.manifest.case import CaseManifest
from lattice_desktop.store.fuel_queries import CaseBest, Comparable, comparable_runs, field_best_per_case
from lattice_desktop.store.queries import StoredRun, load_run
from lattice_desktop.ui.common.latest_query import LatestQuery
from lattice_desktop.ui.fuel.plots import FuelBars, FuelScaling


@dataclass(frozen=True)
class FuelField:
    """What the open run is measured against: the field's best per case, and the other
    runs it can be compared with."""

    best: dict[str, CaseBest]
    others: list[Comparable]


def _field_job(run_id: int) -> FuelField:
    return FuelField(field_best_per_case(run_id), comparable_runs(run_id))


def plotted(results: list[CaseResult]) -> list[CaseResult]:
    """The stress cases (fuel is what they measure); the smoke tests when there are none."""
    stress = [r for r in results if not r.is_smoke]
    return stress or list(results)


class FuelTab(QWidget):
    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.run: StoredRun | None = None
        self.case: CaseManifest | None = None
        self.best: dict = {}
        self.other: StoredRun | None = None
        self.slopes: dict[str, float | None] = {}
        self._field_query = LatestQuery(self._field_loaded, self)
        self._field_query.failed.connect(self._failed)
        self._compare_query = LatestQuery(self._compare_loaded, self)
        self._compare_query.failed.connect(self._failed)

        self.compare_box = QComboBox(self)
        self.compare_box.setMinimumWidth(320)
        self.compare_box.setToolTip("Another run of the same case and wasmtime version")
        self.compare_box.activated.connect(self._compare_chosen)
        self.summary = QLabel(self)
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.summary.setWordWrap(True)
        top = QHBoxLayout()
        top.setContentsMargins(8, 6, 8, 0)
        top.addWidget(QLabel("Compare with", self))
        top.addWidget(self.compare_box)
        top.addSpacing(12)
        top.addWidget(self.summary, 1)

        self.bars = FuelBars(self)
        self.scaling = FuelScaling(self)
        self.slope_label = QLabel(self)
        self.slope_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        lower = QWidget(self)
        lower_layout = QVBoxLayout(lower)
        lower_layout.setContentsMargins(8, 4, 0, 0)
        lower_layout.addWidget(self.slope_label)
        lower_layout.addWidget(self.scaling, 1)
        split = QSplitter(Qt.Orientation.Vertical, self)
        split.addWidget(self.bars)
        split.addWidget(lower)
        split.setSizes([380, 320])

        body = QWidget(self)
        body_layout = QVBoxLayout(body)
        body_layout.setContentsMargins(0, 0, 0, 0)
        body_layout.addLayout(top)
        body_layout.addWidget(split, 1)
        self.empty = QLabel("No run open — pick a run in the runs list to see where its fuel went.", self)
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.stack = QStackedWidget(self)
        self.stack.addWidget(self.empty)
        self.stack.addWidget(body)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.stack)

    def show_run(self, run: StoredRun | None, case: CaseManifest | None) -> None:
        self.run, self.case, self.best, self.other = run, case, {}, None
        self._field_query.forget()
        self._compare_query.forget()
        self.compare_box.clear()
        if run is None or not any(r.fuel for r in run.results):
            self.empty.setText(
                "No run open — pick a run in the runs list to see where its fuel went."
                if run is None
                else "This run measured no fuel (it never ran a case)."
            )
            self.stack.setCurrentIndex(0)
            return
        self.stack.setCurrentIndex(1)
        self.compare_box.addItem("nothing", None)
        self._redraw()
        self._field_query.request(_field_job, run.id)

    def _field_loaded(self, field: FuelField) -> None:
        self.best = field.best
        for other in field.others:
            self.compare_box.addItem(other.describe(), other.run_id)
        self._redraw()

    def compare_with(self, run_id: int) -> bool:
        """Compare with another run (as choosing it in the box does); False if not offered."""
        index = self.compare_box.findData(run_id)
        if index < 0:
            return False
        self.compare_box.setCurrentIndex(index)
        self._compare_chosen(index)
        return True

    def _compare_chosen(self, index: int) -> None:
        other_id = self.compare_box.itemData(index)
        if self.run is None:
            return
        if other_id is None:
            self.other = None
            self._redraw()
            return
        self._compare_query.request(load_run, other_id)

    def _compare_loaded(self, other: StoredRun | None) -> None:
        if self.run is not None:
            self.other = other
            self._redraw()

    @Slot(str, str)
    def _failed(self, message: str, trace: str) -> None:
        self.summary.setText(f"⚠ {message}")
        self.summary.setToolTip(trace or message)

    def _redraw(self) -> None:
        if self.run is None:
            return
        results = plotted(self.run.results)
        other = {r.name: r for r in self.other.results} if self.other else None
        other_name = f"#{self.other.id} {self.other.summary.model}" if self.other else ""
        self.bars.show_fuel(results, self.best, other, other_name)
        series = {
            "this run": [(r.name, r.size, r.fuel) for r in results if r.fuel],
            "field's best": [
                (r.name, r.size, self.best[r.name].fuel) for r in results if r.name in self.best
            ],
        }
        if other:
            series["compared"] = [
                (r.name, r.size, other[r.name].fuel)
                for r in results
                if r.name in other and other[r.name].fuel
            ]
        self.slopes = self.scaling.show_series(series)
        self.slope_label.setText(
            "   ·   ".join(
                f"{name}: {describe_slope(slope)}" for name, slope in self.slopes.items() if slope is not None
            )
            or "Fuel against input size needs at least two sizes with fuel."
        )
        self.summary.setText(self._summary(results, other, other_name))

    def _summary(self, results: list[CaseResult], other: dict[str, CaseResult] | None, name: str) -> str:
        if not other:
            return ""
        ratios = [
            r.fuel / theirs for r in results if r.fuel and r.name in other and (theirs := other[r.name].fuel)
        ]
        if not ratios:
            return f"{name} has no fuel on these cases"
        mean = math.exp(sum(math.log(x) for x in ratios) / len(ratios))
        return (
            f"this run uses ×{mean:.2f} the fuel of {name} (geometric mean over "
            f"{len(ratios)} case{'s' if len(ratios) != 1 else ''}; per case above the bars)"
        )

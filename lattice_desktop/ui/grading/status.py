"""Grading progress in the status bar: what is being graded, cases done of total, and
Cancel. Shown only while grading runs."""

from __future__ import annotations

from PySide6.QtCore import Slot
from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QPushButton, QWidget

from lattice_desktop.grading.report import GradingStep
from lattice_desktop.services.grade_jobs import GradeJob
from lattice_desktop.ui.grading.grade_op import GradeOp
from lattice_desktop.work import Step


class GradingStatus(QWidget):
    def __init__(self, op: GradeOp, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.op = op
        self.label = QLabel()
        self.bar = QProgressBar()
        self.bar.setMaximumWidth(240)
        self.bar.setFormat("%v of %m cases")
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setToolTip("Stop grading (Esc): the run is kept as cancelled, without results")
        self.cancel_button.clicked.connect(self.cancel)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.label)
        layout.addWidget(self.bar)
        layout.addWidget(self.cancel_button)
        op.job_started.connect(self.on_job_started)
        op.progress.connect(self.on_progress)
        op.idle.connect(self.hide)
        self.hide()

    @Slot()
    def cancel(self) -> None:
        if self.op.running:
            self.label.setText("Cancelling…")
            self.op.cancel()

    @Slot(object)
    def on_job_started(self, job: GradeJob) -> None:
        self.label.setText(f"Grading {job.label}…")
        self.bar.setRange(0, 0)  # busy until the first case finishes
        self.show()

    @Slot(object)
    def on_progress(self, step: Step) -> None:
        job = self.op.current
        name = job.label if job else ""
        grading = step.item if isinstance(step.item, GradingStep) else None
        if grading is not None and grading.result is not None:
            r = grading.result
            self.label.setText(f"{name}: {r.kind} {r.name} {r.outcome.look.text}")
        else:
            self.label.setText(f"{name}: {step.message}…")
        if grading is not None and (grading.phase in ("smoke", "stress", "done") or grading.done):
            self.bar.setRange(0, max(1, grading.total))
            self.bar.setValue(grading.done)

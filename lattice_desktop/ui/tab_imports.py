"""The Factory and Fuel tabs come from a colleague's modules; until they land, a
placeholder with the same methods keeps the window whole."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from lattice_desktop.manifest import CaseManifest
from lattice_desktop.store.queries import StoredRun


class _Placeholder(QWidget):
    title = ""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.label = QLabel(f"The {self.title} view is not part of this build yet.")
        self.label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        QVBoxLayout(self).addWidget(self.label)

    def show_run(self, run: StoredRun | None, case: CaseManifest | None) -> None:
        if run is None:
            self.label.setText(f"No run open — pick one on the left to see its {self.title}.")
        else:
            self.label.setText(f"The {self.title} view of run #{run.id} is not part of this build yet.")


class _FactoryPlaceholder(_Placeholder):
    title = "factory"

    def go_to_first_divergence(self) -> None:
        """Nothing to scrub in the placeholder."""


class _FuelPlaceholder(_Placeholder):
    title = "fuel"


try:
    from lattice_desktop.ui.factory_tab import FactoryTab
except ImportError as exc:
    if exc.name != "lattice_desktop.ui.factory_tab":
        raise
    FactoryTab = _FactoryPlaceholder  # type: ignore[misc,assignment]

try:
    from lattice_desktop.ui.fuel_tab import FuelTab
except ImportError as exc:
    if exc.name != "lattice_desktop.ui.fuel_tab":
        raise
    FuelTab = _FuelPlaceholder  # type: ignore[misc,assignment]

__all__ = ["FactoryTab", "FuelTab"]

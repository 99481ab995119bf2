"""Opening a scenario for the Factory tab, every step of it on a worker and cancellable:
the service's opening (parsing, the reference's checksums, the stale-run check) and then the
map's still layer, which for a 2048² scenario is seconds of numpy that the GUI thread, and a
window closing meanwhile, must not wait for. The tab's slot then only hands the parts over;
the census follows in an op of its own."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QObject, Slot
from PySide6.QtWidgets import QLabel

from lattice_desktop.grading.report import CaseResult
from lattice_desktop.lattice.census_child import census_in_child
from lattice_desktop.lattice.confirm_child import Confirmation, confirm_in_child
from lattice_desktop.lattice.playback import Playback
from lattice_desktop.lattice.proven import candidates
from lattice_desktop.lattice.scenario_file import EXPECTED_SUFFIX
from lattice_desktop.lattice.simulators import stepping_module
from lattice_desktop.lattice.snapshots import Snapshots
from lattice_desktop.lattice.wasm_engine import REFERENCE_WASM
from lattice_desktop.manifest.case import CaseManifest, load_case
from lattice_desktop.resources import CASES
from lattice_desktop.services.factory_opening import (
    FileChecksums,
    OpenedCase,
    file_checksums,
    open_case,
    open_scenario_view,
)
from lattice_desktop.store.queries import StoredRun
from lattice_desktop.ui.common.latest_query import LatestQuery
from lattice_desktop.ui.factory.canvas import ARGB
from lattice_desktop.ui.factory.census_panel import CensusPanel
from lattice_desktop.ui.factory.raster import Rasterizer, Static
from lattice_desktop.work import Step, Work


@dataclass(frozen=True)
class ReadyToShow:
    """An opened scenario and its map's rasterizer (plain numpy: made on the worker)."""

    opened: OpenedCase
    raster: Rasterizer


def open_file_to_show(path: Path, *, work: Work) -> ReadyToShow:
    """The file's map, at once; its checksums follow (`file_checksums`, another op)."""
    return _with_raster(open_scenario_view(path, work=work), work)


def open_case_to_show(run: StoredRun, case: CaseManifest, result: CaseResult, *, work: Work) -> ReadyToShow:
    return _with_raster(open_case(run, case, result, work=work), work)


def _with_raster(opened: OpenedCase, work: Work) -> ReadyToShow:
    work.raise_if_cancelled()
    playback = opened.playback
    raster = Rasterizer(Static.of(playback.scenario), playback.grid, ARGB)
    work.raise_if_cancelled()  # a window closed meanwhile gets nothing to show
    return ReadyToShow(opened, raster)


class CensusCount(LatestQuery):
    """The open scenario's census, counted in an op of its own (in a child process, see
    `census_in_child`) and cancelled with the tab; `panel` only shows what comes back."""

    def __init__(self, panel: CensusPanel, parent: QObject | None = None) -> None:
        super().__init__(panel.show_census, parent)
        self.failed.connect(panel.show_failure)
        self.panel = panel

    def count(self, data: bytes, case_dir: Path | None) -> None:
        """Count `data`'s census (`case_dir`: its case's folder, None for a file alone)."""
        self.panel.show_counting()
        self.request(census_in_child, data, case_dir, work=True)

    def stop(self) -> None:
        """Kill the count under way and empty the panel."""
        self.forget()
        self.panel.clear_scenario()


def fast_engine() -> Path | None:
    """The fastest bundled engine expected to be correct, besides the reference (`lines`)."""
    found = [m for name, m in candidates(load_case(CASES / "lattice" / "case.toml")) if name != "reference"]
    return found[0] if found else None


def file_snapshots(path: Path, playback: Playback, *, work: Work) -> FileChecksums:
    """A file's snapshot checksums by the reference. When the playback runs the wasm
    reference and a fast engine ships with the app, the reference runs in a child process
    beside the fast engine, which is confirmed snapshot by snapshot on the way (the steps'
    items: `Confirmation`s); NAME.u64 answers beside the file are compared with the
    reference's, as `file_checksums` does."""
    engine = playback.engine
    fast = fast_engine() if engine is not None and Path(engine.path) == REFERENCE_WASM.resolve() else None
    if fast is None or stepping_module(REFERENCE_WASM) is None:
        return file_checksums(path, playback, work=work)
    found = confirm_in_child(fast, REFERENCE_WASM, playback.data, work=work)
    work.report(1.0, "confirmed", found)
    computed = b"".join(v.to_bytes(8, "little") for v in found.reference)
    stored = Path(path).with_suffix(EXPECTED_SUFFIX)
    interval = playback.scenario.snapshot
    if stored.is_file():
        return FileChecksums(
            Snapshots.from_bytes(interval, stored.read_bytes(), computed), f"expected from {stored.name}"
        )
    return FileChecksums(Snapshots.from_bytes(interval, computed, None), "checksums from the wasm reference")


class ChecksumCount(LatestQuery):
    """A scenario file's snapshot checksums, worked out after its map is shown (the
    reference's whole run, in a child process that also confirms the fast engine against
    it); `status` says they are coming, `show` gets them, `confirmation` says how far the
    fast engine has been seen to agree."""

    def __init__(self, show: Callable[[FileChecksums], None], status: QLabel, parent: QObject | None = None):
        super().__init__(show, parent, on_step=self._step)
        self.failed.connect(self._failed)
        self.status = status
        self.confirmation: Confirmation | None = None  # how far a fast engine agrees, once it runs

    def count(self, path: Path, playback: Playback) -> None:
        self.status.setText("snapshots: running the reference for its checksums…")
        self.request(file_snapshots, path, playback, work=True)

    def forget(self) -> None:
        super().forget()
        self.confirmation = None

    def _step(self, step: Step) -> None:
        if isinstance(step.item, Confirmation):
            self.confirmation = step.item

    @Slot(str, str)
    def _failed(self, message: str, _trace: str) -> None:
        self.status.setText(f"⚠ the snapshot checksums could not be computed: {message}")

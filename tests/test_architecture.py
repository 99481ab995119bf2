"""The core stays Qt-free: it imports and grades with PySide6 and pyqtgraph unavailable."""

from __future__ import annotations

import pkgutil
import shutil
import subprocess
import sys
from pathlib import Path

import lattice_desktop

ROOT = Path(__file__).resolve().parents[1]

BLOCK_QT = """
import importlib.abc, sys
class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name.split('.')[0] in ('PySide6', 'pyqtgraph', 'shiboken6'):
            raise ImportError('Qt is not allowed in the core: ' + name)
sys.meta_path.insert(0, Block())
import importlib, pkgutil, lattice_desktop
for m in pkgutil.walk_packages(lattice_desktop.__path__, 'lattice_desktop.'):
    if m.name.startswith('lattice_desktop.ui') or m.name == 'lattice_desktop.__main__':
        continue
    importlib.import_module(m.name)
print('ok')
"""


def core_modules() -> list[str]:
    return [
        m.name
        for m in pkgutil.walk_packages(lattice_desktop.__path__, "lattice_desktop.")
        if not m.name.startswith("lattice_desktop.ui")
    ]


def test_every_core_module_imports_without_qt():
    done = subprocess.run(
        [sys.executable, "-c", BLOCK_QT], check=False, capture_output=True, text=True, cwd=ROOT
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"
    assert len(core_modules()) > 20


def test_import_linter_contract_holds():
    lint = shutil.which("lint-imports", path=str(Path(sys.executable).parent))
    assert lint, "import-linter is a test dependency"
    done = subprocess.run([lint], check=False, capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 broken" in done.stdout
    assert "Layers: ui > cli > services > store" in done.stdout
    assert "inspect_ai is an optional extra" in done.stdout


def test_only_the_app_entry_points_import_the_main_window():
    """Tabs and the harness side say what happened through signals; none reaches into the
    window (which would make an import loop with the window that builds them)."""
    import grimp

    graph = grimp.build_graph("lattice_desktop")
    importers = graph.find_modules_that_directly_import("lattice_desktop.ui.window.main_window")
    assert importers == {"lattice_desktop.ui.app", "lattice_desktop.ui.window.screenshots"}
    assert "lattice_desktop.ui.harness.side" in graph.find_modules_directly_imported_by(
        "lattice_desktop.ui.window.main_window"
    )


MAX_LINES = 400


def test_every_module_is_at_most_400_lines():
    """A module past ~400 lines is asking to be split (docs/architecture.md)."""
    package = ROOT / "lattice_desktop"
    sizes = {
        path.relative_to(package).as_posix(): len(path.read_text().splitlines())
        for path in package.rglob("*.py")
    }
    assert len(sizes) > 100
    too_long = {name: lines for name, lines in sizes.items() if lines > MAX_LINES}
    assert too_long == {}

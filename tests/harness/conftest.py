"""The bundled example box, shared by the harness tests."""

from __future__ import annotations

import pytest
from harness_builders import BOX_PATH

from lattice_desktop.harness import Box, load_box


@pytest.fixture(scope="session")
def box() -> Box:
    return load_box(BOX_PATH)

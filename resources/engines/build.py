"""Rebuild the bundled sample engines into resources/cases/lattice/submissions/."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from lattice_desktop.lattice.build_engines import main

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""The frozen app's entry script (PyInstaller needs a file, not a console-scripts entry)."""

import sys

from lattice_desktop.launcher import main

sys.exit(main())

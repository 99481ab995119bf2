"""The frozen app's entry script (PyInstaller needs a file, not a console-scripts entry)."""

import multiprocessing
import sys

from lattice_desktop.launcher import main

multiprocessing.freeze_support()  # a worker process started by the bundle runs its task, not the app
sys.exit(main())

import sys

from lattice_desktop.launcher import main

sys.exit(main())

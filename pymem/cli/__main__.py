"""`python -m pymem.cli`, as the `pymem` command."""

import sys

from pymem.cli import main

sys.exit(main())

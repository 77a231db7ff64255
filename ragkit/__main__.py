"""``python -m ragkit``: the command-line interface."""

import sys

from ragkit.cli import main

sys.exit(main())

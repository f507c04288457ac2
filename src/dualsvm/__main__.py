"""``python -m dualsvm``: the command line (see :mod:`dualsvm.cli`)."""

import sys

from .cli import main

sys.exit(main())

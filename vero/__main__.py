"""``python -m vero`` is the ``vero`` command."""

import sys

from vero.cli import main

sys.exit(main())

"""``python -m skillstate``: the ``skillstate`` command line, for an interpreter without the script."""

import sys

from skillstate.cli.main import console

sys.exit(console())

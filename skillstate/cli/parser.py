"""The parser class of ``skillstate``: a usage error is one line, exit 2 (argparse's own
prints the usage block first). Sub-command parsers, plugins' too, are of the same class."""

from __future__ import annotations

import argparse
from typing import NoReturn

__all__ = ["Parser"]


class Parser(argparse.ArgumentParser):
    """An :class:`argparse.ArgumentParser` whose usage error is
    ``prog: error: message (see 'prog --help')`` on stderr, exit 2."""

    def error(self, message: str) -> NoReturn:
        from skillstate.cli.exits import USAGE
        from skillstate.display import excerpt
        from skillstate.masking import mask_written_urls

        # argparse quotes what the user typed: a store URL's password, control
        # characters, a newline or a huge value must not reach the terminal as written
        text = excerpt(mask_written_urls(message)).replace("\n", "\\n")
        self.exit(USAGE, f"{self.prog}: error: {text} (see '{self.prog} --help')\n")

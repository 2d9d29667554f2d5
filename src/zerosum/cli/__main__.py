"""``python -m zerosum.cli``: the ``zerosum`` command."""

from zerosum.cli import program

program()

"""``python -m zerosum``: the command line."""

from zerosum.cli import program

program()

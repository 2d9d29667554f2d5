"""The CLI reference, generated from the argument parser so that it is never written twice.

:func:`render` turns ``zerosum.cli.build_parser()`` into Markdown: the top-level usage, then one
section per subcommand with its one-line summary and argparse's own ``--help`` text. It needs
only zerosum (the tests call it without MkDocs). :func:`on_page_markdown` is the MkDocs hook
(registered under ``hooks:`` in ``mkdocs.yml``) that puts it in place of :data:`MARKER` in
``docs/cli.md``.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

MARKER = "<!-- cli-reference -->"
"""The line of ``docs/cli.md`` that the generated reference replaces."""

WIDTH = 100
"""The width argparse wraps the help text to, whatever the terminal building the docs."""


@contextmanager
def _fixed_terminal() -> Iterator[None]:
    """Help text as argparse writes it for a plain terminal of :data:`WIDTH` columns."""
    saved = {name: os.environ.get(name) for name in ("COLUMNS", "NO_COLOR")}
    os.environ["COLUMNS"] = str(WIDTH)
    os.environ["NO_COLOR"] = "1"
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def _subcommands(parser: argparse.ArgumentParser) -> argparse._SubParsersAction[Any]:
    """The parser's subcommands action (argparse offers no public way to reach it)."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return action
    raise ValueError("the parser has no subcommands")


def render() -> str:
    """The reference as Markdown: the usage of ``zerosum``, then every subcommand's."""
    from zerosum.cli import build_parser

    with _fixed_terminal():
        parser = build_parser()
        commands = _subcommands(parser)
        summaries = {action.dest: action.help or "" for action in commands._choices_actions}
        lines = ["```text", parser.format_help().rstrip(), "```", ""]
        for name, subparser in commands.choices.items():
            lines += [f"## `zerosum {name}`", ""]
            if summaries.get(name):
                lines += [summaries[name][:1].upper() + summaries[name][1:] + ".", ""]
            lines += ["```text", subparser.format_help().rstrip(), "```", ""]
    return "\n".join(lines)


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    """MkDocs hook: the page holding :data:`MARKER` gets the generated reference there."""
    if MARKER not in markdown:
        return markdown
    return markdown.replace(MARKER, render())


if __name__ == "__main__":
    print(render())

"""The docs site: its CLI reference is generated from the parser and lists every command, and
no page names a path of a particular machine."""

from __future__ import annotations

import argparse
import importlib.util
import re
from pathlib import Path
from types import ModuleType

from zerosum.cli import build_parser

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"


def load_generator() -> ModuleType:
    """``docs/hooks/cli_reference.py``, imported by path (it is no package module)."""
    path = DOCS / "hooks" / "cli_reference.py"
    spec = importlib.util.spec_from_file_location("cli_reference", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def subcommand_parsers() -> dict[str, argparse.ArgumentParser]:
    for action in build_parser()._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    raise AssertionError("zerosum's parser has no subcommands")


def test_cli_reference_has_a_section_per_subcommand() -> None:
    reference = load_generator().render()
    commands = subcommand_parsers()
    assert len(commands) >= 10
    for name in commands:
        assert f"## `zerosum {name}`" in reference, name
        assert f"usage: zerosum {name} " in reference, name


def test_cli_reference_lists_every_option() -> None:
    reference = load_generator().render()
    for name, parser in subcommand_parsers().items():
        section = reference.split(f"## `zerosum {name}`", 1)[1].split("\n## ", 1)[0]
        for action in parser._actions:
            for flag in action.option_strings:
                assert flag in section, (name, flag)


def test_the_cli_page_gets_the_reference() -> None:
    generator = load_generator()
    page = (DOCS / "cli.md").read_text()
    assert generator.MARKER in page
    built = generator.on_page_markdown(page, None, None, None)
    assert generator.MARKER not in built
    assert all(f"## `zerosum {name}`" in built for name in subcommand_parsers())


def test_no_machine_paths_in_the_docs() -> None:
    pages = [ROOT / "README.md", *DOCS.rglob("*.md"), *DOCS.rglob("*.ipynb")]  # outputs too
    for page in pages:
        text = page.read_text()
        assert not re.search(r"/work/|/home/|/Users/", text), page

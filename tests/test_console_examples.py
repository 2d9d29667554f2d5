"""The README's and the docs' console examples print what they say they print.

Each ``$ zerosum ...`` block of a console fence in ``README.md`` and ``docs/`` is run and its
output compared with the written one, forgiving only times, speeds and column padding
(``tools/console_examples.py`` says exactly what). When the program's output changes on
purpose, ``python tools/update_examples.py`` rewrites the examples from the program.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent


def load_tool() -> ModuleType:
    """``tools/console_examples.py``, imported by path (tools/ is no package)."""
    path = ROOT / "tools" / "console_examples.py"
    spec = importlib.util.spec_from_file_location("console_examples", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is made
    spec.loader.exec_module(module)
    return module


tool = load_tool()
BLOCKS = tool.examples()


def params() -> list[object]:
    return [
        pytest.param(block, id=block.id, marks=[pytest.mark.slow] if block.slow else [])
        for block in BLOCKS
    ]


@pytest.mark.parametrize("block", params())
def test_the_example_prints_what_is_written(block: object) -> None:
    if block.skip is not None:  # type: ignore[attr-defined]
        pytest.skip(block.skip)  # type: ignore[attr-defined]
    found = tool.differences(block)
    assert not found, (
        "the program prints something else; if that is meant, "
        "`python tools/update_examples.py` rewrites the examples:\n" + "\n\n".join(found)
    )


def test_the_readme_has_examples_and_every_one_is_a_zerosum_command() -> None:
    readme = [block for block in BLOCKS if block.path.name == "README.md"]
    assert len(readme) >= 4
    for block in BLOCKS:
        if block.skip is None:
            for command in block.commands:
                command.argv()  # raises ExampleError for anything but zerosum
                assert command.output, (block.id, command.text)  # something to compare


def test_times_and_speeds_are_forgiven_and_nothing_else() -> None:
    written = [
        "nodes 13,940 in 0.096 s",
        "time       0.039 s",
        "nodes/s    12,673",
        '{"nodes": 496, "time_s": 0.039, "nps": 12673}',
        "score +11 (win in 13 plies)",
    ]
    printed = [
        "nodes 13,940 in 1.5 s",
        "time       12.000 s",
        "nodes/s    144,117",
        '{"nodes": 496, "time_s": 1.25, "nps": 397}',
        "score +11 (win in 13 plies)",
    ]
    assert tool.normalise(written) == tool.normalise(printed)
    for changed in (
        ["nodes 13,941 in 0.096 s", *printed[1:]],
        [*printed[:3], '{"nodes": 497, "time_s": 1.25, "nps": 397}', printed[4]],
        [*printed[:4], "score +11 (win in 15 plies)"],
    ):
        assert tool.normalise(written) != tool.normalise(changed)
    assert tool.normalise(["nodes 5 and 7"], ignore_numbers=True) == ["nodes <N> and <N>"]


def test_directives_are_read_and_unknown_ones_refused(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "text\n<!-- console: slow -->\n<!-- console: exit 2 -->\n```console\n"
        "$ zerosum games\nout\n$ zerosum legal tictactoe\na1\n```\n"
        "```console\n$ ls\n```\n<!-- console: skip needs a cluster -->\n```console\n"
        "$ zerosum solve connect4 --cluster auto\n```\n"
    )
    first, second, third = tool.parse(page)
    assert first.slow and first.exit_status == 2 and first.skip is None
    assert [c.text for c in first.commands] == ["zerosum games", "zerosum legal tictactoe"]
    assert first.commands[0].output == ("out",) and first.commands[1].line == 7
    with pytest.raises(tool.ExampleError, match="not a zerosum command"):
        second.commands[0].argv()
    assert third.skip == "needs a cluster" and not third.slow
    page.write_text("<!-- console: sometimes -->\n```console\n$ zerosum games\n```\n")
    with pytest.raises(tool.ExampleError, match="unknown directive"):
        tool.parse(page)


def test_update_rewrites_only_what_changed(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    text = (
        "# A page\n\n```console\n$ zerosum legal tictactoe --moves b2 a1 c1 a3 a2\nwrong\n```\n"
        "\n```console\n$ zerosum games\nnot this either\n```\nend\n"
    )
    page.write_text(text)
    blocks = tool.parse(page)
    assert tool.differences(blocks[0])
    assert tool.update(blocks, log=False) == [page]
    rewritten = page.read_text()
    assert "wrong" not in rewritten and "not this either" not in rewritten
    assert rewritten.startswith("# A page\n") and rewritten.endswith("```\nend\n")
    assert not any(tool.differences(block) for block in tool.parse(page))
    assert tool.update(tool.parse(page), log=False) == []  # nothing left to change
    assert page.read_text() == rewritten

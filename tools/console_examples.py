"""The console examples of the README and of ``docs/``: find them, run them, check or rewrite them.

A console example is a fenced block marked ``console`` whose commands start with ``$ zerosum``
or ``$ .venv/bin/zerosum``; the lines after a command, up to the next ``$`` line or the end of
the block, are what it prints (stdout and stderr together, as a terminal shows them). Running
one means running ``python -m zerosum`` with the same arguments, from an empty scratch folder,
with the interpreter that runs this module.

Printed and written outputs are compared after :func:`normalise`, which forgives only what
varies between runs of a deterministic program: times (a number followed by ``s``, ``ms`` or
``µs``, the figure after ``time`` or ``elapsed``, JSON keys ending in ``_s``), speeds (``nodes/s``,
``kn/s``, ``nps``) and the padding that aligns columns. Node counts, values and moves are
compared exactly.

An HTML comment on the line(s) just above the fence changes how a block is treated:

- ``<!-- console: slow -->``: too slow for the default test run; the ``slow`` set runs it;
- ``<!-- console: ignore-numbers -->``: every number may differ (a parallel search's node
  counts); the words must still match;
- ``<!-- console: exit N -->``: every command of the block exits with status N (default 0);
- ``<!-- console: skip REASON -->``: not run at all; the test run shows REASON.

``python tools/update_examples.py`` reruns every block and rewrites the outputs that no longer
match (this module's :func:`update`); ``tests/test_console_examples.py`` checks them.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
"""The repository: the README and ``docs/`` are read from here."""

TIMEOUT = 900
"""Seconds one command may take (a deep chess search on a cold compile cache, a busy machine)."""

PROGRAMS = ("zerosum", ".venv/bin/zerosum")
"""How the docs spell the program; both run as ``python -m zerosum``."""

FENCE = re.compile(r"^```console\s*$")
END = re.compile(r"^```\s*$")
DIRECTIVE = re.compile(r"^<!--\s*console:\s*(?P<word>[a-z-]+)\s*(?P<rest>.*?)\s*-->\s*$")
WORDS = ("slow", "ignore-numbers", "exit", "skip")

_NUMBER = r"\d[\d,]*(?:\.\d+)?(?:[eE][-+]?\d+)?"
_VARYING = [
    # a time or speed with its unit after it: "0.075 s", "12 ms", "144,117 nodes/s", "3.2 kn/s"
    (re.compile(rf"{_NUMBER}(\s*)(s|ms|µs|us|nodes/s|kn/s|Mn/s|n/s|nps)\b"), r"<T>\1\2"),
    # a time or speed after its label: "time  0.039 s", "nodes/s 12,673", "elapsed 1.2"
    (re.compile(rf"\b(time|nodes/s|nps|elapsed|kn/s)(:?\s+){_NUMBER}"), r"\1\2<T>"),
    # JSON: "time_s": 0.03, "nps": 1234, "startup_s": 0.2
    (re.compile(rf'("(?:\w+_s|nps|time|elapsed)":\s*){_NUMBER}'), r"\1<T>"),
]
_ANY_NUMBER = re.compile(rf"-?{_NUMBER}")


class ExampleError(Exception):
    """A console block that cannot be run as written (names the file and line)."""


@dataclass(frozen=True)
class Command:
    """One ``$`` line of a block and the output written below it."""

    line: int
    """1-based line number of the ``$`` line in its file."""
    text: str
    """The command as written, without the ``$ ``."""
    output: tuple[str, ...]
    """The lines written below it."""

    def argv(self) -> list[str]:
        """The arguments after the program name; raises :class:`ExampleError` if the command
        is not a zerosum command."""
        words = shlex.split(self.text)
        if not words or words[0] not in PROGRAMS:
            raise ExampleError(f"line {self.line}: not a zerosum command: {self.text!r}")
        return words[1:]


@dataclass(frozen=True)
class Block:
    """One console block of a Markdown file."""

    path: Path
    fence: int
    """0-based index of the opening fence's line."""
    end: int
    """0-based index of the closing fence's line."""
    commands: tuple[Command, ...]
    directives: dict[str, str] = field(default_factory=dict)

    @property
    def id(self) -> str:
        """``FILE:LINE`` of the fence, relative to the repository, for test ids and messages."""
        try:
            name = self.path.relative_to(ROOT).as_posix()
        except ValueError:
            name = self.path.name
        return f"{name}:{self.fence + 1}"

    @property
    def slow(self) -> bool:
        return "slow" in self.directives

    @property
    def skip(self) -> str | None:
        """Why the block is not run, or None."""
        if "skip" not in self.directives:
            return None
        return self.directives["skip"] or "no reason given"

    @property
    def exit_status(self) -> int:
        return int(self.directives.get("exit") or 0)

    @property
    def ignore_numbers(self) -> bool:
        return "ignore-numbers" in self.directives


def pages(root: Path = ROOT) -> list[Path]:
    """The README and every Markdown page of ``docs/``, in a fixed order."""
    return [root / "README.md", *sorted((root / "docs").rglob("*.md"))]


def parse(path: Path) -> list[Block]:
    """Every console block of ``path`` that holds at least one ``$`` line."""
    lines = path.read_text(encoding="utf-8").split("\n")
    blocks = []
    index = 0
    while index < len(lines):
        if not FENCE.match(lines[index]):
            index += 1
            continue
        fence = index
        end = fence + 1
        while end < len(lines) and not END.match(lines[end]):
            end += 1
        if end == len(lines):
            raise ExampleError(f"{path}:{fence + 1}: the console block is never closed")
        commands = _commands(lines, fence, end)
        if commands:
            blocks.append(Block(path, fence, end, commands, _directives(lines, fence, path)))
        index = end + 1
    return blocks


def _commands(lines: list[str], fence: int, end: int) -> tuple[Command, ...]:
    commands: list[Command] = []
    start: int | None = None
    for index in range(fence + 1, end + 1):
        if index == end or lines[index].startswith("$ "):
            if start is not None:
                text = lines[start][2:].strip()
                commands.append(Command(start + 1, text, tuple(lines[start + 1 : index])))
            start = index
    return tuple(commands)


def _directives(lines: list[str], fence: int, path: Path) -> dict[str, str]:
    found: dict[str, str] = {}
    index = fence - 1
    while index >= 0 and (match := DIRECTIVE.match(lines[index])):
        word = match["word"]
        if word not in WORDS:
            expected = ", ".join(WORDS)
            where = f"{path}:{index + 1}"
            raise ExampleError(f"{where}: unknown directive {word!r}: expected {expected}")
        if word == "exit" and not match["rest"].isdigit():
            raise ExampleError(f"{path}:{index + 1}: 'console: exit' needs a status, e.g. exit 2")
        found[word] = match["rest"]
        index -= 1
    return found


def examples(root: Path = ROOT) -> list[Block]:
    """Every console block of the README and of ``docs/``."""
    return [block for page in pages(root) for block in parse(page)]


def normalise(lines: Iterable[str], *, ignore_numbers: bool = False) -> list[str]:
    """The lines with times, speeds and column padding made uniform (every number too with
    ``ignore_numbers``); trailing blank lines dropped."""
    done = []
    for line in lines:
        for pattern, replacement in _VARYING:
            line = pattern.sub(replacement, line)
        if ignore_numbers:
            line = _ANY_NUMBER.sub("<N>", line)
        done.append(" ".join(line.split()))
    while done and not done[-1]:
        done.pop()
    return done


def run(command: Command, *, cwd: Path, exit_status: int = 0) -> list[str]:
    """What ``command`` prints, stdout and stderr together, as lines; raises
    :class:`ExampleError` when it exits with another status than ``exit_status``."""
    # ZEROSUM_COMPILE=wait: the compiled engines answer, as they do once compiled, not their
    # Python twins that answer while a first compile runs (docs/benchmarks.md, cold start)
    env = dict(os.environ, PYTHONUNBUFFERED="1", PYTHONIOENCODING="utf-8", ZEROSUM_COMPILE="wait")
    done = subprocess.run(
        [sys.executable, "-m", "zerosum", *command.argv()],
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        encoding="utf-8",
        timeout=TIMEOUT,
        check=False,
    )
    lines = done.stdout.rstrip("\n").split("\n") if done.stdout.strip() else []
    lines = [line.rstrip() for line in lines]
    if done.returncode != exit_status:
        shown = "\n".join(lines[-20:])
        raise ExampleError(
            f"line {command.line}: {command.text!r} exited with {done.returncode}, "
            f"expected {exit_status}:\n{shown}"
        )
    return lines


def outputs(block: Block) -> Iterator[tuple[Command, list[str]]]:
    """Each command of ``block`` with what it prints now, run in one scratch folder."""
    with tempfile.TemporaryDirectory(prefix="zerosum-example-") as folder:
        for command in block.commands:
            yield command, run(command, cwd=Path(folder), exit_status=block.exit_status)


def differences(block: Block) -> list[str]:
    """Runs ``block`` and describes every command whose output differs from the written one
    (after :func:`normalise`); empty when the block is right."""
    found = []
    for command, printed in outputs(block):
        expected = normalise(command.output, ignore_numbers=block.ignore_numbers)
        actual = normalise(printed, ignore_numbers=block.ignore_numbers)
        if expected != actual:
            found.append(_diff(block, command, expected, actual))
    return found


def _diff(block: Block, command: Command, expected: list[str], actual: list[str]) -> str:
    import difflib

    lines = difflib.unified_diff(expected, actual, "written", "printed now", lineterm="", n=1)
    return f"{block.path.name}:{command.line}: $ {command.text}\n" + "\n".join(lines)


def update(blocks: Iterable[Block], *, force: bool = False, log: bool = True) -> list[Path]:
    """Reruns every block and writes what it prints into its file wherever the written output
    no longer matches (every output with ``force``); returns the files changed. Blocks marked
    ``skip`` are left as they are."""
    rewrites: dict[Path, list[tuple[Command, list[str]]]] = {}
    for block in blocks:
        if block.skip is not None:
            continue
        if log:
            print(f"running {block.id}", file=sys.stderr, flush=True)
        for command, printed in outputs(block):
            same = normalise(command.output, ignore_numbers=block.ignore_numbers) == normalise(
                printed, ignore_numbers=block.ignore_numbers
            )
            if force or not same:
                rewrites.setdefault(block.path, []).append((command, printed))
    for path, changes in rewrites.items():
        lines = path.read_text(encoding="utf-8").split("\n")
        # From the bottom up, so that the line numbers above each change stay right.
        for command, printed in sorted(changes, key=lambda change: -change[0].line):
            first = command.line  # the output starts on the line after the command (1-based)
            lines[first : first + len(command.output)] = printed
        path.write_text("\n".join(lines), encoding="utf-8")
        if log:
            print(f"rewrote {len(changes)} example(s) in {path}", file=sys.stderr)
    return list(rewrites)

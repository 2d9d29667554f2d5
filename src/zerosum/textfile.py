"""Reading a text file that a user names, with bounds: line by line, each line and the line
count bounded, a binary file refused at once.

Input files (a test set of positions, say) come from anywhere: ``/dev/urandom``, a file of one
endless line, a compressed file given by mistake. :func:`read_lines` never reads more than
its bounds allow: it looks at the first :data:`SNIFF_BYTES` bytes and refuses a file with a NUL
byte or bytes that are not UTF-8 there (a binary file), then reads one line at a time, at most
``max_chars`` characters each and ``max_lines`` lines, and raises :class:`TextFileError`, one
line naming the file, the line and the bound, as soon as one is passed.
"""

from __future__ import annotations

import codecs
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO, Final

from zerosum.game import ZerosumError

SNIFF_BYTES: Final = 8192
"""What is read first to tell a binary file from a text file."""
MAX_LINE_CHARS: Final = 10_000
"""The longest line :func:`read_lines` reads by default."""
MAX_LINES: Final = 1_000_000
"""The most lines :func:`read_lines` reads by default."""


class TextFileError(ZerosumError, ValueError):
    """A file that cannot be read as bounded text: missing, binary, not UTF-8, a line too
    long, too many lines."""


def read_lines(
    path: str | Path,
    *,
    what: str = "file",
    max_lines: int = MAX_LINES,
    max_chars: int = MAX_LINE_CHARS,
) -> Iterator[tuple[int, str]]:
    """The lines of the UTF-8 text file at ``path`` (without their line ends), each with its
    number from 1, read one at a time. ``what`` names the file in errors (``positions
    file``). Raises :class:`TextFileError` when the file cannot be opened, when its first bytes
    show a binary file, or once a line is longer than ``max_chars`` characters, is not UTF-8,
    or the file has more than ``max_lines`` lines."""
    try:
        stream = Path(path).open("rb")  # noqa: SIM115  (closed by the generator's finally)
    except OSError as error:
        raise TextFileError(f"cannot read the {what} {path}: {error.strerror or error}") from None
    return _lines(stream, str(path), what, max_lines, max_chars)


def _lines(
    stream: BinaryIO, path: str, what: str, max_lines: int, max_chars: int
) -> Iterator[tuple[int, str]]:
    with stream:
        try:
            start = stream.peek(SNIFF_BYTES)[:SNIFF_BYTES]  # type: ignore[attr-defined]
        except OSError as error:  # a directory, say
            raise TextFileError(
                f"cannot read the {what} {path}: {error.strerror or error}"
            ) from None
        if b"\0" in start or not _utf8_start(start):
            raise TextFileError(
                f"the {what} {path} is a binary file (its first {len(start):,} bytes are "
                "not text): expected a UTF-8 text file"
            )
        most = max_chars * 4 + 2  # UTF-8 takes at most 4 bytes a character, then the line end
        number = 0
        while True:
            raw = stream.readline(most + 1)
            if not raw:
                return
            number += 1
            if number > max_lines:
                raise TextFileError(
                    f"the {what} {path} has more than {max_lines:,} lines: expected at most "
                    f"{max_lines:,}"
                )
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError:
                if len(raw) > most:  # cut inside a character: too long anyway
                    line = raw[:most].decode("utf-8", errors="replace")
                else:
                    raise TextFileError(
                        f"the {what} {path} line {number:,} is not UTF-8 text: expected a text file"
                    ) from None
            if number == 1:
                line = line.removeprefix("\ufeff")
            line = line.rstrip("\r\n")
            if len(line) > max_chars:
                raise TextFileError(
                    f"the {what} {path} line {number:,} is longer than {max_chars:,} "
                    f"characters: expected shorter lines"
                )
            yield number, line


def _utf8_start(data: bytes) -> bool:
    """Whether ``data``, the start of a file, is UTF-8 (a character cut at its end allowed)."""
    try:
        codecs.getincrementaldecoder("utf-8")().decode(data, final=False)
    except UnicodeDecodeError:
        return False
    return True

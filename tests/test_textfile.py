"""Input files are read with bounds: a binary file is refused at once, and no line longer, and
no more lines, than the bounds allow are ever read."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from waiting import HANG_S

from zerosum.cli import main
from zerosum.textfile import SNIFF_BYTES, TextFileError, read_lines


def lines_of(path: Path, **bounds: int) -> list[tuple[int, str]]:
    return list(read_lines(path, what="test file", **bounds))


def test_text_is_read_line_by_line(tmp_path: Path) -> None:
    path = tmp_path / "set.txt"
    path.write_bytes("\ufeff4453 -2\r\n\n# é comment\n7".encode())
    assert lines_of(path) == [(1, "4453 -2"), (2, ""), (3, "# é comment"), (4, "7")]


@pytest.mark.parametrize(
    "data",
    [
        b"4453 -2\n\x00\x01\x02binary",  # a NUL in the first chunk
        bytes(range(128, 256)) * 4,  # not UTF-8
        b"\x1f\x8b\x08\x00" + bytes(range(256)),  # a gzip header
    ],
    ids=["nul", "latin", "gzip"],
)
def test_a_binary_file_is_refused_before_any_line(tmp_path: Path, data: bytes) -> None:
    path = tmp_path / "data.bin"
    path.write_bytes(data)
    lines = read_lines(path, what="test file")
    with pytest.raises(TextFileError, match="is a binary file"):
        next(lines)


def test_a_line_longer_than_the_bound_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "long.txt"
    path.write_text("4453\n" + "4" * 101 + "\n")
    assert lines_of(path, max_chars=101)[1] == (2, "4" * 101)
    with pytest.raises(TextFileError, match="line 2 is longer than 100 characters"):
        lines_of(path, max_chars=100)


def test_one_endless_line_is_not_read_whole(tmp_path: Path) -> None:
    """A line of 5 MB without a line end: refused after reading about the bound."""
    path = tmp_path / "endless.txt"
    with path.open("wb") as file:
        file.write(b"4" * (5 << 20))
    lines = read_lines(path, what="test file", max_chars=1000)
    with pytest.raises(TextFileError, match="longer than 1,000 characters"):
        next(lines)


def test_more_lines_than_the_bound_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "many.txt"
    path.write_text("4\n" * 11)
    assert len(lines_of(path, max_lines=11)) == 11
    with pytest.raises(TextFileError, match="more than 10 lines"):
        lines_of(path, max_lines=10)


def test_a_line_that_is_not_utf8_past_the_first_chunk(tmp_path: Path) -> None:
    path = tmp_path / "late.txt"
    path.write_bytes(b"4\n" * SNIFF_BYTES + b"\xff\xfe\n")
    with pytest.raises(TextFileError, match=f"line {SNIFF_BYTES + 1:,} is not UTF-8"):
        lines_of(path)


def test_missing_files_and_folders(tmp_path: Path) -> None:
    with pytest.raises(TextFileError, match=r"cannot read the test file .*No such file"):
        read_lines(tmp_path / "missing.txt", what="test file")
    with pytest.raises(TextFileError, match="cannot read the test file"):
        lines_of(tmp_path)


@pytest.mark.skipif(not os.path.exists("/dev/urandom"), reason="no /dev/urandom")
@pytest.mark.parametrize("device", ["/dev/urandom", "/dev/zero"])
def test_solve_positions_from_a_device_ends_at_once_in_one_line(
    device: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """``solve --positions /dev/urandom`` read without bound (3.6 GB after 18 s)."""
    assert main(["solve", "connect4", "--positions", device]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("zerosum: error: the positions file")
    assert "binary file" in err


def test_solve_positions_from_urandom_in_a_fresh_process() -> None:
    """The same from the command line: exit 2 and one line (the timeout only bounds a hang;
    the file is refused before numba loads)."""
    done = subprocess.run(
        [sys.executable, "-m", "zerosum", "solve", "connect4", "--positions", "/dev/urandom"],
        capture_output=True,
        text=True,
        timeout=HANG_S,
    )
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "binary file" in done.stderr


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("4453 -2\n" + "4" * 2000 + "\n", "line 2 is longer than 1,000 characters"),
        ("4453 -2 " + "x" * 900 + " y\n", "has 4 fields"),
    ],
)
def test_positions_file_bounds_on_the_command_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, message: str
) -> None:
    path = tmp_path / "set.txt"
    path.write_text(text)
    assert main(["solve", "connect4", "--positions", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err and len(err) < 400


def test_a_token_file_is_read_with_bounds(monkeypatch: pytest.MonkeyPatch) -> None:
    """``RAY_AUTH_TOKEN_PATH`` naming a device is one line, not a read without end."""
    from zerosum.runtime.joining import ClusterError, token_source

    monkeypatch.delenv("RAY_AUTH_TOKEN", raising=False)
    monkeypatch.setenv("RAY_AUTH_TOKEN_PATH", "/dev/zero")
    with pytest.raises(ClusterError, match=r"cannot be read .*binary file"):
        token_source()

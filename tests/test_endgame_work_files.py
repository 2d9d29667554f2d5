"""The files of a build in parts: written whole or not at all, and a failed write in one line."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from test_cli_crash import ENV
from waiting import HANG_S

from zerosum.endgames.database import EndgameError
from zerosum.endgames.work_files import save_array, write_whole


def test_an_array_is_written_whole_and_leaves_no_temporary_file(tmp_path: Path) -> None:
    target = tmp_path / "made" / "3-4.0.npy"  # the folder is made
    save_array(target, np.arange(5))
    save_array(target, np.arange(7))  # replaced whole
    assert np.array_equal(np.load(target), np.arange(7))
    assert [p.name for p in target.parent.iterdir()] == ["3-4.0.npy"]


def test_a_write_that_fails_midway_leaves_no_file_and_says_which_in_one_line(
    tmp_path: Path,
) -> None:
    target = tmp_path / "levels.json"

    def half(out: object) -> None:
        assert hasattr(out, "write")
        out.write(b"{")
        raise OSError(28, "No space left on device")

    with pytest.raises(EndgameError) as caught:
        write_whole(target, half)
    assert str(caught.value).startswith(f"cannot write {target}: No space left on device: ")
    assert "\n" not in str(caught.value)
    assert list(tmp_path.iterdir()) == []  # neither the file nor its temporary file


def test_a_folder_that_cannot_be_made_is_a_one_line_error(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    with pytest.raises(EndgameError, match=r"cannot write .*: expected a writable folder"):
        save_array(blocker / "inputs" / "3-3.npy", np.arange(3))


def test_a_file_size_limit_stops_a_write_cleanly(tmp_path: Path) -> None:
    """Real write errors from the kernel (``RLIMIT_FSIZE``, as a full disk would stop a
    write), in a process of its own: a part's array and the level record each fail in one
    line naming the file, and nothing is left in the folder."""
    script = (
        "import pathlib, resource, signal, sys\n"
        "import numpy as np\n"
        "from zerosum.endgames.database import EndgameError\n"
        "from zerosum.endgames.split_levels import save_levels\n"
        "from zerosum.endgames.work_files import save_array\n"
        "folder = pathlib.Path(sys.argv[1])\n"
        "signal.signal(signal.SIGXFSZ, signal.SIG_IGN)\n"
        "resource.setrlimit(resource.RLIMIT_FSIZE, (8, resource.RLIM_INFINITY))\n"
        "for write in (lambda: save_array(folder / '6-6.0.npy', np.zeros(9)),\n"
        "              lambda: save_levels(folder, 3, 9)):\n"
        "    try:\n"
        "        write()\n"
        "    except EndgameError as error:\n"
        "        print(error)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path)],
        env=ENV,
        capture_output=True,
        text=True,
        timeout=HANG_S,
        check=True,
    )
    lines = done.stdout.splitlines()
    assert [line.split(": ")[0] for line in lines] == [
        f"cannot write {tmp_path / '6-6.0.npy'}",
        f"cannot write {tmp_path / 'levels.json'}",
    ], done.stdout
    assert all("expected a writable folder with room for it" in line for line in lines)
    assert done.stderr == ""
    assert list(tmp_path.iterdir()) == []

"""The files a build in parts shares between its processes, each written whole or not at all.

Every file a unit or the driver leaves for another process (a tier's inputs, step 1's parts,
round 1's lists, apply journals and markers, ``levels.json``) is written under a temporary name
in its own folder, closed, then renamed into place (:func:`write_whole`), so a reader on any
node sees the old file or the new one whole, never a part of it (the endgames page of the docs
says what that relies on on a network file system). The temporary name carries the host, the
process and a random tag: two processes of one id on two machines (containers number their
processes alike) that write the same file at once never write into one temporary file.

A write that fails (a full disk, a folder that cannot be written) leaves no temporary file and
is an :class:`~.database.EndgameError` in one line, naming the file: from a unit, the executor
passes such an error back as it is, with no traceback (it is not a bug of the code).
"""

from __future__ import annotations

import contextlib
import os
import secrets
import socket
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

import numpy as np

from zerosum.endgames.database import EndgameError


def write_whole(target: Path, write: Callable[[IO[bytes]], object]) -> None:
    """Make ``target`` (and its folder, if missing) from what ``write`` writes to a binary
    file: whole or not at all (see the module docstring); an :class:`OSError` on the way is an
    :class:`~.database.EndgameError` naming ``target``."""
    host = socket.gethostname().replace(os.sep, "_")
    temporary = target.with_name(f"{target.name}.{host}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        with open(temporary, "xb") as out:
            write(out)
        os.replace(temporary, target)
    except OSError as error:
        with contextlib.suppress(OSError):
            temporary.unlink(missing_ok=True)
        reason = error.strerror or str(error)
        raise EndgameError(
            f"cannot write {target}: {reason}: expected a writable folder with room for it "
            "(the build's work folder, beside the store)"
        ) from None
    except BaseException:  # Ctrl-C, or a bug in ``write``: no temporary file left behind
        with contextlib.suppress(OSError):
            temporary.unlink(missing_ok=True)
        raise


def save_array(target: Path, array: np.ndarray[Any, Any]) -> None:
    """``np.save`` of ``array`` to ``target``, whole or not at all (:func:`write_whole`)."""
    write_whole(target, lambda out: np.save(out, array))

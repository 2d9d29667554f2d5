"""The ``zerosum`` command line: play, analyze, solve, compare and list moves of every game.

One module per command (or close family of commands) holds its options (``add_parser``) and
what it runs (``run``); :data:`COMMANDS` lists them in the order of ``zerosum --help``, and
:func:`main` runs the one the command line names. Shared pieces live in :mod:`.parser`
(argument types and shared options), :mod:`.common` (loading a position, printing, exit
statuses, signals) and :mod:`.engines` (the engines besides ``zerosum.search``'s algorithms);
value words and result dicts come from :mod:`zerosum.formatting`, as in the web app.

Bad input (an unknown game, algorithm or option value, an illegal or malformed move or
position) prints one line ``zerosum: error: ...`` naming what was wrong and what is expected,
and exits with status 2.
"""

from __future__ import annotations

import atexit
import os
import signal
import sys
import threading
import time
from collections.abc import Sequence
from typing import Final, NoReturn

from zerosum.cli import (
    analyze,
    bench,
    book,
    compare,
    endgames,
    info,
    match,
    perft,
    play,
    serve,
    solve,
    uci,
)
from zerosum.cli.common import (
    EXIT_BAD_INPUT,
    EXIT_INTERRUPTED,
    program_started,
    tell_probe_file,
    tell_unusable_store,
    terminate_as_ctrl_c,
)
from zerosum.cli.parser import Command, Parser
from zerosum.cli.parser import build_parser as _build_parser
from zerosum.endgames.probe_file import listen, listen_unusable
from zerosum.game import ZerosumError
from zerosum.startup import hold, hold_while_ending, interrupted_while_ending, release

COMMANDS: Final[tuple[Command, ...]] = (
    info,
    analyze,
    solve,
    book,
    endgames,
    compare,
    bench,
    perft,
    play,
    serve,
    match,
    uci,
)
"""The command modules, in the order ``zerosum --help`` lists their commands."""


def build_parser() -> Parser:
    """The ``zerosum`` parser with every command of :data:`COMMANDS`."""
    return _build_parser(COMMANDS)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command ``argv`` names (default: ``sys.argv[1:]``, and the command's clock
    starts with the process: :func:`~zerosum.cli.common.program_started`) and return its exit
    status:
    2 for bad input (reported in one line on stderr; asking for more memory than the machine
    has counts as bad input), 130 after Ctrl-C, 128 + SIGPIPE when the
    reader of stdout went away."""
    started = program_started() if argv is None else time.perf_counter()
    parser = build_parser()
    quiet = listen(tell_probe_file)  # an engine that writes a store's probe file says so
    unheard = listen_unusable(tell_unusable_store)  # a damaged endgame store, left out
    try:
        release()  # Ctrl-C held since start-up (zerosum.startup): the command handles it now
        args = parser.parse_args(argv)
        args.started = started  # a time limit counts from here (see program_started)
        with terminate_as_ctrl_c():  # a terminated command stops its workers too
            status: int = args.run(args)
        sys.stdout.flush()  # a closed pipe shows here, inside the handler below
    except BrokenPipeError:
        # The reader went away (``zerosum analyze ... | head``): stop quietly, as a shell
        # tool would, and keep Python's exit-time flush from printing a traceback.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 128 + signal.SIGPIPE
    except ZerosumError as error:
        print(f"zerosum: error: {error}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except MemoryError:  # e.g. --hash 65536 on a machine without 64 GB to spare
        print(
            "zerosum: error: not enough memory for what was asked: expected a smaller table "
            "(--hash MB) or fewer workers",
            file=sys.stderr,
        )
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print("zerosum: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    finally:
        quiet()
        unheard()
    return status


def program() -> NoReturn:
    """The ``zerosum`` program (``python -m zerosum`` and the console script): :func:`main` on
    the process's command line, then the process ends as soon as its output is out.

    The exit skips the interpreter's teardown (freeing every module and object one by one: a
    tenth to a third of a second on a loaded machine, after the answer, on a command's clock
    such as ``--time``) when nothing needs it: the atexit handlers run (those of Ray,
    multiprocessing and ``weakref.finalize`` included), stdout and stderr are flushed, then
    ``os._exit``. With a thread other than daemons still running, Python's own exit waits for
    it as usual. A compile child left in the background is never waited for.

    Ctrl-C is held (:func:`zerosum.startup.hold`) but while the command runs: before it (while
    this module loads, when the program did not start in :mod:`zerosum.__main__`) a Ctrl-C
    says ``zerosum: interrupted`` and exits 130 at once; after it, while the process ends, the
    clean-up goes on first (a second Ctrl-C ends it at once)."""
    hold()
    status = main()
    hold_while_ending()
    if any(
        thread.is_alive() and not thread.daemon and thread is not threading.main_thread()
        for thread in threading.enumerate()
    ):
        sys.exit(status)  # Python's exit waits for the thread (Ctrl-C: noted, a second ends it)
    atexit._run_exitfuncs()
    if interrupted_while_ending():
        print("zerosum: interrupted", file=sys.stderr)
        status = EXIT_INTERRUPTED
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # the reader went away, or the stream was closed
            if status == 0:
                status = 128 + signal.SIGPIPE
    os._exit(status)


__all__ = ["COMMANDS", "build_parser", "main", "program"]

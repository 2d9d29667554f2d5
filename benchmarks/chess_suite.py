"""Run an EPD test suite through a UCI chess engine and count the positions it solves.

Each position of FILE is given to the engine with ``go movetime`` (SECONDS per position); the
position is solved when the engine's move is one of the ``bm`` (best move) moves, or, for an
``am`` (avoid move) position, none of them. Moves in the suite are SAN, as python-chess reads
EPD. Prints one line per position and ``solved N/TOTAL``. The default engine is zerosum's own
(``zerosum uci``, from the same virtual environment as this Python); ``--engine CMD`` runs any
other. An engine that crashes or stops answering fails that position and is started again.

Reference on this machine (issue 5), WAC 1-50: Stockfish 15.1 at 0.1 s solves 43/50, sunfish
(CPython) at 1 s 25/50. Target for zerosum: >= 40/50 of WAC 1-50 and >= 110/150 of WAC 1-150 at
1 s per position; issue 15's, >= 135/150 of WAC 1-150 at 0.5 s.

Stockfish is the Debian package (``apt-get install -y stockfish``, binary
``/usr/games/stockfish``). sunfish pins ``chess==1.9.4``, so it gets a virtual environment of
its own and is driven over UCI::

    python3 -m venv ~/sunfish-venv && ~/sunfish-venv/bin/pip install sunfish

Win At Chess (300 positions) is in ``benchmarks/data/win_at_chess_test.epd`` (source and
licence in ``benchmarks/data/README.md``); pass any other EPD suite's path as well. Run from the
repository root::

    .venv/bin/python benchmarks/chess_suite.py benchmarks/data/win_at_chess_test.epd 1 \\
        [--positions 1-150] [--engine CMD] [--option NAME=VALUE ...]
    # e.g. --engine /usr/games/stockfish, or --engine ~/sunfish-venv/bin/sunfish-uci
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
import time
from pathlib import Path

import chess
import chess.engine

ZEROSUM_UCI = [str(Path(sys.executable).with_name("zerosum")), "uci"]
"""zerosum's own engine, from this Python's virtual environment."""


def read_suite(path: Path) -> list[tuple[chess.Board, dict[str, object]]]:
    """Every position of an EPD file with its operations (``bm``, ``am``, ``id``)."""
    suite = []
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        if line.strip() and not line.startswith("#"):
            try:
                suite.append(chess.Board.from_epd(line))
            except ValueError as error:
                sys.exit(f"chess_suite: {path}:{number}: bad EPD line: {error}")
    return suite


def span(text: str, total: int) -> range:
    """``A-B`` (1-based, inclusive) as a range of indices."""
    first, _, last = text.partition("-")
    try:
        low, high = int(first), int(last or first)
    except ValueError:
        sys.exit(f"chess_suite: bad --positions {text!r}: expected A-B, e.g. 1-50")
    if not 1 <= low <= high <= total:
        sys.exit(f"chess_suite: --positions {text} is out of range: the suite has {total}")
    return range(low - 1, high)


def start(command: list[str], options: dict[str, str]) -> chess.engine.SimpleEngine:
    engine = chess.engine.SimpleEngine.popen_uci(command, timeout=30)
    try:
        engine.configure(options)
    except BaseException:
        engine.close()
        raise
    return engine


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "file",
        type=Path,
        help="an EPD suite, e.g. benchmarks/data/win_at_chess_test.epd (Win At Chess)",
    )
    parser.add_argument("seconds", type=float, help="seconds per position")
    parser.add_argument("--engine", help="the engine's command (default: zerosum uci)")
    parser.add_argument("--option", action="append", default=[], metavar="NAME=VALUE")
    parser.add_argument("--positions", help="which positions, A-B (1-based; default all)")
    args = parser.parse_args()
    command = shlex.split(args.engine) if args.engine else ZEROSUM_UCI
    options = dict(option.split("=", 1) for option in args.option)
    suite = read_suite(args.file)
    chosen = span(args.positions, len(suite)) if args.positions else range(len(suite))

    print(f"$ {' '.join([os.path.basename(sys.executable), *sys.argv])}")
    try:
        engine = start(command, options)
    except (OSError, chess.engine.EngineError) as error:
        sys.exit(f"chess_suite: cannot start {shlex.join(command)!r}: {error}")
    name = engine.id.get("name", command[0])
    print(
        f"{name}: {args.seconds:g} s per position,"
        f" {args.file.name} {chosen.start + 1}-{chosen.stop}"
    )
    solved = 0
    started = time.perf_counter()
    try:
        for index in chosen:
            board, ops = suite[index]
            best = list(ops.get("bm", []))  # type: ignore[call-overload]
            avoid = list(ops.get("am", []))  # type: ignore[call-overload]
            wanted = " ".join(board.san(m) for m in best) or "not " + " ".join(
                board.san(m) for m in avoid
            )
            note = ""
            try:
                result = engine.play(
                    board, chess.engine.Limit(time=args.seconds), info=chess.engine.INFO_ALL
                )
                move = result.move
            except (
                chess.engine.EngineError,
                chess.engine.EngineTerminatedError,
                TimeoutError,
            ) as e:
                move, note = None, f"engine failed ({type(e).__name__}); restarted"
                engine.close()
                engine = start(command, options)
            ok = move is not None and (move in best if best else move not in avoid)
            solved += ok
            if move is not None:
                info = result.info
                score = info.get("score")
                note = f"depth {info.get('depth', '?')}" + (
                    f" score {score.relative}" if score is not None else ""
                )
            shown = board.san(move) if move is not None else "-"
            print(
                f"{index + 1:>4} {ops.get('id', '')!s:<10} {wanted:<14} {shown:<8}"
                f" {'ok' if ok else '--'}  {note}",
                flush=True,
            )
    finally:
        engine.quit()
        engine.close()
    total = len(chosen)
    print(
        f"solved {solved}/{total} ({100 * solved / total:.1f}%) at {args.seconds:g} s per position"
        f" in {time.perf_counter() - started:.1f} s ({name})"
    )


if __name__ == "__main__":
    main()

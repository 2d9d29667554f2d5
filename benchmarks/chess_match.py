"""A chess match between two UCI engines through :mod:`zerosum.match`: W/D/L and Elo.

Openings come from the small built-in book (chess's ``GameSpec.openings``), each played
twice with colours swapped; clocks are kept (a flag fall loses); every game goes to a PGN file.
Prints one line per game, then A's W/D/L, score and Elo difference with its 95% interval
(formula in :mod:`zerosum.match.elo`), and each side's losses on time.

Players (``--a``, ``--b``): ``zerosum`` (``zerosum uci`` from this virtual environment),
``zerosum:SRC`` (``python -m zerosum uci`` of this interpreter with the package sources of the
directory ``SRC`` first on ``PYTHONPATH``, to match two versions of zerosum, each with the
same move overhead),
``sunfish`` (``sunfish-uci``; it pins ``chess==1.9.4``, so it lives in its own venv:
``python3 -m venv ~/sunfish-venv && ~/sunfish-venv/bin/pip install sunfish``; another
place with ``--sunfish PATH``), ``stockfish`` (Debian ``stockfish`` at full strength) or
``stockfish:ELO`` (limited with ``UCI_LimitStrength`` and ``UCI_Elo``, 1350..2850), or anything
``zerosum match`` reads (``uci:COMMAND``). ``--a-option NAME=VALUE`` (and ``--b-option``, each
repeatable) sets more UCI options of a UCI player, e.g. ``--a-option Contempt=20``.

Target of issue 5: zerosum scores >= 60% against sunfish at equal time over at least 40 games,
and reports its score against Stockfish at UCI_Elo 1350, 1600 and 2000. Target of issue 15:
at least 50% against ``stockfish:2000`` over 100 games at 10+0.1, and no loss on time (the
figures: docs/benchmarks.md).

``--sprt ELO0,ELO1`` (with ``--alpha``, ``--beta``) makes it a sequential test on game pairs
from the balanced book that stops as soon as it decides (``--games`` is then the most it
plays); each counted pair prints the LLR, e.g. a change in ``../other/src`` against this one:
``--a zerosum:../other/src --b zerosum:src --sprt 0,5 --games 2000``.
``--sprt-earlier N0,N1,N2,N3,N4`` continues a test from the pentanomial counts of its earlier
runs (the same players at the same time control; give a new ``--seed``): its LLR, and when it
stops, are those of the summed counts, and each pair's line prints the summed counts.

With ``--nodes-per-move`` the players are deterministic: the same two engines replay the same
game from the same opening and colours, whatever the seed (which only orders the book). The
balanced book has 240 openings, so the pairs of a test after the 240th replay earlier ones,
and a test continued with another seed replays the first run's pairs (issue 26: a "third
run" of internal iterative reduction found this). A test that needs more pairs goes on with
another node budget instead, say 10,500 after 10,000; the script says so when ``--games``
asks for more pairs than the book has.

``--balanced`` takes the openings of a match without ``--sprt`` from the same balanced book,
in an order drawn from ``--seed``, so that a match against Stockfish and a sequential test
start from the same kind of positions (issue 26's Stockfish matches).

Run from the repository root::

    .venv/bin/python benchmarks/chess_match.py --a zerosum --b sunfish --games 40 \\
        --clock 10+0.1 [--workers N] [--pgn FILE]
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import signal
import sys
from pathlib import Path

from zerosum.game import ZerosumError
from zerosum.match import (
    Match,
    MatchResult,
    SprtSettings,
    SprtState,
    TimeControl,
    balanced_openings,
    parse_player,
)
from zerosum.match.players import PlayerSpec, UciSettings
from zerosum.match.runner import GameRecord, settle

STOCKFISH = "/usr/games/stockfish"
SUNFISH = os.path.expanduser("~/sunfish-venv/bin/sunfish-uci")
LOWEST_ELO, HIGHEST_ELO = 1350, 2850
"""The UCI_Elo range of Debian's Stockfish 15.1."""
OVERHEAD = ("Move Overhead", "100")
"""Milliseconds each engine keeps in hand per move for the delay between it and the match, the
same for zerosum and Stockfish: Stockfish's default of 10 lost games on time on this loaded
2-core machine at 10+0.1, and zerosum's of 50 lost one of 20 (2026-11-23)."""


def player(text: str, sunfish: str, *, wait: bool = False) -> PlayerSpec:
    """A preset (see the module docstring) or a player as ``zerosum match`` reads it; with
    ``wait``, a zerosum preset loads its compiled search before it answers ``readyok``
    (``ZEROSUM_COMPILE=wait``), so that no move is played by the pure-Python twin while it
    compiles. The script always waits: at a clock, a source directory whose numba cache was
    cold played its first two or three games with the twin (issue 26, 2026-11-28: ten times
    fewer nodes a second, and depth 3 where the compiled search reaches 8-12)."""
    if text == "zerosum":
        command = (str(Path(sys.executable).with_name("zerosum")), "uci")
        if wait:
            command = ("env", "ZEROSUM_COMPILE=wait", *command)
        return UciSettings(command, (OVERHEAD,))
    if text.startswith("zerosum:"):
        source = Path(text.split(":", 1)[1]).resolve()
        if not (source / "zerosum" / "__init__.py").is_file():
            sys.exit(f"chess_match: {text}: expected a directory holding the zerosum package")
        command = ("env", f"PYTHONPATH={source}", sys.executable, "-m", "zerosum", "uci")
        if wait:
            command = ("env", "ZEROSUM_COMPILE=wait", *command[1:])
        return UciSettings(command, (OVERHEAD,))
    if text == "sunfish":
        return UciSettings((sunfish,))
    if text == "stockfish":
        return UciSettings((STOCKFISH,), (OVERHEAD,))
    if text.startswith("stockfish:"):
        elo = int(text.split(":", 1)[1])
        if not LOWEST_ELO <= elo <= HIGHEST_ELO:
            sys.exit(f"chess_match: UCI_Elo {elo}: expected {LOWEST_ELO}..{HIGHEST_ELO}")
        strength = (("UCI_LimitStrength", "true"), ("UCI_Elo", str(elo)))
        return UciSettings((STOCKFISH,), (OVERHEAD, *strength))
    return parse_player(text)


def with_options(spec: PlayerSpec, options: list[str], which: str) -> PlayerSpec:
    """``spec`` with the UCI ``options`` (``NAME=VALUE``) added after its own."""
    if not options:
        return spec
    if not isinstance(spec, UciSettings):
        sys.exit(f"chess_match: --{which}-option needs a UCI player, not {spec!r}")
    pairs = []
    for text in options:
        name, equals, value = text.partition("=")
        if not equals or not name.strip():
            sys.exit(f"chess_match: --{which}-option {text!r}: expected NAME=VALUE")
        pairs.append((name.strip(), value.strip()))
    return dataclasses.replace(spec, options=(*spec.options, *pairs))


def flags(records: list[GameRecord]) -> str:
    """Who ran out of time, and in which games (a flag against insufficient material draws,
    and counts for the side whose clock fell)."""
    fallen: dict[str, list[int]] = {"A": [], "B": []}
    for record in records:
        if record.ending.reason.startswith("time forfeit"):
            if record.winner is None:  # the flag fell on the side to move, whose move it was
                side = record.a_first == (len(record.moves) % 2 == 0)
                fallen["A" if side else "B"].append(record.index + 1)
            else:
                fallen["B" if record.winner == "A" else "A"].append(record.index + 1)
    return "losses on time: " + ", ".join(
        f"{side} {len(games)}" + (f" (games {', '.join(map(str, games))})" if games else "")
        for side, games in fallen.items()
    )


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def main() -> None:
    signal.signal(signal.SIGTERM, _interrupt)  # a kill stops the engines and keeps the games
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--a", default="zerosum", help="player A (default zerosum)")
    parser.add_argument("--b", default="sunfish", help="player B (default sunfish)")
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--clock", default="10+0.1", help="BASE+INC seconds (default 10+0.1)")
    parser.add_argument("--time-per-move", type=float, help="seconds per move instead of a clock")
    parser.add_argument(
        "--nodes-per-move",
        type=int,
        help="nodes per move instead of a clock (the same games whatever the load)",
    )
    parser.add_argument("--workers", type=int, default=1, help="games at once (default 1)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--sprt", metavar="ELO0,ELO1", help="a sequential test (normalized Elo)")
    parser.add_argument(
        "--sprt-earlier",
        metavar="N0,N1,N2,N3,N4",
        help="continue the test from the pentanomial counts of its earlier runs",
    )
    parser.add_argument("--alpha", type=float, default=0.05)
    parser.add_argument("--beta", type=float, default=0.05)
    parser.add_argument("--pgn", default="chess_match.pgn", help="where the games go")
    parser.add_argument(
        "--balanced",
        action="store_true",
        help="openings from the balanced book in an order drawn from --seed (as --sprt's)",
    )
    parser.add_argument("--sunfish", default=os.environ.get("SUNFISH_UCI", SUNFISH))
    for which in ("a", "b"):
        parser.add_argument(
            f"--{which}-option",
            action="append",
            default=[],
            metavar="NAME=VALUE",
            help=f"a UCI option of player {which.upper()} (repeatable)",
        )
    args = parser.parse_args()
    if args.sprt_earlier is not None and args.sprt is None:
        parser.error("--sprt-earlier continues a sequential test: give --sprt ELO0,ELO1 too")
    print(f"$ {' '.join([os.path.basename(sys.executable), *sys.argv])}")
    wait = True  # every game starts with the compiled search loaded (see player())
    try:
        if args.nodes_per_move:
            control = TimeControl(nodes=args.nodes_per_move)
        elif args.time_per_move:
            control = TimeControl(move_time=args.time_per_move)
        else:
            control = TimeControl.clock(args.clock)
        match = Match(
            "chess",
            with_options(player(args.a, args.sunfish, wait=wait), args.a_option, "a"),
            with_options(player(args.b, args.sunfish, wait=wait), args.b_option, "b"),
            games=args.games,
            time_control=control,
            seed=args.seed,
            openings=balanced_openings("chess", seed=args.seed) if args.balanced else None,
            sprt=None
            if args.sprt is None
            else SprtSettings.parse(
                args.sprt, alpha=args.alpha, beta=args.beta, earlier=args.sprt_earlier
            ),
        )
        records: list[GameRecord] = []

        def show_pair(state: SprtState) -> None:
            counts = " ".join(map(str, state.pentanomial.counts))
            print(f"pair {state.run_pairs:>4}  [{counts}]  {state.describe()}", flush=True)

        def show(record: GameRecord) -> None:
            records.append(record)
            colours = "A white" if record.a_first else "B white"
            print(
                f"game {record.index + 1:>3}  {colours}  {record.result:<7}"
                f"  {record.ending.reason:<28} {record.opening.name}; {len(record.moves)} plies;"
                f" A {record.seconds[0]:.1f} s, B {record.seconds[1]:.1f} s",
                flush=True,
            )

        print(f"A = {args.a}, B = {args.b}; {args.games} games, {control.describe()}")
        book = len(balanced_openings("chess"))
        if args.nodes_per_move and (args.sprt or args.balanced) and args.games > 2 * book:
            print(
                f"note: {book} openings: at a node budget the players are deterministic, so"
                f" the pairs after the {book}th replay earlier ones; go on with another"
                " --nodes-per-move rather than another --seed"
            )
        interrupted = False
        try:
            played = match.play(workers=args.workers, on_game=show, on_pair=show_pair)
            names = played.names
        except KeyboardInterrupt:
            interrupted, names = True, (args.a, args.b)
    except ZerosumError as error:
        sys.exit(f"chess_match: {error}")
    records.sort(key=lambda record: record.index)
    result = MatchResult("chess", names, control, tuple(records))
    if match.sprt is not None:  # the games the test counted
        state, pairs = settle(records, match.sprt)
        result = MatchResult("chess", names, control, tuple(records[: 2 * pairs]), state)
    Path(args.pgn).write_text(result.pgn())
    elo = result.elo
    if interrupted:
        print(f"interrupted after {len(records)} of {args.games} games")
    print(f"A = {names[0]}\nB = {names[1]}")
    print(
        f"A: +{elo.wins} ={elo.draws} -{elo.losses}  score {elo.points:g}/{elo.games}"
        f" ({100 * elo.score:.1f}%)  Elo A - B: {elo.describe()}  LOS {100 * elo.los:.1f}%"
    )
    if result.sprt is not None:
        counts = " ".join(map(str, result.sprt.pentanomial.counts))
        over = "this run's pairs" if result.sprt.settings.earlier.pairs else "pairs"
        print(f"{result.sprt.settings.describe()}: {result.sprt.describe()}")
        print(f"pentanomial [{counts}]; Elo over {over} {result.pair_elo.describe()}")
    print(flags(records))
    print(f"PGN: {args.pgn}")
    if interrupted:
        sys.exit(130)


if __name__ == "__main__":
    main()

"""``zerosum match``: games between two players with colours swapped; W/D/L and Elo.

The games run in ``--workers`` processes, or on Ray actors with ``--cluster``. Each game's
line is printed as it ends; Ctrl-C or SIGTERM stops the match (and its workers and engines)
and still reports the games finished, and a failing player is reported after them. Chess
games go to a PGN file with ``--pgn``, or are printed as PGN.

``--sprt ELO0,ELO1`` runs a sequential probability ratio test on the games' pairs
(:mod:`zerosum.match.sprt`) and stops as soon as it decides; ``--games`` is then the most it
may play (default :data:`SPRT_GAMES`), and the openings come from the game's balanced book in
an order drawn from ``--seed``. Its status line shows the LLR with its bounds, W/D/L, the
pentanomial counts and the Elo with its interval; ``--json`` reports them under ``sprt``.
``--sprt-earlier N0,N1,N2,N3,N4`` continues a test from the pentanomial counts of its earlier
runs: the LLR and the decision are those of the summed counts.
"""

from __future__ import annotations

import argparse
import logging
import os
from typing import Any, Final

from zerosum.cli.common import EXIT_INTERRUPTED, UsageError, emit, terminate_as_interrupt
from zerosum.cli.parser import (
    Subcommands,
    duration,
    file_path,
    json_option,
    node_count,
    positive_int,
    whole_number,
    worker_count,
)
from zerosum.cli.progress import Progress
from zerosum.game import ZerosumError
from zerosum.games import get_game

DEFAULT_GAMES = 10
"""The games of a match without a sequential test."""
SPRT_GAMES = 20000
"""The most games a sequential test plays unless ``--games`` says otherwise."""


def probability(text: str) -> float:
    """An error probability of a test: above 0 and below 0.5."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not 0 < value < 0.5:
        raise argparse.ArgumentTypeError(f"{text} is out of range: expected 0 < p < 0.5")
    return value


def add_parser(commands: Subcommands) -> None:
    """Adds ``match``."""
    match = commands.add_parser(
        "match",
        help="play games between two players, colours swapped; W/D/L and Elo",
        description="Players: KEY=VALUE[,KEY=VALUE...] for zerosum's search (keys level, depth,"
        " time, nodes, algorithm, hash, seed; 'zerosum' alone for the defaults) or uci:COMMAND"
        " for a UCI chess engine, e.g. --a uci:/usr/games/stockfish --a-option UCI_Elo=1350.",
    )
    match.add_argument("game", help="game name (see 'zerosum games'; chess for UCI engines)")
    match.add_argument("--a", required=True, metavar="PLAYER", help="player A")
    match.add_argument("--b", required=True, metavar="PLAYER", help="player B")
    for role in ("a", "b"):
        match.add_argument(
            f"--{role}-option",
            action="append",
            default=[],
            metavar="NAME=VALUE",
            help=f"a UCI option for player {role.upper()} (repeatable)",
        )
    match.add_argument(
        "--games",
        type=positive_int,
        help=f"games (default {DEFAULT_GAMES}; with --sprt the most to play, default {SPRT_GAMES})",
    )
    match.add_argument(
        "--sprt",
        metavar="ELO0,ELO1",
        help="stop when a sequential test on game pairs decides between normalized Elo ELO0"
        " (H0) and ELO1 (H1) of A over B, e.g. 0,5; openings from the balanced book",
    )
    match.add_argument(
        "--sprt-earlier",
        metavar="N0,N1,N2,N3,N4",
        help="--sprt: continue a test from the pentanomial counts of its earlier runs (same"
        " players and time control; give a new --seed for new openings), e.g. 7,21,19,17,8",
    )
    match.add_argument(
        "--alpha", type=probability, default=0.05, help="--sprt: chance of a false H1 (0.05)"
    )
    match.add_argument(
        "--beta", type=probability, default=0.05, help="--sprt: chance of a false H0 (0.05)"
    )
    match.add_argument(
        "--workers",
        type=worker_count,
        default=1,
        help="processes playing games (0 or auto: cores; at most 4 a core)",
    )
    match.add_argument(
        "--cluster",
        metavar="ADDRESS",
        help="play on Ray: 'auto' starts a local Ray, else a cluster's address;"
        " --workers N then sets the actors (default: one per CPU)",
    )
    match.add_argument("--time-per-move", type=duration, metavar="S", help="seconds per move")
    match.add_argument("--clock", metavar="BASE+INC", help="a clock per side, e.g. 60+0.6")
    match.add_argument(
        "--nodes-per-move",
        type=node_count,
        metavar="N",
        help="nodes per move instead of a time (UCI go nodes): the same games whatever the load",
    )
    match.add_argument("--seed", type=whole_number, default=0, help="seed of the players' choices")
    match.add_argument(
        "--no-book", dest="book", action="store_false", help="start every game from the start"
    )
    match.add_argument(
        "--max-plies", type=positive_int, default=1000, help="adjudicate a draw after this"
    )
    match.add_argument(
        "--pgn",
        metavar="FILE",
        type=file_path("a PGN file to write"),
        help="write the chess games to this PGN file",
    )
    json_option(match)
    match.set_defaults(run=run)


def _check_writable(path: str) -> None:
    """Fail now if ``path`` cannot be written, leaving no new file behind."""
    existed = os.path.exists(path)
    try:
        with open(path, "a", encoding="utf-8"):
            pass
    except OSError as error:
        raise UsageError(f"cannot write {path}: {error.strerror or error}") from None
    if not existed:
        os.remove(path)


def _match_cluster(args: argparse.Namespace) -> Any:
    """``match --cluster``: Ray actors for the games (started here for ``auto``); ``--workers``
    N > 1 is the number of actors (default: one per CPU of the cluster), at most the games."""
    from zerosum.match.runner import close_players, kill_players
    from zerosum.runtime.cluster import RayActorExecutor

    return RayActorExecutor(
        args.cluster,
        workers=0 if args.workers == 1 else args.workers,
        most=args.games,
        teardown=close_players,
        kill=kill_players,
    )


def _match_header(
    args: argparse.Namespace, names: tuple[str, str], control: Any, runner: Any
) -> str:
    """The first line of ``match``: the players, games, time control and where they play."""
    if runner is None:
        where = f"{args.workers} worker{'s' if args.workers > 1 else ''}"
    else:
        where = f"{runner.workers} Ray actor{'s' if runner.workers > 1 else ''} ({args.cluster})"
    games = f"{args.games} games"
    if args.sprt_settings is not None:
        games = f"{args.sprt_settings.describe()}, at most {games}"
    return f"{args.game}: A = {names[0]}, B = {names[1]}; {games}, {control.describe()}, {where}"


def _sprt_status(state: Any, games: int, pair_elo: Any) -> str:
    """The status line of a running test: pairs, LLR and bounds, W/D/L, pentanomial, Elo."""
    counts = " ".join(str(n) for n in state.pentanomial.counts)
    earlier = state.settings.earlier.pairs
    return (
        f"{state.run_pairs} pairs of {games // 2}{f' (+{earlier} earlier)' if earlier else ''};"
        f" LLR {state.llr:.2f}"
        f" ({state.settings.lower:.2f}, {state.settings.upper:.2f});"
        f" A +{pair_elo.wins} ={pair_elo.draws} -{pair_elo.losses};"
        f" pentanomial [{counts}]; Elo {pair_elo.describe()}"
    )


class _ReapedAfterItsLoop(logging.Filter):
    """Drops asyncio's warning that a process ended after the event loop watching it closed:
    python-chess closes an engine's loop as soon as the engine fails to start (``uci:cat``),
    the process is reaped all the same, and the warning only put a second line (``Loop ...
    that handles pid ... is closed``) above the one-line error."""

    def filter(self, record: logging.LogRecord) -> bool:
        return record.msg != "Loop %r that handles pid %r is closed"


REAPED_AFTER_ITS_LOOP: Final = _ReapedAfterItsLoop()


def run(args: argparse.Namespace) -> int:
    """Play the match, one line per game as it ends, then the score and the Elo difference;
    exits 130 when stopped, after reporting the games finished."""
    logging.getLogger("asyncio").addFilter(REAPED_AFTER_ITS_LOOP)  # once: the same object
    from zerosum.match import (
        Match,
        MatchResult,
        Pentanomial,
        SprtSettings,
        TimeControl,
        openings_for,
        parse_player,
    )
    from zerosum.match.runner import GameRecord, pair_points, settle

    args.sprt_settings = None
    if args.sprt_earlier is not None and args.sprt is None:
        raise UsageError("--sprt-earlier continues a sequential test: give --sprt ELO0,ELO1 too")
    if args.sprt is not None:
        args.sprt_settings = SprtSettings.parse(
            args.sprt, alpha=args.alpha, beta=args.beta, earlier=args.sprt_earlier
        )
        if args.games is None:
            args.games = SPRT_GAMES
        elif args.games % 2:
            raise UsageError(f"--games {args.games} with --sprt: expected an even number (pairs)")
    elif args.games is None:
        args.games = DEFAULT_GAMES

    uci = get_game(args.game).uci  # chess as PGN knows it
    if args.pgn and not uci:
        raise UsageError(f"--pgn is for chess: {args.game} games are printed as move lists")
    if args.pgn:
        _check_writable(args.pgn)  # before the first game, not after the last
    if sum(x is not None for x in (args.time_per_move, args.clock, args.nodes_per_move)) > 1:
        raise UsageError("give one of --time-per-move, --clock and --nodes-per-move")
    control = TimeControl(move_time=args.time_per_move, nodes=args.nodes_per_move)
    if args.clock is not None:
        control = TimeControl.clock(args.clock)
    match = Match(
        args.game,
        parse_player(args.a, args.a_option),
        parse_player(args.b, args.b_option),
        games=args.games,
        time_control=control,
        openings=None if args.book else openings_for(args.game, book=False),
        seed=args.seed,
        max_plies=args.max_plies,
        sprt=args.sprt_settings,
    )
    with terminate_as_interrupt():  # a SIGTERM while engines start closes them too
        names = match.names()
    if not args.json and args.cluster is None:
        print(_match_header(args, names, control, None), flush=True)
    records: list[GameRecord] = []
    status = Progress.for_command(args, "match")

    def show(record: GameRecord) -> None:
        records.append(record)
        wins = sum(r.score == 1 for r in records)
        draws = sum(r.score == 0.5 for r in records)
        if args.sprt_settings is None:
            status.update(
                f"{len(records)} of {args.games} games; A +{wins} ={draws} "
                f"-{len(records) - wins - draws}, {sum(r.score for r in records):g} points"
            )
        if args.json:
            return
        first, second = ("A", "B") if record.a_first else ("B", "A")
        line = (
            f"game {record.index + 1:>3}  {first}-{second}  {record.result:<7}  "
            f"{record.ending.reason}  ({record.opening.name}; {len(record.moves)} plies)"
        )
        if record.pgn is None:
            line += "  " + " ".join(record.moves)
        status.echo(line)

    def show_pair(state: Any) -> None:
        scores = {record.index: record.score for record in records}
        counted = [scores[index] for index in range(2 * state.run_pairs)]
        wins, draws = counted.count(1.0), counted.count(0.5)
        run = Pentanomial.of_pairs(pair_points(records)[: state.run_pairs])
        elo = run.elo(wins, draws, len(counted) - wins - draws)  # this run's, as at the end
        status.update(_sprt_status(state, args.games, elo))

    interrupted = False
    failure: ZerosumError | None = None
    played: MatchResult | None = None
    with terminate_as_interrupt(), status:
        status.update(f"0 of {args.games} games")
        runner = None if args.cluster is None else _match_cluster(args)  # Ray starts here
        try:
            if runner is not None and not args.json:
                status.echo(_match_header(args, names, control, runner))
            played = match.play(
                workers=args.workers,
                executor=runner,
                on_game=show,
                on_pair=show_pair,
                names=names,
            )
        except KeyboardInterrupt:
            interrupted = True
        except ZerosumError as error:  # reported after the games finished so far
            failure = error
        finally:
            if runner is not None:
                runner.close()
    records.sort(key=lambda record: record.index)
    result = MatchResult(args.game, names, control, tuple(records))
    uncounted = 0
    if args.sprt_settings is not None:  # the test over the pairs it counted, in order
        if played is None:
            state, pairs = settle(records, args.sprt_settings)
            played = MatchResult(args.game, names, control, tuple(records[: 2 * pairs]), state)
        uncounted = len(records) - len(played.games)
        result = played
    written, write_error = False, None
    if args.pgn and records:
        try:
            with open(args.pgn, "w", encoding="utf-8") as out:
                out.write(result.pgn())
            written = True
        except OSError as error:  # the results are still printed below
            write_error = UsageError(f"cannot write {args.pgn}: {error.strerror or error}")
    elo = result.elo
    data = {**result.as_dict(), "complete": not (interrupted or failure)}
    if result.sprt is not None:
        data["sprt"]["games_not_counted"] = uncounted
    if runner is not None:  # where the games went: Ray nodes, and games run again
        placed = dict(runner.units_per_node)
        data.update(
            cluster=args.cluster,
            cluster_nodes=len(placed),
            games_per_node=placed,
            games_rerun=runner.lost_runs,
        )
    lines = []
    if uci and not written and records:
        lines += ["", result.pgn().rstrip()]
    if interrupted or failure:
        lines.append(f"stopped after {len(records)} of {args.games} games")
    if result.sprt is not None:
        lines += _sprt_lines(result, uncounted)
    lines += [
        f"A: +{elo.wins} ={elo.draws} -{elo.losses}  score {elo.points:g}/{elo.games}"
        f" ({100 * elo.score:.1f}%)",
        f"Elo A - B: {elo.describe()}  LOS {100 * elo.los:.1f}%",
    ]
    if written:
        lines.append(f"PGN of {len(records)} games written to {args.pgn}")
    if runner is not None and data["cluster_nodes"]:
        counts = " + ".join(str(n) for n in sorted(data["games_per_node"].values(), reverse=True))
        nodes = data["cluster_nodes"]
        lines.append(f"games on {nodes} Ray node{'s' * (nodes > 1)} ({counts})")
        if runner.lost_runs:
            lines[-1] += f", {runner.lost_runs} run again after their node was lost"
    emit(args, data, "\n".join(lines))
    if failure is not None:
        raise failure
    if write_error is not None:
        raise write_error
    return EXIT_INTERRUPTED if interrupted else 0


def _sprt_lines(result: Any, uncounted: int) -> list[str]:
    """The test's verdict, its pentanomial counts and the Elo of the pairs."""
    state = result.sprt
    counts = " ".join(str(n) for n in state.pentanomial.counts)
    verdict = state.describe()
    if state.decision is None:
        verdict += ": no decision"
    earlier = state.settings.earlier
    over = "this run's pairs" if earlier.pairs else "pairs"
    pairs = f"{state.pentanomial.pairs} pairs"
    if earlier.pairs:
        pairs += f" ({earlier.pairs} earlier and {state.run_pairs} in this run)"
    lines = [
        f"{state.settings.describe()}: {verdict} after {pairs}",
        f"pentanomial [{counts}] (pairs scoring A 0, 1/2, 1, 3/2, 2)"
        f"  normalized Elo {_signed(state.pentanomial.normalized_elo)}",
        f"Elo A - B over {over}: {result.pair_elo.describe()}",
    ]
    if uncounted:
        lines.append(f"{uncounted} games of later pairs finished but are not counted")
    return lines


def _signed(value: float | None) -> str:
    return "n/a" if value is None else f"{value:+.1f}"

"""The ``zerosum`` command line: play, analyze, solve, compare and list moves of every game.

Bad input (an unknown game, algorithm or option value, an illegal or malformed move or
position) prints one line ``zerosum: error: ...`` naming what was wrong and what is expected,
and exits with status 2.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import signal
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, NoReturn

from zerosum import __version__
from zerosum.bench import bench
from zerosum.compiled import (
    DEFAULT_HASH_MB,
    MAX_HASH_MB,
    check_compiled,
    has_kernel,
    kernel_games,
)
from zerosum.endgames import MAX_MEN
from zerosum.game import WIN, Game, ZerosumError, is_proven, play_moves
from zerosum.games import GAMES, GameSpec, get_game
from zerosum.games.morris import Morris
from zerosum.search import ALGORITHMS, Limit, SearchResult, search, solve
from zerosum.search.compare import compare
from zerosum.search.probing import probe_root
from zerosum.store import Store

COMPILED_ENGINE = "compiled"
"""The algorithm name of the compiled engine (games with a kernel only)."""
TACTICAL_ENGINE = "tactical"
"""The algorithm name of the tactical engine (``zerosum.search.tactical``)."""

if TYPE_CHECKING:  # the compiled engine imports numba: commands that need it import it late
    from zerosum.compiled.solver import Exact, Solver
    from zerosum.endgames.database import ClassInfo
    from zerosum.search.parallel import SearchPool

EXIT_BAD_INPUT = 2


class UsageError(ZerosumError):
    """A command line that argparse rejected."""


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line and exit 2, like every other bad input."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{message} (see '{self.prog} --help')")


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value} is out of range: expected 1 or more")
    return value


def _int(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None


def _port(text: str) -> int:
    value = _int(text)
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"{value} is out of range: expected a port 0..65535")
    return value


def _megabytes(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a size in MB") from None
    if not 1 <= value <= MAX_HASH_MB:
        raise argparse.ArgumentTypeError(f"{text} MB is out of range: expected 1..{MAX_HASH_MB}")
    return value


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"{text} is out of range: expected seconds > 0")
    return value


# -- shared pieces --------------------------------------------------------------------------


def _position_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("game", help="game name (see 'zerosum games')")
    parser.add_argument(
        "--moves", nargs="+", default=[], metavar="M", help="moves played from the start"
    )
    parser.add_argument("--position", metavar="P", help="a position in the game's format")
    parser.add_argument("--json", action="store_true", help="print one JSON object")


def _load(args: argparse.Namespace) -> tuple[GameSpec, Game[Any]]:
    spec = get_game(args.game)
    game = spec.from_position(args.position) if args.position is not None else spec.new()
    play_moves(game, [text for word in args.moves for text in spec.split_moves(word)])
    return spec, game


def _names(game: Game[Any], moves: Sequence[Any]) -> list[str]:
    return [game.format_move(move) for move in moves]


def describe(value: int, *, solved: bool = False) -> str:
    """A score in words: ``win in 3``, ``loss in 4``, ``draw`` or the heuristic number."""
    if is_proven(value):
        plies = _plies_to_end(value)
        return f"{'win' if value > 0 else 'loss'} in {plies} {'ply' if plies == 1 else 'plies'}"
    if solved and value == 0:
        return "draw"
    return f"{value:+d}" if value else "0"


def _plies_to_end(value: int) -> int:
    return WIN - abs(value)


def _emit(args: argparse.Namespace, data: dict[str, Any], text: str) -> None:
    print(json.dumps(data) if args.json else text)


def _result_data(
    spec: GameSpec, game: Game[Any], result: SearchResult[Any], algorithm: str
) -> dict[str, Any]:
    best = result.best_move
    return {
        "game": spec.name,
        "position": game.position(),
        "algorithm": algorithm,
        "value": result.value,
        "value_text": describe(result.value, solved=result.solved),
        "solved": result.solved,
        "best_move": None if best is None else game.format_move(best),
        "best_moves": _names(game, result.best_moves),
        "pv": _names(game, result.pv),
        "depth": result.depth,
        "complete": result.complete,
        **result.stats.as_dict(),
    }


# -- commands -------------------------------------------------------------------------------


def cmd_games(args: argparse.Namespace) -> int:
    data = {"games": [{"name": s.name, "title": s.title} for s in GAMES.values()]}
    text = "\n".join(f"{s.name:<12} {s.title}" for s in GAMES.values())
    _emit(args, data, text)
    return 0


def cmd_algorithms(args: argparse.Namespace) -> int:
    rows = [(a.name, a.summary) for a in ALGORITHMS.values()]
    rows.append(
        (
            COMPILED_ENGINE,
            "the engine compiled with numba, for games with a kernel: "
            + ", ".join(sorted(kernel_games())),
        )
    )
    rows.append(
        (
            TACTICAL_ENGINE,
            "iterative deepening PVS with quiescence, check extension, null move and late-move "
            "reductions (chess's engine)",
        )
    )
    data = {"algorithms": [{"name": name, "summary": summary} for name, summary in rows]}
    text = "\n".join(f"{name:<10} {summary}" for name, summary in rows)
    _emit(args, data, text)
    return 0


def cmd_legal(args: argparse.Namespace) -> int:
    spec, game = _load(args)
    moves = _names(game, game.legal_moves())
    _emit(args, {"game": spec.name, "position": game.position(), "moves": moves}, "\n".join(moves))
    return 0


@contextlib.contextmanager
def _interruptible() -> Iterator[Callable[[], bool]]:
    """A stop callback for a ``Limit`` that turns true on Ctrl-C, so a long search stops
    cleanly and still reports its last completed iteration."""
    interrupted: list[bool] = []

    def on_interrupt(signum: int, frame: object) -> None:
        interrupted.append(True)

    try:
        previous = signal.signal(signal.SIGINT, on_interrupt)
    except ValueError:  # not the main thread: leave Ctrl-C alone
        yield lambda: False
        return
    try:
        yield lambda: bool(interrupted)
    finally:
        signal.signal(signal.SIGINT, previous)


def _limit(args: argparse.Namespace, stop: Callable[[], bool]) -> Limit:
    if args.depth is None and args.nodes is None and args.time is None:
        return Limit(time=10.0, stop=stop)
    return Limit(depth=args.depth, nodes=args.nodes, time=args.time, stop=stop)


def _tactical(
    game: Game[Any],
    limit: Limit,
    report: Callable[[SearchResult[Any]], None] | None = None,
    pool: SearchPool | None = None,
) -> SearchResult[Any]:
    from zerosum.search.tactical_parallel import tactical_search

    searcher = tactical_search(game, pool=pool)

    def on_report(found: Any) -> None:
        if report is not None and found.complete:
            report(searcher.result(found))

    return searcher.search(limit, on_report=on_report)


def _solver(
    game: str, *, hash_mb: float = DEFAULT_HASH_MB, store: Store | None = None, workers: int = 1
) -> Solver:
    from zerosum.compiled.solver import Solver

    return Solver(game, hash_mb=hash_mb, store=store, workers=workers)


def _workers(text: str) -> int:
    """``--workers``: a count, or ``0``/``auto`` for every core."""
    if text.strip().lower() in ("0", "auto"):
        return os.cpu_count() or 1
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a whole number: expected 0, auto or a number of workers 1..256"
        ) from None
    if not 1 <= value <= 256:
        raise argparse.ArgumentTypeError(
            f"{value} workers is out of range: expected 0, auto or a positive number up to 256"
        )
    return value


@contextlib.contextmanager
def _pool(workers: int) -> Iterator[SearchPool | None]:
    """Worker processes for the pure-Python search when ``--workers`` asks for them, started
    once for the whole command and stopped at its end."""
    if workers == 1:
        yield None
        return
    from zerosum.search.parallel import SearchPool

    with SearchPool(workers) as pool:
        yield pool


def _check_algorithm(spec: GameSpec | None, name: str, command: str = "analyze") -> None:
    """Reject an algorithm ``command`` cannot run on ``spec`` (None: any game), listing the
    ones it can."""
    if name == COMPILED_ENGINE and spec is not None:
        check_compiled(spec.name)
    available = [*ALGORITHMS, COMPILED_ENGINE]
    if command == "analyze":
        available.append(TACTICAL_ENGINE)
    if name in available:
        return
    expected = ", ".join(available)
    if name in (COMPILED_ENGINE, TACTICAL_ENGINE):
        raise UsageError(
            f"algorithm {name!r} is not available for {command}: expected one of {expected}"
        )
    raise UsageError(f"unknown algorithm {name!r}: expected one of {expected}")


def cmd_analyze(args: argparse.Namespace) -> int:
    spec, game = _load(args)
    args.algorithm = args.algorithm or spec.analyzer
    _check_algorithm(spec, args.algorithm)
    if args.hash is not None and args.algorithm != COMPILED_ENGINE:
        raise UsageError("--hash sizes the compiled engine's table: expected --algorithm compiled")
    if args.algorithm == TACTICAL_ENGINE:
        for option, given in (("--all-best", args.all_best), ("--no-table", args.no_table)):
            if given:
                raise UsageError(
                    f"{option} is not available with the tactical engine: expected "
                    "--algorithm engine"
                )

    def report(result: SearchResult[Any]) -> None:
        if not args.json and result.complete:
            line = " ".join(_names(game, result.pv))
            print(f"depth {result.depth:>3}  value {describe(result.value):>14}  pv {line}")

    with _interruptible() as stop:
        if args.algorithm == COMPILED_ENGINE:
            hash_mb = args.hash or DEFAULT_HASH_MB
            with _solver(spec.name, hash_mb=hash_mb, workers=args.workers) as solver:
                result = solver.search(game, limit=_limit(args, stop), on_iteration=report)
        elif args.algorithm == TACTICAL_ENGINE and game.outcome() is None:
            with _pool(args.workers) as pool:
                result = _tactical(game, _limit(args, stop), report, pool)
        else:
            with _pool(args.workers) as pool:
                result = search(
                    game,
                    algorithm="engine" if args.algorithm == TACTICAL_ENGINE else args.algorithm,
                    limit=_limit(args, stop),
                    table=not args.no_table,
                    all_best=args.all_best,
                    seed=args.seed,
                    on_iteration=report,
                    pool=pool,
                )
    data = _result_data(spec, game, result, args.algorithm)
    stats = result.stats
    lines = [
        f"value      {describe(result.value, solved=result.solved)} ({result.value})",
        f"best move  {data['best_move'] or '-'}",
        f"best moves {' '.join(data['best_moves']) or '-'}",
        f"pv         {' '.join(data['pv']) or '-'}",
        f"depth      {result.depth}{'' if result.complete else ' (stopped early)'}",
        f"nodes      {stats.nodes:,}",
        f"time       {stats.time_s:.3f} s",
        f"nodes/s    {stats.nps:,.0f}",
    ]
    _emit(args, data, "\n".join(lines))
    return 0


def cmd_solve(args: argparse.Namespace) -> int:
    if args.positions is not None:
        return _solve_positions(args)
    spec, game = _load(args)
    algorithm = args.algorithm
    if algorithm is None and args.cluster is None and isinstance(game, Morris):
        from zerosum.endgames.morris import applies

        if applies(game):
            return _solve_endgame(args, spec, game)
        if args.store:
            raise UsageError(
                "--store names the endgame store, and this position is outside the endgame "
                "databases: expected nothing in hand and 3..4 men a side on the standard board"
            )
    if algorithm is None:
        algorithm = spec.solver
    _check_algorithm(spec, algorithm, "solve")
    if args.cluster is not None:
        if algorithm != COMPILED_ENGINE:
            raise UsageError(
                "--cluster solves with the compiled engine: expected --algorithm compiled "
                "(the default for connect four)"
            )
        return _solve_distributed(args, spec, game)
    if algorithm == COMPILED_ENGINE:
        return _solve_compiled(args, spec, game)
    compiled_only = (
        ("--weak", args.weak),
        ("--store", args.store),
        ("--hash", args.hash),
    )
    for option, given in compiled_only:
        if given:
            raise UsageError(f"{option} needs the compiled engine: expected --algorithm compiled")
    with _interruptible() as stop, _pool(args.workers) as pool:
        limit = Limit(time=args.time, stop=stop)
        result = solve(game, algorithm=algorithm, table=not args.no_table, limit=limit, pool=pool)
    data = _result_data(spec, game, result, algorithm)
    data["move_values"] = {game.format_move(m): v for m, v in result.move_values}
    lines = [f"value {describe(result.value, solved=result.solved)} ({result.value})"]
    if not result.solved:
        lines.append("(not solved: stopped early; the values are estimates)")
    lines.append(f"best moves {' '.join(data['best_moves']) or '-'}")
    for move, value in result.move_values:
        lines.append(f"  {game.format_move(move):<8} {describe(value, solved=result.solved)}")
    lines.append(f"nodes {result.stats.nodes:,} in {result.stats.time_s:.3f} s")
    _emit(args, data, "\n".join(lines))
    return 0


def _solve_positions(args: argparse.Namespace) -> int:
    """``solve GAME --positions FILE``: every position of a test-set file solved exactly (over
    ``--workers`` processes, each solving whole positions), one line per position as it is
    solved, checked against the file's scores, then a summary. Exits 1 on a mismatch."""
    from zerosum.compiled.batch import expected_rank, load, read_positions, solve_positions
    from zerosum.compiled.kernels import compiled_game

    for option, given in (
        ("--moves", bool(args.moves)),
        ("--position", args.position is not None),
        ("--all", args.all),
        ("--cluster", args.cluster is not None),
    ):
        if given:
            raise UsageError(f"--positions solves the positions of a file: expected no {option}")
    spec = get_game(args.game)
    if args.algorithm not in (None, COMPILED_ENGINE):
        raise UsageError("--positions solves with the compiled engine: expected no --algorithm")
    if not compiled_game(spec.name).exact:  # raises for a game without a compiled engine
        raise UsageError(
            f"--positions solves exactly, which the compiled engine cannot do for {spec.name}: "
            "expected a game such as connect4 or tictactoe"
        )
    entries = read_positions(args.positions, spec)
    store = Store(args.store) if args.store else None
    rows: list[dict[str, Any]] = []
    started = time.perf_counter()
    startup = 0.0
    try:
        with _solver(
            spec.name, hash_mb=args.hash or DEFAULT_HASH_MB, store=store, workers=args.workers
        ) as solver:
            load(solver, entries[0])
            startup = time.perf_counter() - started
            started = time.perf_counter()
            with _interruptible() as stop:
                limit = Limit(time=args.time, stop=stop)
                for entry, exact in solve_positions(solver, entries, weak=args.weak, limit=limit):
                    expected = expected_rank(entry, weak=args.weak)
                    score = exact.rank if exact.complete else None
                    row = {
                        "line": entry.line,
                        "position": entry.position,
                        "score": score,
                        "expected": expected,
                        "ok": None if score is None or expected is None else score == expected,
                        "stored": exact.stored,
                        "nodes": exact.stats.nodes,
                        "time_s": round(exact.stats.time_s, 6),
                    }
                    rows.append(row)
                    if not args.json:
                        print(_position_line(row), flush=True)
    finally:
        if store is not None:
            store.close()
    seconds = time.perf_counter() - started
    solved = [row for row in rows if row["score"] is not None]
    mismatches = [row for row in rows if row["ok"] is False]
    checked = sum(row["ok"] is not None for row in rows)
    per_position = seconds / len(solved) if solved else None
    data: dict[str, Any] = {
        "game": spec.name,
        "file": str(args.positions),
        "algorithm": COMPILED_ENGINE,
        "weak": args.weak,
        "workers": args.workers,
        "positions": len(entries),
        "solved": len(solved),
        "checked": checked,
        "mismatches": len(mismatches),
        "complete": len(solved) == len(entries),
        "nodes": sum(row["nodes"] for row in rows),
        "time_s": round(seconds, 6),
        "time_per_position_s": None if per_position is None else round(per_position, 9),
        "startup_s": round(startup, 6),
        "results": rows,
    }
    if args.json:
        print(json.dumps(data))
    else:
        rate = f" ({per_position * 1e3:.3f} ms per position)" if per_position is not None else ""
        workers = f"{args.workers} worker{'s' if args.workers > 1 else ''}"
        print(
            f"{len(solved)} of {len(entries)} positions solved in {seconds:.2f} s{rate}, "
            f"{workers}, {data['nodes']:,} nodes; {checked} checked against the file's scores: "
            f"{len(mismatches)} mismatch{'es' if len(mismatches) != 1 else ''}"
            + f" (start-up {startup:.2f} s before that)"
        )
        if len(solved) < len(entries):
            print(f"stopped: {len(entries) - len(solved)} positions not solved")
        for row in mismatches:
            print(
                f"  mismatch: line {row['line']} {row['position']}: solved {row['score']:+d}, "
                f"the file says {row['expected']:+d}"
            )
    return 1 if mismatches else 0


def _position_line(row: dict[str, Any]) -> str:
    """One position's line in ``solve --positions``."""
    if row["score"] is None:
        verdict, score = "not solved (stopped)", "-"
    else:
        score = f"{row['score']:+d}" if row["score"] else "0"
        if row["ok"] is None:
            verdict = ""
        elif row["ok"]:
            verdict = "ok"
        else:
            verdict = f"MISMATCH: expected {row['expected']:+d}"
    source = "from the store" if row["stored"] else f"{row['nodes']:,} nodes"
    return (
        f"{row['line']:>6} {row['position']:<24} {score:>4}  {verdict:<22} {source:>16} "
        f"{row['time_s'] * 1e3:9.3f} ms"
    )


def _exact_text(exact: Exact, *, weak: bool) -> str:
    if weak:
        return {1: "win", 0: "draw", -1: "loss"}[exact.rank]
    return f"{exact.rank:+d} ({describe(exact.value, solved=True)})" if exact.rank else "0 (draw)"


def _value_text(exact: Exact, *, weak: bool) -> str:
    """``value_text`` in JSON: the value in words (``draw``, ``win in 13 plies``), or only
    ``win``, ``draw`` or ``loss`` after a weak solve."""
    if weak:
        return _exact_text(exact, weak=True)
    return describe(exact.value, solved=True)


def _solve_compiled(args: argparse.Namespace, spec: GameSpec, game: Game[Any]) -> int:
    """``solve`` with the compiled engine: the game's exact score, best moves, and with
    ``--all`` every move's score, each stored as soon as it is proven when a store is open."""
    store = Store(args.store) if args.store else None
    solver: Solver | None = None
    try:
        solver = _solver(
            spec.name, hash_mb=args.hash or DEFAULT_HASH_MB, store=store, workers=args.workers
        )
        stream = not args.json and args.all

        def show(move: Any, exact: Exact) -> None:
            if stream:
                print(f"  {game.format_move(move):<8} {_exact_text(exact, weak=args.weak)}")

        with _interruptible() as stop:
            limit = Limit(time=args.time, stop=stop)
            started = time.perf_counter()
            exact = solver.solve(game, weak=args.weak, limit=limit)
            results: list[tuple[Any, Exact]] = []
            best: list[Any] = []
            best_known = True
            if stream and exact.complete:
                print(f"score {_exact_text(exact, weak=args.weak)}")
            if exact.complete and game.outcome() is None:
                if args.all:
                    left = limit  # --time covers the score and every move's
                    if args.time is not None:
                        spent = time.perf_counter() - started
                        left = Limit(time=max(args.time - spent, 1e-3), stop=stop)
                    results = solver.move_results(game, weak=args.weak, limit=left, on_move=show)
                    best = [m for m, r in results if r.rank == exact.rank]
                else:  # Ctrl-C and --time stop this too
                    left = limit
                    if args.time is not None:
                        spent = time.perf_counter() - started
                        left = Limit(time=max(args.time - spent, 1e-3), stop=stop)
                    found = solver.best_moves_within(game, exact.rank, weak=args.weak, limit=left)
                    best, best_known = found or [], found is not None
    finally:
        if solver is not None:
            solver.close()
        if store is not None:
            store.close()
    complete = exact.complete and (not args.all or len(results) == len(game.legal_moves()))
    complete = complete and best_known
    nodes = exact.stats.nodes + sum(r.stats.nodes for _, r in results)
    seconds = exact.stats.time_s + sum(r.stats.time_s for _, r in results)
    data: dict[str, Any] = {
        "game": spec.name,
        "position": game.position(),
        "algorithm": COMPILED_ENGINE,
        "weak": args.weak,
        "score": exact.rank if exact.complete else None,
        "value": exact.value if exact.complete else None,
        "value_text": _value_text(exact, weak=args.weak) if exact.complete else None,
        "best_moves": _names(game, best),
        "complete": complete,
        "stored": exact.stored,
        "nodes": nodes,
        "time_s": round(seconds, 6),
    }
    if args.all:
        scores: dict[str, int | None] = dict.fromkeys(spec.move_names)
        scores.update({game.format_move(m): r.rank for m, r in results})
        data["scores"] = scores
        solved = {m for m, _ in results}
        data["unsolved"] = [game.format_move(m) for m in game.legal_moves() if m not in solved]
        data["move_values"] = {game.format_move(m): r.value for m, r in results}
    lines = []
    if game.outcome() is not None:
        lines.append("the game is over: no moves to play")
    if not exact.complete:
        lines.append("not solved: stopped before the score was proven")
    elif not stream:
        lines.append(f"score {_exact_text(exact, weak=args.weak)}")
    if exact.complete and not best_known:
        lines.append("best moves not known: stopped before they were proven")
    elif exact.complete:
        lines.append(f"best moves {' '.join(data['best_moves']) or '-'}")
    if args.all:
        unsolved = data["unsolved"]
        full = [
            name for name, score in data["scores"].items() if score is None and name not in unsolved
        ]
        if full and game.outcome() is None:
            lines.append(f"  not playable: {' '.join(full)}")
        if unsolved and game.outcome() is None:
            lines.append(f"  not solved (stopped): {' '.join(unsolved)}")
        if exact.complete and not complete:
            lines.append("  (stopped before every move was solved)")
    lines.append(f"nodes {nodes:,} in {seconds:.3f} s{' (from the store)' if exact.stored else ''}")
    _emit(args, data, "\n".join(lines))
    return 0


def _endgame_note(info: ClassInfo) -> None:
    """Reports a class built or found while building, on stderr (stdout may carry JSON)."""
    how = f"built in {info.build_s:.1f} s" if info.built_now else "already stored"
    print(f"endgames {info.name}: {info.entries:,} positions, {how}", file=sys.stderr)


def _solve_endgame(args: argparse.Namespace, spec: GameSpec, game: Morris) -> int:
    """``solve morris`` for a position the endgame databases decide (built on first use)."""
    from zerosum.endgames.database import Endgames
    from zerosum.endgames.morris import needed_class, score, solve_endgame

    with Endgames(args.store) as endgames:
        if not endgames.has(*needed_class(game)):
            print(f"building the endgame databases in {endgames.path} (first use)", file=sys.stderr)
            endgames.build(through=needed_class(game), on_class=_endgame_note)
        solution = solve_endgame(game, endgames)
        path = str(endgames.path)
    result = solution.result
    data: dict[str, Any] = {
        "game": spec.name,
        "position": game.position(),
        "algorithm": "endgames",
        "result": result.word,
        "moves_to_end": result.moves_to_end,
        "value": score(result),
        "value_text": str(result),
        "solved": True,
        "best_moves": _names(game, solution.best_moves),
        "moves": {
            game.format_move(m): {"result": r.word, "moves_to_end": r.moves_to_end}
            for m, r in solution.moves
        },
        "move_values": {game.format_move(m): score(r) for m, r in solution.moves},
        "store": path,
    }
    lines = [
        f"result {result} ({score(result)})",
        f"best moves {' '.join(data['best_moves']) or '-'}",
    ]
    lines += [f"  {game.format_move(m):<10} {r}" for m, r in solution.moves]
    lines.append(f"(exact, from the endgame databases in {path})")
    _emit(args, data, "\n".join(lines))
    return 0


def _solve_distributed(args: argparse.Namespace, spec: GameSpec, game: Game[Any]) -> int:
    """``solve --cluster``: work units on a Ray cluster, every result kept in the store (an
    in-memory one without ``--store``), so a second run resumes an interrupted one. The output
    is the local compiled solve's (score, best moves; with ``--all`` every move's score), plus
    the work units."""
    from zerosum.cluster import open_executor
    from zerosum.distributed import solve_distributed

    with Store(args.store or ":memory:") as store, _interruptible() as stop:
        executor = open_executor(args.cluster, workers=0 if args.workers == 1 else args.workers)
        try:
            found = solve_distributed(
                game,
                executor=executor,
                store=store,
                split=args.split,
                weak=args.weak,
                hash_mb=args.hash or DEFAULT_HASH_MB,
                limit=Limit(time=args.time, stop=stop),
                moves="all" if args.all else "best",
            )
        finally:
            executor.shutdown(wait=False, cancel_futures=True)
    data, lines = _distributed_output(args, spec, game, found)
    _emit(args, data, "\n".join(lines))
    return 0


def _distributed_output(
    args: argparse.Namespace, spec: GameSpec, game: Game[Any], found: Any
) -> tuple[dict[str, Any], list[str]]:
    """The JSON and the text of ``solve --cluster``: the fields and lines of the local compiled
    solve (``_solve_compiled``), then the work units."""
    from zerosum.compiled.solver import Exact
    from zerosum.search.core import Stats

    def exact(rank: int) -> Exact:
        value = rank if args.weak else compiled_value(spec.name, rank, game.ply())
        return Exact(rank, value, Stats(), stored=found.stored)

    over = game.outcome() is not None
    score = None if found.rank is None else exact(found.rank)
    complete = found.rank is not None and found.moves_complete
    data: dict[str, Any] = {
        "game": spec.name,
        "position": game.position(),
        "algorithm": COMPILED_ENGINE,
        "weak": args.weak,
        "score": None if score is None else score.rank,
        "value": None if score is None else score.value,
        "value_text": None if score is None else _value_text(score, weak=args.weak),
        "best_moves": _names(game, found.best_moves),
        "complete": complete,
        "stored": found.stored,
        "nodes": found.nodes,
        "time_s": round(found.time_s, 6),
    }
    if args.all:
        scores: dict[str, int | None] = dict.fromkeys(spec.move_names)
        scores.update({game.format_move(m): rank for m, rank in found.moves})
        data["scores"] = scores
        solved = [m for m, _ in found.moves]
        data["unsolved"] = [game.format_move(m) for m in game.legal_moves() if m not in solved]
        data["move_values"] = {game.format_move(m): exact(r).value for m, r in found.moves}
    data.update(
        cluster=args.cluster,
        units=found.units,
        units_from_store=found.from_store,
        units_solved=found.solved,
        units_cancelled=found.cancelled,
    )
    lines = []
    if over:
        lines.append("the game is over: no moves to play")
    if score is None:
        lines.append("not solved: stopped before the score was proven (the store keeps results)")
    else:
        lines.append(f"score {_exact_text(score, weak=args.weak)}")
        if args.all:
            for move, rank in found.moves:
                lines.append(
                    f"  {game.format_move(move):<8} {_exact_text(exact(rank), weak=args.weak)}"
                )
        if found.moves_complete:
            lines.append(f"best moves {' '.join(data['best_moves']) or '-'}")
        else:
            lines.append("best moves not known: stopped before every move was decided")
    if args.all and not over:
        unsolved = data["unsolved"]
        full = [name for name, rank in scores.items() if rank is None and name not in unsolved]
        if full:
            lines.append(f"  not playable: {' '.join(full)}")
        if unsolved:
            lines.append(f"  not solved (stopped): {' '.join(unsolved)}")
    lines += [
        f"{found.units} work units {args.split} plies down: {found.from_store} from the store, "
        f"{found.solved} solved now, {found.cancelled} cancelled",
        f"nodes {found.nodes:,} in {found.time_s:.3f} s" + (" (from the store)" * found.stored),
    ]
    return data, lines


def cmd_build_endgames(args: argparse.Namespace) -> int:
    if get_game(args.game).name != "morris":
        raise UsageError(f"endgame databases exist for morris only, not {args.game!r}")
    from zerosum.endgames.database import Endgames

    started = time.perf_counter()
    with Endgames(args.store) as endgames:  # Ctrl-C loses only the class in progress
        infos = endgames.build(args.max_men, on_class=_endgame_note)
    seconds = time.perf_counter() - started
    data = {
        "game": "morris",
        "store": str(endgames.path),
        "classes": [{**info.__dict__, "name": info.name} for info in infos],
        "time_s": round(seconds, 3),
    }
    text = f"{len(infos)} classes in {endgames.path}; {seconds:.1f} s"
    _emit(args, data, text)
    return 0


def compiled_value(game: str, rank: int, ply: int) -> int:
    """A compiled rank at a root with ``ply`` as a search value (``mission.md``)."""
    from zerosum.compiled.kernels import compiled_game

    return compiled_game(game).value(rank, ply)


def compiled_plies(game: str) -> int:
    """The most plies a game of ``game`` can last (its board's cells; else as many as its
    kernel's stack holds)."""
    from zerosum.compiled.kernels import compiled_game

    cells = {"connect4": 42, "tictactoe": 9}
    return cells.get(game.partition(":")[0], compiled_game(game).kernel.max_ply)


def cmd_book(args: argparse.Namespace) -> int:
    spec, game = _load(args)
    check_compiled(spec.name)
    if game.outcome() is not None:
        raise UsageError(
            "the game is over at this position, so there is nothing to solve: "
            "expected a position with moves to play"
        )
    most = compiled_plies(spec.name) - game.ply()
    if not 0 <= args.plies <= most:
        raise UsageError(
            f"--plies {args.plies} is out of range: expected 0..{most} "
            f"(the moves left in {spec.name} after {game.ply()} plies)"
        )
    counts = {"positions": 0, "solved": 0, "stored_before": 0}
    started = time.perf_counter()

    def progress(position: Game[Any], exact: Exact) -> None:
        counts["positions"] += 1
        counts["stored_before" if exact.stored else "solved"] += 1
        if not args.json and not exact.stored:
            print(
                f"  {position.position() or '(start)':<16} {_exact_text(exact, weak=args.weak)}"
                f"  {exact.stats.nodes:,} nodes, {exact.stats.time_s:.2f} s"
            )

    with Store(args.store) as store, _interruptible() as stop:
        solver = _solver(spec.name, hash_mb=args.hash, store=store)
        limit = Limit(time=args.time, stop=stop)
        done = solver.build_book(
            game, args.plies, weak=args.weak, limit=limit, on_position=progress
        )
        total = store.count(spec.name)
    seconds = time.perf_counter() - started
    data = {
        "game": spec.name,
        "store": args.store,
        "plies": args.plies,
        "complete": done,
        **counts,
        "store_results": total,
        "time_s": round(seconds, 3),
    }
    text = (
        f"{'book complete' if done else 'stopped early (the store keeps every proven result)'}: "
        f"{counts['positions']} positions up to {args.plies} plies, {counts['solved']} solved now, "
        f"{counts['stored_before']} already stored; {total} results in {args.store}; "
        f"{seconds:.1f} s"
    )
    _emit(args, data, text)
    return 0


def compare_rows(game: Game[Any], depth: int) -> Iterator[dict[str, Any]]:
    """Every algorithm with and without its table, one best move and all best moves; each row
    as soon as its search is done."""
    for row in compare(game, [depth]):
        yield {
            "algorithm": row.algorithm,
            "table": row.table,
            "best": row.best,
            "value": row.value,
            "best_moves": _names(game, row.best_moves),
            **row.stats.as_dict(),
        }


def cmd_compare(args: argparse.Namespace) -> int:
    """Print each row as it is computed, so a Ctrl-C keeps the rows done so far."""
    spec, game = _load(args)
    header = (
        f"{'algorithm':<10} {'table':<6} {'best':<4} {'value':>8} {'nodes':>10} "
        f"{'cutoffs':>8} {'probes':>8} {'hits':>8} {'time s':>8}  best moves"
    )
    if not args.json:
        print(f"{spec.title}, depth {args.depth}\n{header}\n{'-' * len(header)}", flush=True)
    data = {"game": spec.name, "position": game.position(), "depth": args.depth}
    rows: list[dict[str, Any]] = []
    interrupted = False
    try:
        for row in compare_rows(game, args.depth):
            rows.append(row)
            if not args.json:
                print(
                    f"{row['algorithm']:<10} {row['table']:<6} {row['best']:<4} "
                    f"{row['value']:>8} {row['nodes']:>10,} {row['cutoffs']:>8,} "
                    f"{row['tt_probes']:>8,} {row['tt_hits']:>8,} {row['time_s']:>8.3f}  "
                    f"{' '.join(row['best_moves'])}",
                    flush=True,
                )
    except KeyboardInterrupt:
        interrupted = True
    if args.json:
        print(json.dumps({**data, "rows": rows, "complete": not interrupted}), flush=True)
    elif interrupted:
        print(f"stopped after {len(rows)} row{'' if len(rows) == 1 else 's'}", flush=True)
    return 130 if interrupted else 0


def cmd_bench(args: argparse.Namespace) -> int:
    if args.algorithm == COMPILED_ENGINE:
        for name in args.games:
            check_compiled(get_game(name).name)
    _check_algorithm(None, args.algorithm, "bench")
    rows = list(bench(args.games or None, algorithm=args.algorithm))
    nodes = sum(row.nodes for row in rows)
    seconds = sum(row.time_s for row in rows)
    lines = [f"{'game':<10} {'moves':<16} {'depth':>5} {'value':>8} {'nodes':>10} {'time s':>8}"]
    for row in rows:
        lines.append(
            f"{row.game:<10} {row.moves or '(start)':<16} {row.depth:>5} {row.value:>8} "
            f"{row.nodes:>10,} {row.time_s:>8.3f}"
        )
    lines.append(
        f"signature {nodes} nodes ({args.algorithm}); {seconds:.3f} s, "
        f"{nodes / seconds if seconds else 0:,.0f} nodes/s"
    )
    data = {
        "algorithm": args.algorithm,
        "signature": nodes,
        "time_s": round(seconds, 6),
        "nps": round(nodes / seconds) if seconds else 0,
        "rows": [row.__dict__ for row in rows],
    }
    _emit(args, data, "\n".join(lines))
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    from zerosum.web import serve

    serve(args.host, args.port)
    return 0


# -- play -----------------------------------------------------------------------------------


class _Computer:
    """The computer's side of ``play``: the compiled engine when the game has one, else the
    pure-Python engine. ``depth`` 0 plays perfectly, choosing among all best moves with
    ``rng``."""

    def __init__(
        self,
        spec: GameSpec,
        depth: int,
        rng: random.Random,
        store: Store | None,
        pool: SearchPool | None = None,
        workers: int = 1,
    ) -> None:
        self.depth = depth
        self.rng = rng
        self.pool = pool
        self.solver = None
        if has_kernel(spec.name):
            self.solver = _solver(spec.name, store=store, workers=workers)
        self.tactical = spec.analyzer == TACTICAL_ENGINE

    def best(self, game: Game[Any], *, depth: int) -> tuple[list[Any], str]:
        """The best moves found at ``depth`` (0: all proven best moves) and their value; every
        best move when the game's probe (an endgame database) decides the position."""
        probed = probe_root(game)
        if probed is not None:
            value, scored = probed
            return [move for move, v in scored if v == value], describe(value, solved=True)
        if self.solver is not None and depth == 0:
            exact = self.solver.solve(game)
            text = _exact_text(exact, weak=False)
            return self.solver.best_moves(game, exact.rank), text
        if self.solver is not None:
            result = self.solver.search(game, limit=Limit(depth=depth))
        elif self.tactical:
            result = _tactical(game, Limit(depth=depth), pool=self.pool)
        elif depth == 0:
            result = solve(game, seed=self.rng.randrange(1 << 30), pool=self.pool)
        else:
            result = search(
                game,
                limit=Limit(depth=depth),
                all_best=True,
                seed=self.rng.randrange(1 << 30),
                pool=self.pool,
            )
        return list(result.best_moves), describe(result.value, solved=result.solved)

    def move(self, game: Game[Any]) -> Any:
        moves, _ = self.best(game, depth=self.depth)
        return self.rng.choice(moves)


def _side(spec: GameSpec, text: str) -> int:
    """The side index named ``text``: ``first``/``second`` or the game's own side names."""
    names = [("first", spec.sides[0].lower()), ("second", spec.sides[1].lower())]
    for index, aliases in enumerate(names):
        if text.lower() in aliases:
            return index
    expected = ", ".join(n for pair in names for n in pair)
    raise UsageError(f"unknown side {text!r} for {spec.name}: expected one of {expected}")


def cmd_play(args: argparse.Namespace) -> int:
    spec, game = _load(args)
    levels = spec.levels
    level = args.level if args.level is not None else spec.default_level or len(levels)
    if not 1 <= level <= len(levels):
        raise UsageError(
            f"level {level} is out of range for {spec.name}: expected 1..{len(levels)}"
        )
    human = _side(spec, args.side)
    depth = levels[level - 1]
    if args.store and not has_kernel(spec.name):
        raise UsageError(f"--store needs a game with the compiled engine: {spec.name} has none")
    store = Store(args.store) if args.store else None
    computer: _Computer | None = None
    try:
        with _pool(1 if has_kernel(spec.name) else args.workers) as pool:
            rng = random.Random(args.seed)
            computer = _Computer(spec, depth, rng, store, pool, args.workers)
            return _play(spec, game, human, level, computer)
    finally:
        if computer is not None and computer.solver is not None:
            computer.solver.close()
        if store is not None:
            store.close()


def _play(spec: GameSpec, game: Game[Any], human: int, level: int, computer: _Computer) -> int:
    levels = spec.levels
    depth = levels[level - 1]
    strength = "perfect" if depth == 0 else f"search depth {depth}"
    print(
        f"{spec.title}: you play {spec.sides[human]}, "
        f"the computer plays at level {level} of {len(levels)} ({strength})."
    )
    print("Type a move, 'undo', 'hint' or 'quit'.")
    human_turns: list[int] = []
    """The ply before each of the human's moves, for undo."""
    shown = -1
    """The ply of the position last drawn: the board is drawn again only after a change."""
    while True:
        if shown != game.ply():
            print()
            print(game.render())
            shown = game.ply()
        outcome = game.outcome()
        if outcome is not None:
            mover = game.side_to_move()
            winner = mover if outcome > 0 else mover ^ 1
            if outcome == 0:
                print("Game over: a draw.")
            elif winner == human:
                print("Game over: you win.")
            else:
                print("Game over: the computer wins.")
            return 0
        if game.side_to_move() != human:
            move = computer.move(game)
            print(f"computer plays {game.format_move(move)}")
            game.make(move)
            continue
        try:
            text = input(f"your move ({spec.sides[human]}): ").strip()
        except EOFError:
            print("\nInput ended: game abandoned.")
            return 0
        if text.lower() in ("quit", "exit", "q"):
            print("Game abandoned.")
            return 0
        if text.lower() == "undo":
            if not human_turns:
                print("Nothing to undo.")
                continue
            target = human_turns.pop()
            while game.ply() > target:
                game.undo()
            shown = -1
            continue
        if text.lower() == "hint":
            moves, value = computer.best(game, depth=depth)
            print(f"hint: {' '.join(_names(game, moves))} ({value})")
            continue
        if not text:
            continue
        try:
            move = game.parse_move(text)
        except ZerosumError as error:
            print(error)
            continue
        human_turns.append(game.ply())
        game.make(move)


# -- match ----------------------------------------------------------------------------------


@contextlib.contextmanager
def _terminate_as_interrupt() -> Iterator[None]:
    """Turn SIGTERM into KeyboardInterrupt, so a terminated match stops its workers too."""

    def on_terminate(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    try:
        previous = signal.signal(signal.SIGTERM, on_terminate)
    except ValueError:  # not the main thread
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


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
    from zerosum.match.cluster import ActorExecutor
    from zerosum.match.runner import close_players, kill_players

    return ActorExecutor(
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
    return (
        f"{args.game}: A = {names[0]}, B = {names[1]}; {args.games} games, "
        f"{control.describe()}, {where}"
    )


def cmd_match(args: argparse.Namespace) -> int:
    from zerosum.match import Match, MatchResult, TimeControl, openings_for, parse_player
    from zerosum.match.runner import GameRecord

    if args.pgn and args.game != "chess":
        raise UsageError(f"--pgn is for chess: {args.game} games are printed as move lists")
    if args.pgn:
        _check_writable(args.pgn)  # before the first game, not after the last
    if args.time_per_move is not None and args.clock is not None:
        raise UsageError("give --time-per-move or --clock, not both")
    control = TimeControl(move_time=args.time_per_move)
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
    )
    with _terminate_as_interrupt():  # a SIGTERM while engines start closes them too
        names = match.names()
    if not args.json and args.cluster is None:
        print(_match_header(args, names, control, None), flush=True)
    records: list[GameRecord] = []

    def show(record: GameRecord) -> None:
        records.append(record)
        if args.json:
            return
        first, second = ("A", "B") if record.a_first else ("B", "A")
        line = (
            f"game {record.index + 1:>3}  {first}-{second}  {record.result:<7}  "
            f"{record.ending.reason}  ({record.opening.name}; {len(record.moves)} plies)"
        )
        if record.pgn is None:
            line += "  " + " ".join(record.moves)
        print(line, flush=True)

    interrupted = False
    failure: ZerosumError | None = None
    with _terminate_as_interrupt():
        runner = None if args.cluster is None else _match_cluster(args)  # Ray starts here
        try:
            if runner is not None and not args.json:
                print(_match_header(args, names, control, runner), flush=True)
            match.play(workers=args.workers, executor=runner, on_game=show, names=names)
        except KeyboardInterrupt:
            interrupted = True
        except ZerosumError as error:  # reported after the games finished so far
            failure = error
        finally:
            if runner is not None:
                runner.close()
    records.sort(key=lambda record: record.index)
    result = MatchResult(args.game, names, control, tuple(records))
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
    if args.cluster is not None:
        data["cluster"] = args.cluster
    lines = []
    if args.game == "chess" and not written and records:
        lines += ["", result.pgn().rstrip()]
    if interrupted or failure:
        lines.append(f"stopped after {len(records)} of {args.games} games")
    lines += [
        f"A: +{elo.wins} ={elo.draws} -{elo.losses}  score {elo.points:g}/{elo.games}"
        f" ({100 * elo.score:.1f}%)",
        f"Elo A - B: {elo.describe()}  LOS {100 * elo.los:.1f}%",
    ]
    if written:
        lines.append(f"PGN of {len(records)} games written to {args.pgn}")
    _emit(args, data, "\n".join(lines))
    if failure is not None:
        raise failure
    if write_error is not None:
        raise write_error
    return 130 if interrupted else 0


def cmd_uci(args: argparse.Namespace) -> int:
    from zerosum.uci import main as uci_main  # the chess engine: only when asked for

    return uci_main()


# -- the parser -----------------------------------------------------------------------------


def _workers_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--workers",
        type=_workers,
        default=1,
        metavar="N",
        help="parallel searches: processes, threads in the compiled engine (default 1; 0 or "
        "auto: one per core)",
    )


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="zerosum",
        description="Play and solve two-player zero-sum games with game-tree search.",
    )
    parser.add_argument("--version", action="version", version=f"zerosum {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    games = commands.add_parser("games", help="list the registered games")
    games.add_argument("--json", action="store_true", help="print one JSON object")
    games.set_defaults(run=cmd_games)

    algos = commands.add_parser("algorithms", help="list the search algorithms")
    algos.add_argument("--json", action="store_true", help="print one JSON object")
    algos.set_defaults(run=cmd_algorithms)

    legal = commands.add_parser("legal", help="print the legal moves of a position")
    _position_options(legal)
    legal.set_defaults(run=cmd_legal)

    analyze = commands.add_parser("analyze", help="search a position under a limit")
    _position_options(analyze)
    analyze.add_argument("--depth", type=_positive_int, help="deepest iteration in plies")
    analyze.add_argument("--time", type=_seconds, help="seconds to think (default 10)")
    analyze.add_argument("--nodes", type=_positive_int, help="node budget")
    analyze.add_argument(
        "--algorithm", help="see 'zerosum algorithms' (default: engine; tactical for chess)"
    )
    analyze.add_argument("--no-table", action="store_true", help="no memo or table")
    analyze.add_argument("--all-best", action="store_true", help="find every best move")
    analyze.add_argument("--seed", type=_int, help="pick the best move at random with this seed")
    analyze.add_argument(
        "--hash",
        type=_megabytes,
        help=f"the compiled engine's table in MB (default {DEFAULT_HASH_MB})",
    )
    _workers_option(analyze)
    analyze.set_defaults(run=cmd_analyze)

    solver = commands.add_parser("solve", help="the exact value and every move's value")
    _position_options(solver)
    solver.add_argument(
        "--algorithm", help="see 'zerosum algorithms' (default: the game's own choice)"
    )
    solver.add_argument("--no-table", action="store_true", help="no memo or table")
    solver.add_argument("--time", type=_seconds, help="give up after this many seconds")
    solver.add_argument("--all", action="store_true", help="every move's score")
    solver.add_argument("--weak", action="store_true", help="only win, draw or loss (faster)")
    solver.add_argument(
        "--hash", type=_megabytes, help=f"table size in MB (default {DEFAULT_HASH_MB})"
    )
    solver.add_argument("--store", metavar="PATH", help="keep proven results in this SQLite file")
    _workers_option(solver)
    solver.add_argument(
        "--cluster",
        metavar="ADDRESS",
        help="solve in work units on Ray: 'auto' starts a local Ray, else a cluster's address",
    )
    solver.add_argument(
        "--split", type=_positive_int, default=2, help="plies below the root of the work units"
    )
    solver.add_argument(
        "--positions",
        metavar="FILE",
        help="solve every position of a test-set file (lines 'POSITION [SCORE]') and check them",
    )
    solver.set_defaults(run=cmd_solve)

    book = commands.add_parser(
        "book", help="solve every position up to some plies into a store (resumable)"
    )
    _position_options(book)
    book.add_argument("--plies", type=_int, required=True, help="how many plies deep")
    book.add_argument("--store", metavar="PATH", required=True, help="the SQLite store")
    book.add_argument("--weak", action="store_true", help="only win, draw or loss")
    book.add_argument("--hash", type=_megabytes, default=DEFAULT_HASH_MB, help="table size in MB")
    book.add_argument("--time", type=_seconds, help="stop after this many seconds")
    book.set_defaults(run=cmd_book)

    endgames = commands.add_parser(
        "build-endgames", help="build the morris endgame databases (resumable)"
    )
    endgames.add_argument("game", help="morris")
    endgames.add_argument(
        "--max-men",
        type=_int,
        default=MAX_MEN,
        help=f"men a side, 3..{MAX_MEN} (default {MAX_MEN})",
    )
    endgames.add_argument(
        "--store", metavar="PATH", help="the SQLite file (default: $ZEROSUM_ENDGAMES or the cache)"
    )
    endgames.add_argument("--json", action="store_true", help="print one JSON object")
    endgames.set_defaults(run=cmd_build_endgames)

    compare = commands.add_parser("compare", help="compare the algorithms on one position")
    _position_options(compare)
    compare.add_argument("--depth", type=_positive_int, required=True, help="search depth")
    compare.set_defaults(run=cmd_compare)

    bench_parser = commands.add_parser("bench", help="print the node-count signature")
    bench_parser.add_argument("games", nargs="*", help="games to bench (default: all)")
    bench_parser.add_argument("--algorithm", default="engine", help="see 'zerosum algorithms'")
    bench_parser.add_argument("--json", action="store_true", help="print one JSON object")
    bench_parser.set_defaults(run=cmd_bench)

    play = commands.add_parser("play", help="play against the computer in the terminal")
    play.add_argument("game", help="game name (see 'zerosum games')")
    play.add_argument("--side", default="first", help="first, second or the game's side name")
    play.add_argument("--level", type=_positive_int, help="strength, 1 = weakest (default: top)")
    play.add_argument("--seed", type=_int, help="seed for the computer's choices")
    play.add_argument("--moves", nargs="+", default=[], metavar="M", help="start after these")
    play.add_argument("--position", metavar="P", help="start from this position")
    play.add_argument(
        "--store", metavar="PATH", help="SQLite store of proven results (an opening book)"
    )
    _workers_option(play)
    play.set_defaults(run=cmd_play)

    serve = commands.add_parser("serve", help="the web app: play and watch the search think")
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on")
    serve.add_argument("--port", type=_port, default=8000, help="port (0: any free port)")
    serve.set_defaults(run=cmd_serve)
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
    match.add_argument("--games", type=_positive_int, default=10, help="games (default 10)")
    match.add_argument(
        "--workers", type=_workers, default=1, help="processes playing games (0 or auto: cores)"
    )
    match.add_argument(
        "--cluster",
        metavar="ADDRESS",
        help="play on Ray: 'auto' starts a local Ray, else a cluster's address;"
        " --workers N then sets the actors (default: one per CPU)",
    )
    match.add_argument("--time-per-move", type=_seconds, metavar="S", help="seconds per move")
    match.add_argument("--clock", metavar="BASE+INC", help="a clock per side, e.g. 60+0.6")
    match.add_argument("--seed", type=_int, default=0, help="seed of the players' choices")
    match.add_argument(
        "--no-book", dest="book", action="store_false", help="start every game from the start"
    )
    match.add_argument(
        "--max-plies", type=_positive_int, default=1000, help="adjudicate a draw after this"
    )
    match.add_argument("--pgn", metavar="FILE", help="write the chess games to this PGN file")
    match.add_argument("--json", action="store_true", help="print one JSON object")
    match.set_defaults(run=cmd_match)

    uci = commands.add_parser("uci", help="the chess engine over UCI (for GUIs and python-chess)")
    uci.set_defaults(run=cmd_uci)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
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
    except KeyboardInterrupt:
        print("zerosum: interrupted", file=sys.stderr)
        return 130
    return status


if __name__ == "__main__":
    sys.exit(main())

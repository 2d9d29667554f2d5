"""Tic-tac-toe: zerosum's node-count signature, full-solve timings, and the peers' ratios.

What it measures, in one run:

1. The node-count signature of ``zerosum bench tictactoe`` (:func:`zerosum.bench.bench`): the
   fingerprint every search change quotes.
2. A full solve from the empty board by every algorithm of the registry
   (:data:`zerosum.search.ALGORITHMS`), with and without memoization (a memo for the reference
   forms, a transposition table for the alpha-beta forms), proving one best move and all best
   moves (:func:`zerosum.search.search` without a limit). Value, nodes, the best wall-clock time
   of ``--repeat`` runs (a fresh game and a fresh table in every run) and nodes per second. A
   configuration whose first run takes more than a second runs once.
3. easyAI's solve of its tic-tac-toe example game (with a ``ttentry`` so that its dictionary
   transposition table applies): ``Negamax(9)`` with ``TranspositionTable()``, and
   ``solve_with_iterative_deepening`` over depths 1..9 with the same kind of table.
4. OpenSpiel's Python ``alpha_beta_search`` on ``pyspiel.load_game("tic_tac_toe")``.
5. The ratio peer time / our time for zerosum's fastest full solve with a table (one best move,
   and all best moves), and whether the target "our full solve with a table is at least 10x
   faster than each peer" is met.

Peers' node counts come from a separate, untimed run with a counting wrapper (the timed runs are
unwrapped), so counting costs them nothing: for easyAI, the calls of the transposition table's
``lookup``, which its negamax makes exactly once per visited node; for OpenSpiel, the calls of
``is_terminal`` on a proxy state, which its alpha-beta makes exactly once per visited node. Both
include the root, as zerosum's ``Stats.nodes`` does.

The compiled engine (``zerosum.compiled``, numba) is timed beside the pure-Python algorithms.

Run from the repository root::

    .venv/bin/pip install -e '.[bench]'     # the peers: easyai, open-spiel
    .venv/bin/python benchmarks/tictactoe.py [--repeat N]
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import metadata
from typing import Any, Final

from zerosum.bench import bench
from zerosum.games.tictactoe import TicTacToe
from zerosum.search import ALGORITHMS, Mode, search

SLOW_S: Final = 1.0
"""A configuration whose first run takes longer than this many seconds is not repeated."""
TARGET_RATIO: Final = 10.0
"""The goal: our full solve with a table is at least this many times faster than each peer."""
INSTALL_HINT: Final = "pip install -e '.[bench]'"


@dataclass(frozen=True)
class Solved:
    """What one full solve returned."""

    value: float
    """The value of the empty board for X, the side to move (0 is a draw)."""
    nodes: int | None
    """Positions visited, the root included; ``None`` when the solver does not say."""


@dataclass(frozen=True)
class Solver:
    """One timed configuration: a label and a callable that solves from scratch."""

    label: str
    run: Callable[[], Solved]
    """Solves the empty board with a fresh game and a fresh table."""
    table: bool = False
    """Whether it memoizes (a table or a memo); only these enter the ratio table."""
    mode: Mode = Mode.ONE
    """Which best moves it proves (peers prove one)."""
    count_nodes: Callable[[], int] | None = None
    """An untimed run that counts nodes, for solvers whose timed run cannot."""


@dataclass(frozen=True)
class Timing:
    """A solver's figures over its repeated runs."""

    solver: Solver
    solved: Solved
    best_s: float
    runs: int


# -- zerosum ------------------------------------------------------------------------------


def _zerosum_run(algorithm: str, *, table: bool, mode: Mode) -> Callable[[], Solved]:
    def run() -> Solved:
        result = search(TicTacToe(), algorithm=algorithm, table=table, all_best=mode is Mode.ALL)
        if not result.solved:
            raise RuntimeError(f"{algorithm}: the search without a limit did not solve the game")
        return Solved(result.value, result.stats.nodes)

    return run


def zerosum_solvers() -> list[Solver]:
    """Every registered algorithm, with and without its table, in both root modes."""
    return [
        Solver(
            f"{name} {'table' if table else 'no table'} {mode.value}",
            _zerosum_run(name, table=table, mode=mode),
            table=table,
            mode=mode,
        )
        for name in ALGORITHMS
        for table in (True, False)
        for mode in (Mode.ONE, Mode.ALL)
    ]


def compiled_solvers() -> tuple[list[Solver], str]:
    """The compiled engine's solves with a fresh 1 MB table per run: the exact value (one best
    move's worth of proof), and every first move's exact value (which names all best moves).
    Each entry runs once untimed first, which loads or compiles the numba code."""
    from zerosum.compiled.solver import Solver as CompiledSolver

    def one() -> Solved:
        exact = CompiledSolver("tictactoe", hash_mb=1).solve(TicTacToe())
        return Solved(exact.value, exact.stats.nodes)

    def every() -> Solved:
        solver = CompiledSolver("tictactoe", hash_mb=1)
        game = TicTacToe()
        results = solver.move_results(game)
        value = max(exact.value for _, exact in results)
        return Solved(value, sum(exact.stats.nodes for _, exact in results))

    solvers = [
        Solver("compiled table one", one, table=True, mode=Mode.ONE),
        Solver("compiled table all", every, table=True, mode=Mode.ALL),
    ]
    for solver in solvers:
        solver.run()
    return solvers, "compiled engine: zerosum.compiled.solver.Solver (compiled before timing)"


# -- easyAI -------------------------------------------------------------------------------


def easyai_solvers() -> list[Solver]:
    """easyAI's negamax with its dictionary table, once at depth 9 and iteratively deepened.

    Raises ImportError when easyAI is not installed.
    """
    from easyAI import (  # type: ignore[import-untyped,unused-ignore]
        AI_Player,
        Negamax,
        TranspositionTable,
        solve_with_iterative_deepening,
    )
    from easyAI.games import TicTacToe as ExampleTicTacToe  # type: ignore[import-untyped,unused-ignore]

    class TableTicTacToe(ExampleTicTacToe):  # type: ignore[misc]
        """easyAI's example game with the key its transposition table needs."""

        def ttentry(self) -> tuple[int, ...]:
            return tuple(self.board)  # the board decides the side to move

    class CountingTable(TranspositionTable):  # type: ignore[misc]
        """Counts lookups: easyAI's negamax looks every visited node up exactly once."""

        def __init__(self) -> None:
            super().__init__()
            self.lookups = 0

        def lookup(self, game: Any) -> Any:
            self.lookups += 1
            return super().lookup(game)

    def new_game() -> Any:
        return TableTicTacToe([AI_Player(None), AI_Player(None)])

    def negamax9(table: Any) -> float:
        ai = Negamax(9, tt=table)
        ai(new_game())
        return float(ai.alpha)

    def deepening(table: Any) -> float:
        result, _depth, _move = solve_with_iterative_deepening(
            new_game(), range(1, 10), win_score=100, tt=table, verbose=False
        )
        return float(result)

    def timed(solve: Callable[[Any], float]) -> Callable[[], Solved]:
        return lambda: Solved(solve(TranspositionTable()), None)

    def counted(solve: Callable[[Any], float]) -> Callable[[], int]:
        def count() -> int:
            table = CountingTable()
            solve(table)
            return table.lookups

        return count

    return [
        Solver(
            "easyAI Negamax(9) + TranspositionTable",
            timed(negamax9),
            table=True,
            count_nodes=counted(negamax9),
        ),
        Solver(
            "easyAI solve_with_iterative_deepening(1..9) + table",
            timed(deepening),
            table=True,
            count_nodes=counted(deepening),
        ),
    ]


# -- OpenSpiel ----------------------------------------------------------------------------


class _CountingState:
    """A proxy for a pyspiel state that counts ``is_terminal`` calls (one per visited node)."""

    def __init__(self, state: Any, counter: list[int]) -> None:
        self._state = state
        self._counter = counter

    def is_terminal(self) -> bool:
        self._counter[0] += 1
        return bool(self._state.is_terminal())

    def player_return(self, player: int) -> float:
        return float(self._state.player_return(player))

    def current_player(self) -> int:
        return int(self._state.current_player())

    def legal_actions(self) -> list[int]:
        return list(self._state.legal_actions())

    def apply_action(self, action: int) -> None:
        self._state.apply_action(action)

    def clone(self) -> _CountingState:
        return _CountingState(self._state.clone(), self._counter)


def openspiel_solvers() -> list[Solver]:
    """OpenSpiel's Python alpha-beta (no table). Raises ImportError when it is not installed."""
    import pyspiel  # type: ignore[import-not-found,unused-ignore]
    from open_spiel.python.algorithms import minimax  # type: ignore[import-untyped,unused-ignore]

    game = pyspiel.load_game("tic_tac_toe")

    def run() -> Solved:
        value, _action = minimax.alpha_beta_search(game)
        return Solved(float(value), None)

    def count() -> int:
        counter = [0]
        minimax.alpha_beta_search(game, state=_CountingState(game.new_initial_state(), counter))
        return counter[0]

    return [Solver("OpenSpiel alpha_beta_search (Python)", run, count_nodes=count)]


# -- measuring and printing -----------------------------------------------------------------


def measure(solver: Solver, repeat: int) -> Timing:
    """The best of ``repeat`` runs (one run only when the first is slower than ``SLOW_S``)."""
    best = float("inf")
    solved: Solved | None = None
    runs = 0
    for _ in range(repeat):
        start = time.perf_counter()
        solved = solver.run()
        elapsed = time.perf_counter() - start
        best = min(best, elapsed)
        runs += 1
        if elapsed > SLOW_S:
            break
    assert solved is not None  # repeat >= 1
    if solved.nodes is None and solver.count_nodes is not None:
        solved = Solved(solved.value, solver.count_nodes())
    return Timing(solver, solved, best, runs)


def verdict(value: float) -> str:
    if value > 0:
        return "X wins"
    if value < 0:
        return "O wins"
    return "draw"


def print_timings(timings: Sequence[Timing], width: int) -> None:
    print(
        f"{'solver':<{width}} {'value':>7} {'result':>7} {'nodes':>9} {'best ms':>9} "
        f"{'nodes/s':>10} {'runs':>4}"
    )
    for timing in timings:
        solved = timing.solved
        value = solved.value + 0.0  # no "-0"
        nodes = "?" if solved.nodes is None else f"{solved.nodes:,}"
        nps = "?" if solved.nodes is None else f"{solved.nodes / timing.best_s:,.0f}"
        print(
            f"{timing.solver.label:<{width}} {value:>7g} {verdict(value):>7} {nodes:>9} "
            f"{timing.best_s * 1e3:>9.2f} {nps:>10} {timing.runs:>4}"
        )


def print_signature() -> None:
    rows = list(bench(["tictactoe"]))
    nodes = sum(row.nodes for row in rows)
    seconds = sum(row.time_s for row in rows)
    algorithm = rows[0].algorithm if rows else "engine"
    print(f"1. Node-count signature (zerosum bench tictactoe --algorithm {algorithm})")
    print(f"{'moves':<16} {'depth':>5} {'value':>8} {'nodes':>8} {'time s':>8}")
    for row in rows:
        print(
            f"{row.moves or '(start)':<16} {row.depth:>5} {row.value:>8} {row.nodes:>8,} "
            f"{row.time_s:>8.3f}"
        )
    nps = nodes / seconds if seconds else 0.0
    print(f"signature {nodes} nodes ({algorithm}); {seconds:.3f} s, {nps:,.0f} nodes/s")


def print_ratios(ours: Sequence[Timing], peers: Sequence[Timing], missing: Sequence[str]) -> None:
    print("5. Ratio peer time / our time (zerosum's fastest full solve with a table)")
    fastest: dict[Mode, Timing] = {}
    for timing in ours:
        mode = timing.solver.mode
        if timing.solver.table and (mode not in fastest or timing.best_s < fastest[mode].best_s):
            fastest[mode] = timing
    modes = [mode for mode in (Mode.ONE, Mode.ALL) if mode in fastest]
    for mode in modes:
        timing = fastest[mode]
        print(f"ours, {mode.value} best: {timing.solver.label} {timing.best_s * 1e3:.2f} ms")
    if not peers:
        print(f"no peer measured: install them with {INSTALL_HINT}")
        return
    width = max(len(timing.solver.label) for timing in peers)
    header = "".join(f" {'vs ' + mode.value + ' best':>12}" for mode in modes)
    print(f"{'peer':<{width}} {'peer ms':>9}{header}")
    for peer in peers:
        ratios = "".join(f" {peer.best_s / fastest[mode].best_s:>11.1f}x" for mode in modes)
        print(f"{peer.solver.label:<{width}} {peer.best_s * 1e3:>9.2f}{ratios}")
    worst = min(peers, key=lambda peer: peer.best_s)  # the fastest peer sets the lowest ratio
    for mode in modes:
        ratio = worst.best_s / fastest[mode].best_s
        status = "MET" if ratio >= TARGET_RATIO else "NOT MET"
        print(
            f"target (our full solve with a table >= {TARGET_RATIO:g}x faster than each peer), "
            f"{mode.value} best move{'s' if mode is Mode.ALL else ''}: {status} "
            f"(lowest ratio {ratio:.1f}x, against {worst.solver.label})"
        )
    if missing:
        print(f"the target is judged without {', '.join(missing)} (not installed: {INSTALL_HINT})")


def _version(distribution: str) -> str:
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return "not installed"


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0] if __doc__ else None)
    parser.add_argument(
        "--repeat", type=int, default=5, metavar="N", help="runs per solver; the best counts"
    )
    args = parser.parse_args(argv)
    if args.repeat < 1:
        parser.error(f"--repeat {args.repeat} is out of range: expected 1 or more")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    repeat: int = args.repeat
    print(f"$ python benchmarks/tictactoe.py --repeat {repeat}")
    print(
        f"python {platform.python_version()} on {platform.machine()} {platform.system()}; "
        f"zerosum {_version('zerosum')}, easyai {_version('easyai')}, "
        f"open-spiel {_version('open_spiel')}"
    )
    print()
    TicTacToe().evaluate()  # fill the lazily built evaluation table before any clock starts
    print_signature()
    print()

    print(
        f"2. Full solve of the empty board, zerosum (best of {repeat}; fresh game and table "
        f"per run; one run when the first takes > {SLOW_S:g} s)"
    )
    compiled, compiled_note = compiled_solvers()
    ours = [measure(solver, repeat) for solver in [*zerosum_solvers(), *compiled]]
    print_timings(ours, max(len(timing.solver.label) for timing in ours))
    print(compiled_note)
    print()

    print(f"3-4. The same solve by the peers (best of {repeat}; nodes counted in an extra run)")
    peers: list[Timing] = []
    missing: list[str] = []
    for name, make in (("easyAI", easyai_solvers), ("OpenSpiel", openspiel_solvers)):
        try:
            solvers = make()
        except ImportError as error:
            print(f"{name} is not installed ({error}): install the peers with {INSTALL_HINT}")
            missing.append(name)
            continue
        peers.extend(measure(solver, repeat) for solver in solvers)
    if peers:
        print_timings(peers, max(len(timing.solver.label) for timing in peers))
        print(
            "nodes: easyAI = calls of TranspositionTable.lookup (once per visited node); "
            "OpenSpiel = calls of state.is_terminal (once per visited node); root included"
        )
        print(
            "values: zerosum = score for X (0 draw); easyAI Negamax = its alpha, "
            "iterative deepening = +1/0/-1; OpenSpiel = return of player 0"
        )
    print()

    print_ratios(ours, peers, missing)
    return 0


if __name__ == "__main__":
    sys.exit(main())

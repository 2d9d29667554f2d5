"""Monte Carlo tree search: the compiled engine's speed against OpenSpiel's MCTS, its strength
at equal time per move, its memory over a game, and its strength against zerosum's alpha-beta.

What it measures, in one run (each part can be run alone, see ``--help``):

1. ``speed``: simulations per second from the empty connect four board, random playouts, UCT
   with a solver, one thread: zerosum's compiled MCTS (:class:`CompiledMctsEngine`, also with
   two threads, and with decisive playouts, connect four's default), its pure-Python twin
   (:class:`MctsEngine`), OpenSpiel's Python ``MCTSBot`` (``open_spiel.python.algorithms.mcts``,
   ``RandomRolloutEvaluator(1)``) and OpenSpiel's C++ ``pyspiel.MCTSBot``
   (``pyspiel.RandomRolloutEvaluator(1, seed)``). Each runs one search of a fixed simulation
   count, after a warm-up search (numba's cache loaded, OpenSpiel's classes built). Targets:
   at least 10x the Python ``MCTSBot``, at least the C++ one (random playouts).
2. ``openspiel``: games against OpenSpiel's C++ ``MCTSBot`` at equal time per move (its
   ``max_wall_clock_time``, zerosum's ``Limit(time=...)``), colours alternating, in connect four
   and in othello 8x8 (OpenSpiel's only board), zerosum with ``--algorithm mcts`` (compiled
   where the game's kernel offers it) and its defaults unless ``--playout``,
   ``--exploration``, ``--expand-after`` or ``--hash`` say otherwise. Both sides: UCT, a
   solver, 64 MiB; OpenSpiel random playouts and exploration 2 (its examples'), zerosum its
   game's playouts (connect four: decisive) and exploration 1.4.
   Scores: 1 a win, 1/2 a draw, with Wilson's 95% interval. Target: >= 80%.
3. ``memory``: a connect four game of the compiled MCTS against itself at the last of
   ``--times`` a move with its default budget (or ``--hash``): the simulations and the tree's
   nodes after every move, the process's resident memory (RSS) before the engines exist and at
   most during the game.
4. ``alphabeta``: ``zerosum match connect4`` between MCTS at 0.5 s a move and zerosum's
   alpha-beta at levels 1-4 (depths 2, 4, 8, 14), through the match module.
5. ``morris``: simulations per second of the compiled MCTS (one thread, then two) and of its
   pure-Python twin on nine men's morris, from the empty board and from a moving-phase
   position (random playouts to the end of the game or 1,000 plies).

Run from the repository root (OpenSpiel is not a dependency of zerosum; install it beside)::

    .venv/bin/pip install open-spiel==2.0.2
    .venv/bin/python benchmarks/mcts.py [speed|openspiel|memory|alphabeta ...] \\
        [--games N] [--first K] [--times 0.5 2] [--simulations N]
"""

from __future__ import annotations

import argparse
import json
import math
import platform
import resource
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from zerosum.engines import MctsEngine, open_engine
from zerosum.engines.mcts_compiled import CompiledMctsEngine, has_compiled_mcts
from zerosum.game import Game
from zerosum.games import get_game
from zerosum.search import Limit

PARTS = ("speed", "openspiel", "memory", "alphabeta", "morris")


def rss_mib() -> float:
    """The process's resident memory now, in MiB (Linux)."""
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def timed(run: Callable[[], Any]) -> tuple[float, float]:
    """The wall time and the process's CPU time (all threads) of ``run()``."""
    started, cpu = time.perf_counter(), time.process_time()
    run()
    return time.perf_counter() - started, time.process_time() - cpu


# -- 1. speed ----------------------------------------------------------------------------------


def speed(simulations: int) -> None:
    import pyspiel
    from open_spiel.python.algorithms import mcts as spiel_mcts

    print(f"== speed: simulations/s from the empty connect four board ({simulations:,} each)")
    print("(per CPU second: what a search gets of the CPU on a loaded machine; wall: elapsed)")
    rows: list[tuple[str, int, tuple[float, float]]] = []

    def zerosum(workers: int, compiled: bool, count: int, playout: str = "random") -> None:
        game = get_game("connect4").new()
        if compiled:
            engine: MctsEngine = CompiledMctsEngine(
                "connect4", workers=workers, seed=1, playout=playout
            )
        else:
            engine = MctsEngine(seed=1, playout=playout)
        engine.search(game, Limit(nodes=200))  # warm-up
        engine.reset()
        seconds = timed(lambda: engine.search(game, Limit(nodes=count)))
        name = f"zerosum compiled MCTS, {workers} thread{'s' if workers > 1 else ''}"
        if playout != "random":
            name += f", {playout}"
        rows.append((name if compiled else "zerosum Python MCTS (the twin)", count, seconds))

    zerosum(1, True, simulations)
    zerosum(2, True, simulations)
    zerosum(1, True, simulations, "decisive")
    python_count = max(simulations // 100, 500)
    zerosum(1, False, python_count)

    game = pyspiel.load_game("connect_four")
    evaluator = spiel_mcts.RandomRolloutEvaluator(1, np.random.RandomState(1))
    bot = spiel_mcts.MCTSBot(
        game, 2, python_count, evaluator, solve=True, random_state=np.random.RandomState(1)
    )
    bot.mcts_search(game.new_initial_state())  # warm-up
    seconds = timed(lambda: bot.mcts_search(game.new_initial_state()))
    rows.append(("OpenSpiel Python MCTSBot", python_count, seconds))

    def cpp_bot(count: int) -> Any:
        evaluator = pyspiel.RandomRolloutEvaluator(1, 1)
        return pyspiel.MCTSBot(game, evaluator, 2.0, count, 1000, True, 1, False)

    cpp_bot(1000).step(game.new_initial_state())  # warm-up
    cpp = cpp_bot(simulations)
    seconds = timed(lambda: cpp.step(game.new_initial_state()))
    rows.append(("OpenSpiel C++ MCTSBot (pyspiel)", simulations, seconds))

    rates = {name: count / seconds[1] for name, count, seconds in rows}
    for name, count, (wall, cpu) in rows:
        print(
            f"{name:43} {count:>9,} sims {wall:7.2f} s wall {cpu:7.2f} s CPU "
            f"{count / wall:>10,.0f} sims/s wall {count / cpu:>10,.0f} sims/CPU s"
        )
    compiled_rate = rates["zerosum compiled MCTS, 1 thread"]
    python_rate = rates["OpenSpiel Python MCTSBot"]
    cpp_rate = rates["OpenSpiel C++ MCTSBot (pyspiel)"]
    print("compiled (1 thread), per CPU second, against OpenSpiel's")
    print(f"  Python MCTSBot: {compiled_rate / python_rate:.1f}x")
    print(f"  C++ MCTSBot:    {compiled_rate / cpp_rate:.2f}x")


# -- 2. against OpenSpiel's C++ MCTS ---------------------------------------------------------------


def to_spiel(game_name: str, text: str) -> str:
    """A zerosum move text as OpenSpiel's action string (othello: OpenSpiel counts ranks from
    the top, zerosum from the bottom; the start positions agree under that reflection)."""
    if game_name == "connect4":
        return str(int(text) - 1)
    if text == "pass":
        return text
    return f"{text[0]}{9 - int(text[1:])}"


def spiel_action(state: Any, game_name: str, text: str) -> int:
    wanted = to_spiel(game_name, text)
    for action in state.legal_actions():
        name = str(action) if game_name == "connect4" else state.action_to_string(action)
        if name == wanted:
            return int(action)
    raise AssertionError(f"{text} ({wanted}) is not legal in OpenSpiel's position")


def from_spiel(state: Any, game_name: str, action: int) -> str:
    if game_name == "connect4":
        return str(action + 1)
    name = state.action_to_string(action)
    return name if name == "pass" else f"{name[0]}{9 - int(name[1:])}"


def play_openspiel(
    game_name: str, seconds: float, index: int, zerosum_first: bool, options: dict[str, Any]
) -> float:
    """One game; zerosum's score (1, 1/2 or 0). ``options``: the MCTS engine's, beside its
    defaults."""
    import pyspiel

    spiel_game = pyspiel.load_game("connect_four" if game_name == "connect4" else "othello")
    state = spiel_game.new_initial_state()
    game: Game[Any] = get_game(game_name).new()
    bot = pyspiel.MCTSBot(
        spiel_game,
        pyspiel.RandomRolloutEvaluator(1, index),
        2.0,
        10**9,
        64,
        True,
        index,
        False,
        pyspiel.ChildSelectionPolicy.UCT,
        seconds,
    )
    with mcts_engine(game_name, index, options) as engine:
        while game.outcome() is None:
            legal = sorted(from_spiel(state, game_name, a) for a in state.legal_actions())
            assert legal == sorted(game.format_move(m) for m in game.legal_moves())
            zerosum_turn = (game.side_to_move() == 0) == zerosum_first
            if zerosum_turn:
                move = engine.search(game, Limit(time=seconds)).best_move
                text = game.format_move(move)
                state.apply_action(spiel_action(state, game_name, text))
            else:
                action = bot.step(state)
                text = from_spiel(state, game_name, action)
                state.apply_action(action)
                move = game.parse_move(text)
            game.make(move)
    assert state.is_terminal()
    returns = state.returns()
    mine = returns[0 if zerosum_first else 1]
    return 0.5 + mine / 2


def mcts_engine(game_name: str, seed: int, options: dict[str, Any]) -> MctsEngine:
    """zerosum's MCTS for ``game_name`` as ``--algorithm mcts`` opens it, with ``options``."""
    if has_compiled_mcts(game_name):
        return CompiledMctsEngine(game_name, seed=seed, **options)
    engine = open_engine(game_name, "mcts", seed=seed, **options)
    assert isinstance(engine, MctsEngine)
    return engine


def interval(scores: list[float]) -> str:
    """The mean score with Wilson's 95% interval (a draw counts a half; unlike the normal
    approximation, it stays honest when every game is won)."""
    n, z = len(scores), 1.96
    mean = sum(scores) / n
    scale = 1 + z * z / n
    centre = (mean + z * z / (2 * n)) / scale
    half = z * math.sqrt(mean * (1 - mean) / n + z * z / (4 * n * n)) / scale
    return (
        f"{100 * mean:.0f}% [{100 * (centre - half):.0f}, {100 * (centre + half):.0f}] ({n} games)"
    )


def openspiel(
    games: int, times: list[float], names: list[str], first: int, options: dict[str, Any]
) -> None:
    for name in names:
        for seconds in times:
            scores = []
            for index in range(first, first + games):
                zerosum_first = index % 2 == 0
                scores.append(play_openspiel(name, seconds, index, zerosum_first, options))
                print(f"  {name} {seconds} s game {index}: {scores[-1]}", flush=True)
            engine = "compiled" if has_compiled_mcts(name) else "pure-Python"
            print(f"== {name}, {seconds} s a move, zerosum ({engine} MCTS) against OpenSpiel's "
                  f"C++ MCTSBot: {interval(scores)}")  # fmt: skip


# -- 3. memory ----------------------------------------------------------------------------------


def memory(seconds: float, options: dict[str, Any]) -> None:
    """A whole game at ``seconds`` a move: how far the process grows past the engines' arrays.

    The baseline is taken once both engines have searched once (their compiled search loaded
    or compiled, which costs memory of its own); the growth after it is the trees' pages being
    touched, which the arrays bound."""
    before = rss_mib()
    game = get_game("connect4").new()
    players = [CompiledMctsEngine("connect4", seed=s, **options) for s in (1, 2)]
    for player in players:
        player.search(game, Limit(nodes=1))
    loaded = rss_mib()
    allotted = sum(p.memory_bytes for p in players) / (1 << 20)
    sizes, simulations, resident = [], [], []
    while game.outcome() is None:
        engine = players[game.ply() % 2]
        result = engine.search(game, Limit(time=seconds))
        game.make(result.best_move)
        sizes.append(engine.tree_size)
        simulations.append(result.stats.nodes)
        resident.append(rss_mib())
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    capacity = players[0].max_nodes
    print(f"== memory: a connect four game of compiled MCTS against itself, {seconds} s a move, "
          f"{allotted / 2:.0f} MiB each, expand_after {players[0].expand_after}")  # fmt: skip
    print(f"simulations of each search: {simulations}")
    print(f"tree nodes after each move (capacity {capacity:,}): {sizes}")
    full = sum(size >= capacity for size in sizes)
    print(f"the tree was full after {full} of {len(sizes)} searches")
    growth = max(resident) - loaded
    print(f"RSS {before:.0f} MiB before the engines, {loaded:.0f} MiB once loaded, at most "
          f"{max(resident):.0f} MiB after a move: the game grew it {growth:.0f} MiB, for "
          f"{allotted:.1f} MiB of arrays ({'within' if growth <= allotted else 'OVER'} the "
          f"budget); lifetime peak {peak:.0f} MiB")  # fmt: skip


# -- 4. against alpha-beta ----------------------------------------------------------------------


def alphabeta(games: int, seconds: float) -> None:
    for level in (1, 2, 3, 4):
        command = [
            sys.executable, "-m", "zerosum", "match", "connect4",
            "--a", f"algorithm=mcts,time={seconds}", "--b", f"level={level}",
            "--games", str(games), "--json",
        ]  # fmt: skip
        out = subprocess.run(command, check=True, capture_output=True, text=True).stdout
        data = json.loads(out)
        scores = [float(record["score_a"]) for record in data["records"]]
        print(f"== connect4: MCTS {seconds} s a move against alpha-beta level {level}: "
              f"{interval(scores)}", flush=True)  # fmt: skip
    print("command: python -m zerosum match connect4 --a algorithm=mcts,time=S --b level=L "
          "--games N --json")  # fmt: skip


# -- 5. morris --------------------------------------------------------------------------------


MORRIS_MOVING = "W.WB.B.WBW..B.BW.WB..WB. w 0 0"
"""A moving-phase position: seven men a side, nothing in hand, White to move."""


def morris(simulations: int) -> None:
    print("== morris: MCTS simulations/s, nine men's morris, random playouts")
    spec = get_game("morris")
    positions = [("empty board", spec.new()), ("moving phase", spec.from_position(MORRIS_MOVING))]
    for label, game in positions:
        assert game.outcome() is None
        for workers in (1, 2, 0):  # 0: the pure-Python twin
            if workers:
                engine: MctsEngine = CompiledMctsEngine("morris", seed=1, workers=workers)
                name, count = f"compiled, {workers} thread{'s' if workers > 1 else ''}", simulations
            else:
                engine, name, count = MctsEngine(seed=1), "pure-Python twin", simulations // 100
            engine.search(game, Limit(nodes=50))  # warm-up
            engine.reset()
            wall, cpu = timed(lambda: engine.search(game, Limit(nodes=count)))  # noqa: B023
            print(f"  {label:13} {name:20} {count:>7,} sims {wall:6.2f} s wall {cpu:6.2f} s CPU "
                  f"{count / wall:>9,.0f} sims/s wall {count / cpu:>9,.0f} sims/CPU s")  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("parts", nargs="*", choices=[*PARTS, []], default=list(PARTS))
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument(
        "--first", type=int, default=0, help="the first game's number (its seeds and colours)"
    )
    parser.add_argument("--times", type=float, nargs="+", default=[0.5, 2.0])
    parser.add_argument("--simulations", type=int, default=200_000)
    parser.add_argument("--openspiel-games", nargs="+", default=["connect4", "othello:8"])
    parser.add_argument("--playout", help="zerosum MCTS's playout (default: the game's)")
    parser.add_argument("--exploration", type=float, help="zerosum MCTS's UCT constant")
    parser.add_argument("--expand-after", type=int, help="zerosum MCTS's expansion threshold")
    parser.add_argument("--hash", type=float, help="zerosum MCTS's tree in MiB (default: 64)")
    args = parser.parse_args(argv)
    given = {
        "playout": args.playout,
        "exploration": args.exploration,
        "expand_after": args.expand_after,
        "hash_mb": args.hash,
    }
    options = {key: value for key, value in given.items() if value is not None}
    command = " ".join(["benchmarks/mcts.py", *sys.argv[1:]])
    when = time.strftime("%Y-%m-%d")
    print(f"{when} {platform.machine()} {platform.system()}, python {platform.python_version()}")
    print(f"command: python {command}")
    if "speed" in args.parts:
        speed(args.simulations)
    if "openspiel" in args.parts:
        openspiel(args.games, args.times, args.openspiel_games, args.first, options)
    if "memory" in args.parts:
        memory(args.times[-1], options)
    if "alphabeta" in args.parts:
        alphabeta(args.games, args.times[0])
    if "morris" in args.parts:
        morris(args.simulations // 10)
    return 0


if __name__ == "__main__":
    sys.exit(main())

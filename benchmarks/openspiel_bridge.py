"""OpenSpiel's games through zerosum's bridge, measured against OpenSpiel on its own games.

What it measures (each part can be run alone, see ``--help``):

1. ``solve``: exact values and time on small boards: zerosum's pure-Python ``solve`` (every root
   move's exact value) and ``search`` to a proof (the value and a best move), through the
   bridge, against OpenSpiel's ``alpha_beta_search`` (``open_spiel.python.algorithms.minimax``:
   no table, no ordering, no deepening). Values are from the first player's side: +1 a win,
   0 a draw, -1 a loss. Games OpenSpiel's search needs minutes for (default nim: about 2
   minutes here) only with ``--long``.
2. ``nodes``: a perft (every line to a fixed depth) three ways: pyspiel's raw
   ``apply_action``/``undo_action``, pyspiel's ``clone`` + ``apply_action``, and the bridge's
   ``legal_moves``/``make``/``undo`` through zerosum's protocol perft; the bridge's own cost a
   node is its time over the raw one's, per node.
3. ``mcts``: zerosum's MCTS (pure Python, through the bridge, seated by
   :class:`zerosum.openspiel.Bot`) against OpenSpiel's C++ ``MCTSBot`` (random rollouts, UCT
   2, solver) at equal time a move (``--their-time``: another time for OpenSpiel's bots), in
   OpenSpiel's own ``evaluate_bots``, colours alternating (game ``i`` seeds both bots with
   ``i``; ``--first``): wins, draws and losses, the score (1 a win, 1/2 a draw) with Wilson's
   95% interval, and first the simulations a CPU second of both MCTS from the start.

4. ``proof``: the pure-Python ``solve`` against a deepening ``search`` to a proof on the same
   positions (OpenSpiel's games through the bridge, zerosum's own tic-tac-toe and connect four):
   nodes and seconds of ``search``, of ``solve`` asked for one best move, all best moves and
   every move's value (``moves=Mode.ONE/ALL/EXACT``; its value is proven first, the nodes
   before the ``/``), and of the solve before it proved the value first (every root move with a
   full window from depth 1: ``iterate(mode=Mode.EXACT)``).

Run from the repository root, nice'd (OpenSpiel: ``pip install 'zerosum[openspiel]'``)::

    nice -n 10 .venv/bin/python benchmarks/openspiel_bridge.py [solve|nodes|mcts ...] \\
        [--games N] [--time S] [--long]
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from importlib.metadata import version
from typing import Any

import numpy as np
import pyspiel
from open_spiel.python.algorithms import evaluate_bots, minimax
from open_spiel.python.algorithms import mcts as spiel_mcts

from zerosum import Limit, get_game
from zerosum.engines.mcts import DEFAULT_EXPLORATION, MctsEngine
from zerosum.match.elo import wilson_interval
from zerosum.openspiel import Bot
from zerosum.search.driver import iterate, search, solve
from zerosum.search.perft import perft
from zerosum.search.root import Mode

SOLVE_GAMES = (
    "tic_tac_toe",
    "hex(board_size=3)",
    "clobber(rows=3,columns=3)",
    "nim(pile_sizes=1;2;3)",
    "mnk(m=3,n=4,k=3)",
    "breakthrough(rows=3,columns=4)",
)
LONG_GAMES = ("nim", "breakthrough(rows=4,columns=4)")
PROOF_POSITIONS = (
    ("openspiel:tic_tac_toe", ""),
    ("tictactoe", ""),
    ("connect4", "366356216464725633721122"),
    ("openspiel:hex(board_size=4)", ""),
    ("openspiel:breakthrough(rows=4,columns=4)", ""),
    ("openspiel:oware(num_houses_per_player=3,num_seeds_per_house=2)", ""),
    # Kalah (extra turns: a move is a whole turn), 20 random turns in (random.Random(1))
    ("openspiel:mancala", "3 1 13 1 10 11 1 13 4 9 13 11 5 11 2 9 5 8 6 11 4 8 3 12"),
)
"""(game, position) pairs for ``proof``: each proven by search in seconds to a minute here."""
NODE_GAMES = (("breakthrough(rows=6,columns=6)", 4), ("clobber(rows=5,columns=5)", 4))
MCTS_GAMES = ("hex(board_size=5)", "breakthrough(rows=5,columns=5)")


def sign(value: float) -> int:
    return (value > 0) - (value < 0)


def timed(run: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[Any, float]:
    started = time.perf_counter()
    result = run(*args, **kwargs)
    return result, time.perf_counter() - started


def part_solve(long: bool) -> None:
    print("exact values from the start (first player's view) and seconds")
    print(f"{'game':34} {'OpenSpiel a-b':>20} {'zerosum search':>24} {'zerosum solve':>24}")
    for name in SOLVE_GAMES + (LONG_GAMES if long else ()):
        game = pyspiel.load_game(name)
        (theirs, _), spiel_s = timed(minimax.alpha_beta_search, game, maximizing_player_id=0)
        position = get_game(f"openspiel:{name}").new()
        proof, search_s = timed(search, position)
        exact, solve_s = timed(solve, position)
        print(
            f"{name:34} {sign(theirs):+d} {spiel_s:9.2f} s      "
            f"{sign(proof.value):+d} {search_s:7.2f} s {proof.stats.nodes:>9,}  "
            f"{sign(exact.value):+d} {solve_s:7.2f} s {exact.stats.nodes:>9,}"
            + ("" if sign(theirs) == sign(exact.value) == sign(proof.value) else "  MISMATCH")
        )


def part_proof(only: str | None, cap: float) -> None:
    print("pure-Python solve against a deepening search to a proof: nodes (solve: the value's")
    print("proof / all), seconds; `before`: the solve that searched every move from depth 1;")
    print(f"a solve still running after {cap:g} s is stopped (`stopped`: moves proven / moves)")
    limit = Limit(time=cap)
    for name, position in PROOF_POSITIONS:
        if only is not None and only not in name:
            continue
        spec = get_game(name)
        game = spec.from_position(position) if position else spec.new()
        cells = []
        proof, seconds = timed(search, game)
        cells.append(f"search {proof.stats.nodes:,} {seconds:.2f} s")
        values = {proof.value}
        for moves in (Mode.ONE, Mode.ALL, Mode.EXACT):
            found, seconds = timed(solve, game, moves=moves, limit=limit)
            assert found.proof_stats is not None and found.solved
            values.add(found.value)
            cells.append(
                f"{moves.value} {found.proof_stats.nodes:,}/{found.stats.nodes:,} {seconds:.2f} s"
                + stopped(found, game)
            )
        started = time.perf_counter()
        *_, before = iterate(game, mode=Mode.EXACT, limit=limit)
        seconds = time.perf_counter() - started
        if before.solved:
            values.add(before.value)
        cells.append(f"before {before.stats.nodes:,} {seconds:.2f} s" + stopped(before, game))
        print(
            f"{name} {position or '(start)'} value {proof.value}: "
            + " | ".join(cells)
            + ("" if len(values) == 1 else "  MISMATCH"),
            flush=True,
        )


def stopped(result: Any, game: Any) -> str:
    """`` (stopped: proven/moves)`` for a result the cap stopped, else nothing."""
    if result.complete:
        return ""
    proven = len(result.move_values) if result.solved else 0
    return f" (stopped: {proven}/{len(game.legal_moves())})"


def raw_perft(state: Any, depth: int) -> int:
    if depth == 0 or state.is_terminal():
        return 1
    total = 0
    player = state.current_player()
    for action in state.legal_actions():
        state.apply_action(action)
        total += raw_perft(state, depth - 1)
        state.undo_action(player, action)
    return total


def clone_perft(state: Any, depth: int) -> int:
    if depth == 0 or state.is_terminal():
        return 1
    total = 0
    for action in state.legal_actions():
        child = state.clone()
        child.apply_action(action)
        total += clone_perft(child, depth - 1)
    return total


def bridge_perft(game: Any, depth: int) -> int:
    """The same walk through the protocol, as a search makes it: every leaf made and undone."""
    if depth == 0 or game.outcome() is not None:
        return 1
    total = 0
    for move in game.legal_moves():
        game.make(move)
        total += bridge_perft(game, depth - 1)
        game.undo()
    return total


def keyed_perft(game: Any, depth: int) -> int:
    """:func:`bridge_perft` asking every inner node's key, as a search with a table does."""
    if depth == 0 or game.outcome() is not None:
        return 1
    game.key()
    total = 0
    for move in game.legal_moves():
        game.make(move)
        total += keyed_perft(game, depth - 1)
        game.undo()
    return total


def part_nodes() -> None:
    print("perft: every line to a depth, nodes (positions) visited and microseconds a node")
    for name, depth in NODE_GAMES:
        spiel_game = pyspiel.load_game(name)
        bridge = get_game(f"openspiel:{name}").new()
        rows = []
        for label, run, start in (
            ("pyspiel apply/undo", raw_perft, spiel_game.new_initial_state()),
            ("pyspiel clone+apply", clone_perft, spiel_game.new_initial_state()),
            ("bridge + keys", keyed_perft, bridge),
            ("zerosum bridge", bridge_perft, bridge),
        ):
            leaves, seconds = timed(run, start, depth)
            rows.append((label, leaves, seconds))
        nodes = sum(perft(bridge, d) for d in range(depth + 1))
        base = rows[0][2]
        for label, leaves, seconds in rows:
            print(
                f"{name:32} {label:20} depth {depth} leaves {leaves:>9,} "
                f"{seconds / nodes * 1e6:6.2f} µs/node  (+{(seconds - base) / nodes * 1e6:5.2f})"
            )


def cpp_bot(game: Any, seed: int, seconds: float) -> Any:
    """OpenSpiel's C++ MCTSBot: random rollouts, UCT 2, a solver, ``seconds`` a move."""
    return pyspiel.MCTSBot(
        game,
        pyspiel.RandomRolloutEvaluator(1, seed),
        2.0,
        10**9,
        64,
        True,
        seed,
        False,
        pyspiel.ChildSelectionPolicy.UCT,
        seconds,
    )


def python_bot(game: Any, seed: int, simulations: int) -> Any:
    """OpenSpiel's Python MCTSBot (no time limit: a simulation count)."""
    rng = np.random.RandomState(seed)
    return spiel_mcts.MCTSBot(
        game,
        2.0,
        simulations,
        spiel_mcts.RandomRolloutEvaluator(1, rng),
        solve=True,
        random_state=rng,
    )


@dataclass(frozen=True)
class MctsRun:
    """One ``mcts`` run's settings (see ``--help``)."""

    games: int
    seconds: float
    against: list[str]
    names: list[str]
    first: int
    their_seconds: float
    exploration: float


def part_mcts(run: MctsRun) -> None:
    seconds, theirs = run.seconds, run.their_seconds
    print(
        f"zerosum MCTS (Bot, pure Python, UCT {run.exploration}) at {seconds} s a move against "
        f"OpenSpiel's MCTSBot at {theirs} s, games {run.first}..{run.first + run.games - 1}"
    )
    print(f"simulations a CPU second from the start: {simulation_rates(run.names)}")
    games = run.games
    for name in run.names:
        spiel_game = pyspiel.load_game(name)
        # The Python MCTSBot takes a simulation count: the one it runs in ``seconds`` here.
        probe = python_bot(spiel_game, 0, 300)
        _, spent = timed(probe.step, spiel_game.new_initial_state())
        simulations = max(int(300 * theirs / spent), 1)
        opponents: list[tuple[str, Callable[[int], Any]]] = [
            ("C++ MCTSBot", partial(cpp_bot, spiel_game, seconds=theirs)),
            (
                f"Python MCTSBot {simulations} sims",
                partial(python_bot, spiel_game, simulations=simulations),
            ),
        ]
        kinds = {"cpp": opponents[0], "python": opponents[1]}
        for label, make in (kinds[kind] for kind in run.against):
            tally = [0, 0, 0]  # wins, draws, losses
            first_seat = 0  # wins as the first player
            for index in range(run.first, run.first + games):
                ours = Bot(
                    spiel_game,
                    engine="mcts",
                    limit=Limit(time=seconds),
                    seed=index,
                    exploration=run.exploration,
                )
                seat = index % 2
                bots = [ours, make(index)] if seat == 0 else [make(index), ours]
                returns = evaluate_bots.evaluate_bots(
                    spiel_game.new_initial_state(), bots, np.random.RandomState(index)
                )
                ours.close()
                tally[0 if returns[seat] > 0 else 1 if returns[seat] == 0 else 2] += 1
                first_seat += int(seat == 0 and returns[seat] > 0)
            score = tally[0] + tally[1] / 2
            low, high = wilson_interval(score / games, games)
            print(
                f"{name:32} vs {label:28} +{tally[0]} ={tally[1]} -{tally[2]}  "
                f"{score:4.1f}/{games} = {score / games:5.1%}  (95%: {low:.1%}..{high:.1%}), "
                f"{first_seat} of the wins as the first player",
                flush=True,
            )


def simulation_rates(names: list[str], simulations: int = 3000) -> str:
    """Simulations a CPU second from each game's start, zerosum's MCTS and the C++ MCTSBot
    (best of three; CPU time, as other jobs share the machine)."""
    rates = []
    for name in names:
        game = get_game(f"openspiel:{name}").new()
        spiel_game = pyspiel.load_game(name)
        ours = theirs = 0.0
        for _ in range(3):
            engine = MctsEngine(seed=0)
            started = time.process_time()
            engine.search(game, Limit(nodes=simulations))
            ours = max(ours, simulations / (time.process_time() - started))
            bot = pyspiel.MCTSBot(
                spiel_game, pyspiel.RandomRolloutEvaluator(1, 0), 2.0, 10 * simulations, 64,
                True, 0, False,
            )  # fmt: skip
            started = time.process_time()
            bot.step(spiel_game.new_initial_state())
            theirs = max(theirs, 10 * simulations / (time.process_time() - started))
        rates.append(f"{name} zerosum {ours:,.0f}, C++ MCTSBot {theirs:,.0f}")
    return "; ".join(rates)


PARTS = ("solve", "nodes", "mcts", "proof")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("parts", nargs="*", default=list(PARTS[:3]))
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--time", type=float, default=0.5)
    parser.add_argument("--long", action="store_true", help="also the games OpenSpiel is slow on")
    parser.add_argument(
        "--against",
        default="cpp,python",
        help="mcts: the MCTSBots to play, comma-separated among cpp and python",
    )
    parser.add_argument(
        "--mcts-games",
        default=" ".join(MCTS_GAMES),
        help="mcts: the pyspiel games, separated by spaces",
    )
    parser.add_argument("--only", help="proof: only the games whose name holds this text")
    parser.add_argument(
        "--cap", type=float, default=300.0, help="proof: stop a solve after this many seconds"
    )
    parser.add_argument("--first", type=int, default=0, help="mcts: the first game's seed")
    parser.add_argument(
        "--their-time", type=float, help="mcts: OpenSpiel's bots' time a move (default --time)"
    )
    parser.add_argument(
        "--exploration", type=float, default=DEFAULT_EXPLORATION, help="mcts: our UCT constant"
    )
    args = parser.parse_args(argv)
    print("$ " + " ".join([sys.executable, *sys.argv]))
    print(f"{time.strftime('%Y-%m-%d')}, open-spiel {version('open-spiel')}")
    for part in args.parts:
        if part == "solve":
            part_solve(args.long)
        elif part == "nodes":
            part_nodes()
        elif part == "proof":
            part_proof(args.only, args.cap)
        elif part == "mcts":
            against = args.against.split(",")
            if any(kind not in ("cpp", "python") for kind in against):
                parser.error(f"--against {args.against!r}: expected cpp, python or both")
            their = args.time if args.their_time is None else args.their_time
            names = args.mcts_games.split()
            part_mcts(
                MctsRun(args.games, args.time, against, names, args.first, their, args.exploration)
            )
        else:
            parser.error(f"unknown part {part!r}: expected {', '.join(PARTS)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

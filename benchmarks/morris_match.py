"""zerosum against OpenSpiel's MCTS bot at nine men's morris, at equal time per move.

    .venv/bin/pip install -e '.[bench]'
    .venv/bin/python benchmarks/morris_match.py --games 40 --time 1.0

zerosum plays with the compiled engine (iterative deepening under the time limit); OpenSpiel's
``nine_mens_morris`` is the referee and its ``MCTSBot`` (UCT with random rollouts) the opponent.
MCTSBot counts simulations, not seconds: before each of its moves the simulation budget is set
from its measured speed on its previous moves, so it thinks for about the same time per move as
zerosum (the printed averages show how close). Colours alternate from game to game.

Moves are translated both ways: OpenSpiel's actions are points ``0..23`` in the standard order
(a placement, or a removal, which is a separate action by the same player) and
``24 + 24 * from + to`` for a slide or fly. OpenSpiel has no repetition rule and ends a game
after 200 turns as a draw; zerosum plays by its default rules (threefold repetition and 100
moves without removal are draws), and a game that zerosum's rules call a draw is scored a draw.
The result line gives wins, draws and losses from zerosum's side, the score, and the Elo
difference with a 95% interval (the Wilson interval of the score, so a 100% score still gets a
finite lower bound).
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time
from dataclasses import dataclass

import numpy as np
import pyspiel
from open_spiel.python.algorithms import mcts

from zerosum.compiled.solver import Solver
from zerosum.games.morris import NONE, Morris, encode, move_from, move_removed, move_to
from zerosum.search import Limit


def to_actions(move: int) -> list[int]:
    """zerosum's move as OpenSpiel's actions (the removal is an action of its own)."""
    frm, to, removed = move_from(move), move_to(move), move_removed(move)
    actions = [to if frm == NONE else 24 + 24 * frm + to]
    if removed != NONE:
        actions.append(removed)
    return actions


def from_actions(actions: list[int]) -> int:
    """OpenSpiel's actions of one turn as zerosum's move."""
    first, *rest = actions
    removed = rest[0] if rest else NONE
    if first < 24:
        return encode(first, removed=removed)
    frm, to = divmod(first - 24, 24)
    return encode(to, frm, removed)


@dataclass
class Clock:
    moves: int = 0
    seconds: float = 0.0

    @property
    def mean(self) -> float:
        return self.seconds / self.moves if self.moves else 0.0


class TimedMCTS:
    """OpenSpiel's MCTS bot with its simulation budget set to fill ``seconds`` per move."""

    def __init__(self, game: pyspiel.Game, seconds: float, seed: int) -> None:
        self.seconds = seconds
        self.rate = 2000.0  # simulations per second; re-measured after every move
        rng = np.random.RandomState(seed)
        evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng)
        self.bot = mcts.MCTSBot(game, 2.0, 100, evaluator, solve=True, random_state=rng)

    def step(self, state: pyspiel.State) -> int:
        self.bot.max_simulations = max(int(self.rate * self.seconds), 10)
        started = time.perf_counter()
        action = int(self.bot.step(state))
        spent = time.perf_counter() - started
        self.rate = self.bot.max_simulations / max(spent, 1e-3)
        return action


def play_game(
    zerosum_side: int, seconds: float, seed: int, clocks: tuple[Clock, Clock]
) -> tuple[float, str]:
    """One game; returns zerosum's score (1, 0.5 or 0) and how the game ended."""
    game = pyspiel.load_game("nine_mens_morris")
    state = game.new_initial_state()
    ours = Morris()
    solver = Solver("morris", hash_mb=64)
    opponent = TimedMCTS(game, seconds, seed)
    while not state.is_terminal():
        outcome = ours.outcome()
        if outcome is not None:
            if outcome == 0:
                return 0.5, "draw by zerosum's rules (repetition or 100 moves)"
            raise RuntimeError(f"zerosum sees a finished game that OpenSpiel does not: {ours}")
        player = state.current_player()
        started = time.perf_counter()
        if player == zerosum_side:
            result = solver.search(ours, limit=Limit(time=seconds))
            move = result.best_move
            for action in to_actions(move):
                if action not in state.legal_actions():
                    raise RuntimeError(f"OpenSpiel refuses {ours.format_move(move)} ({action})")
                state.apply_action(action)
        else:
            actions = []
            while not state.is_terminal() and state.current_player() == player:
                action = opponent.step(state)
                actions.append(action)
                state.apply_action(action)
            move = from_actions(actions)
            if move not in ours.legal_moves():
                raise RuntimeError(f"zerosum refuses OpenSpiel's {actions} at {ours.position()}")
        clocks[player != zerosum_side].moves += 1
        clocks[player != zerosum_side].seconds += time.perf_counter() - started
        ours.make(move)
    returns = state.returns()
    score = (returns[zerosum_side] + 1) / 2
    how = "turn limit" if returns[0] == 0 else "win" if score == 1 else "loss"
    return score, how


def elo(score: float) -> float:
    if score <= 0:
        return -math.inf
    if score >= 1:
        return math.inf
    return -400 * math.log10(1 / score - 1)


def wilson(score: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson interval of a score over ``n`` games (sound at 0% and 100% too)."""
    centre = score + z * z / (2 * n)
    spread = z * math.sqrt(score * (1 - score) / n + z * z / (4 * n * n))
    return (centre - spread) / (1 + z * z / n), (centre + spread) / (1 + z * z / n)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--time", type=float, default=1.0, help="seconds per move, each side")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    print(f"$ {' '.join([sys.executable.split('/')[-1], *sys.argv])}", flush=True)
    clocks = (Clock(), Clock())
    results: list[float] = []
    endings: dict[str, int] = {}
    rng = random.Random(args.seed)
    for index in range(args.games):
        side = index % 2
        started = time.perf_counter()
        score, how = play_game(side, args.time, rng.randrange(1 << 30), clocks)
        results.append(score)
        endings[how] = endings.get(how, 0) + 1
        wins, draws = results.count(1.0), results.count(0.5)
        print(
            f"game {index + 1:>3}: zerosum {'white' if side == 0 else 'black'}, "
            f"{('loss', 'draw', 'win')[int(score * 2)]:<4} ({how}), "
            f"{time.perf_counter() - started:.0f} s; total +{wins} ={draws} "
            f"-{len(results) - wins - draws}",
            flush=True,
        )
    n = len(results)
    wins, draws = results.count(1.0), results.count(0.5)
    losses = n - wins - draws
    mean = sum(results) / n
    low, high = wilson(mean, n)
    print(f"time per move: zerosum {clocks[0].mean:.2f} s, MCTS {clocks[1].mean:.2f} s")
    print(f"endings: {endings}")
    print(
        f"zerosum vs OpenSpiel MCTS, {n} games at {args.time} s/move: +{wins} ={draws} -{losses}, "
        f"score {100 * mean:.1f}% (95% {100 * low:.1f}..{100 * high:.1f}%), "
        f"Elo {elo(mean):+.0f} (95% {elo(low):+.0f}..{elo(high):+.0f})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""A reused engine answers as a fresh one: what an engine searched before (its table, its tree)
may make a search faster but never changes its answer, and never turns a heuristic value into a
proof.

Every engine that :func:`open_engine` offers for every registered game (and variant) searches a
few positions to a scrambled series of depths, then under node limits, and each answer is
compared with a fresh engine's. Depth-limited answers of the deterministic engines must be the
same value, ``solved`` flag and depth, and the same node count for the exact engines. The
compiled tactical engine keeps its table between searches by design (as a UCI engine keeps its
hash), so its heuristic values at a depth may differ: it must give the same depth and never
claim a proof. MCTS (whose random stream goes on from search to search) and node-limited
searches must be sound: a result that says ``solved`` carries the game's exact value.
"""

from __future__ import annotations

import contextlib
import random
from typing import Any

import numpy as np
import pytest

from zerosum.compiled.engine import GENERATIONS
from zerosum.compiled.solver import Solver
from zerosum.engines import COMPILED, COMPILED_TACTICAL, MCTS, TACTICAL, engine_names, open_engine
from zerosum.engines.base import Engine
from zerosum.game import MAX_PLY, Game
from zerosum.games import GAMES, GameSpec, get_game
from zerosum.search import Limit, SearchResult

VARIANTS = [get_game(name) for spec in GAMES.values() for name in spec.variants]
CASES = [
    *((spec, name) for spec in GAMES.values() for name in engine_names(spec)),
    # A variant runs the engines' code of its game; its kernel's are its own.
    *((spec, name) for spec in VARIANTS for name in (COMPILED, MCTS) if name in engine_names(spec)),
]
HASH_MB = 2
"""Small tables (compiled engines, compiled MCTS's tree): every comparison opens a fresh one."""

DEEPEST = {
    # The deepest search per (engine, game) that stays quick; pure Python without pruning
    # searches the whole tree.
    ("minimax", "chess"): 2,
    ("negamax", "chess"): 2,
    ("alphabeta", "chess"): 2,
    ("engine", "chess"): 3,
    (TACTICAL, "chess"): 3,
    (COMPILED_TACTICAL, "chess"): 6,
    (COMPILED, "connect4"): 10,
    (COMPILED, "tictactoe"): 9,
    (COMPILED, "morris"): 6,
    (COMPILED, "othello"): 6,
    ("minimax", "morris"): 2,
    ("negamax", "morris"): 2,
    ("minimax", "othello"): 3,
    ("negamax", "othello"): 3,
}
"""Otherwise 4 (MCTS: see :func:`deepest`)."""


def deepest(spec: GameSpec, name: str) -> int:
    if name == MCTS:  # iterations, each doubling the simulations (chess plays them out)
        return 2 if spec.base == "chess" else 3
    return DEEPEST.get((name, spec.base), 4)


def node_limits(spec: GameSpec, name: str) -> tuple[int, ...]:
    """Node budgets (MCTS: simulations, which chess plays out to the end in Python)."""
    if name == MCTS:
        return (20,) if spec.base == "chess" else (50,)
    return (50, 2_000)


def depths(spec: GameSpec, name: str) -> list[int]:
    """Shallow, deep, shallower, deep again: each search follows one that left a table (or a
    tree) of another depth behind."""
    top = deepest(spec, name)
    order: list[int] = []
    for depth in (2, top, 1, top - 1, top):
        if depth >= 1 and order[-1:] != [depth]:
            order.append(depth)
    return order


def positions(spec: GameSpec) -> list[Game[Any]]:
    """The start, a few plies in, and a seeded position further on (not over)."""
    found = [spec.new()]
    rng = random.Random(24)
    for plies in (3, 8):
        game = spec.new()
        for _ in range(plies):
            moves = game.legal_moves()
            if game.outcome() is not None or not moves:
                break
            move = rng.choice(moves)
            game.make(move)
            if game.outcome() is not None:
                game.undo()
                break
        found.append(game)
    return found


def answer(result: SearchResult[Any]) -> tuple[int, bool, int]:
    return result.value, result.solved, result.depth


def fresh(spec: GameSpec, name: str, game: Game[Any], limit: Limit) -> SearchResult[Any]:
    with open_engine(spec, name, seed=7, hash_mb=HASH_MB) as engine:
        return engine.search(game.copy(), limit)


def exact_value(spec: GameSpec, game: Game[Any]) -> int | None:
    """The game value of ``game`` from an exact solve, when one is cheap (else None)."""
    if spec.base != "tictactoe" and not (spec.base == "connect4" and game.ply() >= 8):
        return None
    name = COMPILED if spec.kernel is not None else "engine"
    with open_engine(spec, name, task="solve") as engine:
        result = engine.search(game.copy(), Limit())
    assert result.solved
    return result.value


SOLVED: dict[tuple[str, int], int | None] = {}
""":func:`exact_value` of each game's ``positions(spec)[index]``, solved once per test process
(the connect four position at ply 8 is a long solve) and only when a result claims a proof:
the same oracle for every engine, without a solve per engine."""


def truth(spec: GameSpec, index: int, game: Game[Any]) -> int | None:
    key = (spec.name, index)
    if key not in SOLVED:
        SOLVED[key] = exact_value(spec, game)
    return SOLVED[key]


SLOW_CASES = {("chess", MCTS)}
"""Cases of the slow set: MCTS on chess plays its simulations out to the end in Python."""


@pytest.mark.parametrize(
    ("spec", "name"),
    [
        pytest.param(
            spec,
            name,
            id=f"{spec.name}-{name}",
            marks=[pytest.mark.slow] if (spec.name, name) in SLOW_CASES else [],
        )
        for spec, name in CASES
    ],
)
def test_a_reused_engine_answers_as_a_fresh_one(spec: GameSpec, name: str) -> None:
    reused: Engine = open_engine(spec, name, seed=7, hash_mb=HASH_MB)
    try:
        for index, game in enumerate(positions(spec)):
            for depth in depths(spec, name):
                limit = Limit(depth=depth)
                again = reused.search(game.copy(), limit)
                first = fresh(spec, name, game, limit)
                where = f"{spec.name} {name} ply {game.ply()} depth {depth}"
                if name == COMPILED_TACTICAL:  # keeps its table, as a UCI engine its hash
                    assert (again.solved, again.depth) == (first.solved, first.depth), where
                    assert not again.solved, where  # a heuristic search: never a proof
                elif name != MCTS:
                    assert answer(again) == answer(first), where
                if name not in (MCTS, TACTICAL, COMPILED_TACTICAL):
                    assert again.stats.nodes == first.stats.nodes, where
                assert again.depth <= depth, where
                for result in (again, first):
                    if result.solved and (exact := truth(spec, index, game)) is not None:
                        assert result.value == exact, where
                    if result.solved and first.solved:
                        assert again.value == first.value, where
            for nodes in node_limits(spec, name):
                again = reused.search(game.copy(), Limit(nodes=nodes))
                where = f"{spec.name} {name} ply {game.ply()} nodes {nodes}"
                if again.solved and (exact := truth(spec, index, game)) is not None:
                    assert again.value == exact, where
    finally:
        reused.close()


class Interrupted(Exception):
    """What a stop callback raises below, as a front end's Ctrl-C or a library caller's
    callback may."""


@pytest.mark.parametrize(
    ("spec", "name"),
    [
        pytest.param(spec, name, id=f"{spec.name}-{name}")
        for spec, name in CASES
        if (spec.name, name) not in SLOW_CASES
    ],
)
def test_a_stop_callback_that_raises_leaves_the_game_and_the_engine_as_they_were(
    spec: GameSpec, name: str
) -> None:
    # The error leaves search as it was raised; the caller's game is where it was (the
    # Python searches make their moves on it), and the engine's next search answers as a
    # fresh engine's. No depth: the search runs until the callback raises (a small game's
    # may end first, solved).
    game = positions(spec)[1]
    before = (game.ply(), game.key(), game.legal_moves())
    calls = 0

    def stop() -> bool:
        nonlocal calls
        calls += 1
        if calls == 3:
            raise Interrupted
        return False

    with open_engine(spec, name, seed=7, hash_mb=HASH_MB) as engine:
        with contextlib.suppress(Interrupted):
            engine.search(game, Limit(stop=stop))
        assert calls == 3 or spec.base not in ("connect4", "morris", "chess")  # small: solved
        assert (game.ply(), game.key(), game.legal_moves()) == before
        limit = Limit(depth=min(2, deepest(spec, name)))
        again = engine.search(game.copy(), limit)
    first = fresh(spec, name, game, limit)
    if name != MCTS:
        assert answer(again) == answer(first)


def test_a_compiled_search_that_raises_in_its_thread_raises_in_the_callers() -> None:
    # A search run in a helper thread (a clock or a stop callback may end it) that raises
    # (a failed compile, no memory) must not come back as a value: its 0 read as a complete,
    # proven draw, and a solve stored it.
    from zerosum.compiled.engine import IO_SIZE
    from zerosum.compiled.runner import Engine as Runner

    def call() -> int:
        raise MemoryError("raised in the search thread")

    io = np.zeros(IO_SIZE, np.int64)
    with pytest.raises(MemoryError, match="raised in the search thread"):
        Runner._run(call, io, Limit(stop=lambda: False))
    with pytest.raises(MemoryError, match="raised in the search thread"):
        Runner._run(call, io, Limit(time=60))


def test_a_depth_limited_value_never_comes_back_as_a_proof() -> None:
    """The probe of issue 24: depth 2, then depth 10 on the empty connect four board."""
    spec = get_game("connect4")
    with open_engine(spec, COMPILED, hash_mb=HASH_MB) as engine:
        engine.search(spec.new(), Limit(depth=2))
        again = engine.search(spec.new(), Limit(depth=10))
    first = fresh(spec, COMPILED, spec.new(), Limit(depth=10))
    assert not again.solved and again.depth == 10
    assert answer(again) == answer(first)


def test_compiled_workers_answer_as_a_fresh_engine() -> None:
    spec = get_game("connect4")
    game = spec.new()
    with open_engine(spec, COMPILED, workers=2, hash_mb=HASH_MB) as engine:
        seen = [answer(engine.search(game.copy(), Limit(depth=d))) for d in (2, 9, 1, 9)]
    with open_engine(spec, COMPILED, hash_mb=HASH_MB) as serial:
        expected = [answer(serial.search(game.copy(), Limit(depth=d))) for d in (2, 9, 1, 9)]
    assert seen == expected


def test_a_cleared_compiled_tactical_engine_answers_as_a_fresh_one() -> None:
    """The compiled tactical engine keeps its table across positions (see
    :mod:`zerosum.engines.compiled_tactical`); after ``clear()`` (a new game), even one that
    follows ``reset()``, every answer is a fresh engine's: value, depth, PV and nodes."""
    spec = get_game("chess")
    reused: Engine = open_engine(spec, COMPILED_TACTICAL, hash_mb=HASH_MB)
    differed = 0
    try:
        for game in positions(spec):
            for depth in depths(spec, COMPILED_TACTICAL):
                limit = Limit(depth=depth)
                first = fresh(spec, COMPILED_TACTICAL, game, limit)
                kept = reused.search(game.copy(), limit)  # the table of the searches before
                differed += answer(kept) != answer(first)
                assert kept.best_move in game.legal_moves() and not kept.solved
                reused.reset()  # forgets the searcher; the table stays until clear()
                reused.clear()  # type: ignore[attr-defined]
                again = reused.search(game.copy(), limit)
                where = f"ply {game.ply()} depth {depth}"
                assert answer(again) == answer(first), where
                assert again.pv == first.pv and again.stats.nodes == first.stats.nodes, where
    finally:
        reused.close()
    print(f"kept table: {differed} answers differed from a fresh engine's")


PARALLEL_CASES = [
    ("tictactoe", "engine"),
    ("connect4", "alphabeta"),
    ("connect4", "engine"),
    ("morris", COMPILED),
    ("othello", COMPILED),
    ("chess", TACTICAL),
    ("chess", COMPILED_TACTICAL),
    ("connect4", MCTS),
    ("morris", MCTS),
]
"""Engines that keep state between searches in their workers (processes with their tables in
shared memory, threads sharing one table or one tree), each with two workers."""
PARALLEL_DEEPEST = {("chess", COMPILED_TACTICAL): 4, ("morris", COMPILED): 4}
"""Shallower than the serial test's (two threads on a loaded machine: minutes at depth 6)."""
PARALLEL_SLOW = {("chess", COMPILED_TACTICAL), ("morris", MCTS), ("morris", COMPILED)}
"""Cases of the slow set (a minute or more each under load)."""


@pytest.mark.parametrize(
    ("game", "name"),
    [
        pytest.param(
            game, name, id=f"{game}-{name}",
            marks=[pytest.mark.slow] if (game, name) in PARALLEL_SLOW else [],
        )
        for game, name in PARALLEL_CASES
    ],
)  # fmt: skip
def test_a_reused_parallel_engine_answers_as_a_fresh_serial_one(game: str, name: str) -> None:
    """Two workers, reused across positions, depths and node limits: an exact engine's value,
    proof and depth at each depth are a fresh serial engine's (the parallel split searches
    every root move with a full window, so only its node count may differ); the heuristic
    tactical engines keep the depth and never claim a proof; MCTS's proofs are the game's
    values."""
    spec = get_game(game)
    reused: Engine = open_engine(spec, name, workers=2, seed=7, hash_mb=HASH_MB)
    try:
        for index, position in enumerate(positions(spec)[:2]):
            deepest = PARALLEL_DEEPEST.get((game, name), MAX_PLY)
            for depth in [min(depth, deepest) for depth in depths(spec, name)[:4]]:
                limit = Limit(depth=depth)
                again = reused.search(position.copy(), limit)
                where = f"{game} {name} workers 2 ply {position.ply()} depth {depth}"
                if name in (TACTICAL, COMPILED_TACTICAL):
                    assert not again.solved and again.depth == depth, where
                    assert again.best_move in position.legal_moves(), where
                elif name != MCTS:
                    first = fresh(spec, name, position, limit)
                    assert answer(again) == answer(first), where
                if again.solved and (exact := truth(spec, index, position)) is not None:
                    assert again.value == exact, where
            for nodes in node_limits(spec, name):
                again = reused.search(position.copy(), Limit(nodes=nodes))
                where = f"{game} {name} workers 2 ply {position.ply()} nodes {nodes}"
                assert again.best_move in position.legal_moves(), where
                if again.solved and (exact := truth(spec, index, position)) is not None:
                    assert again.value == exact, where
    finally:
        reused.close()


@pytest.mark.parametrize("workers", [1, 2])
def test_a_compiled_engine_answers_as_a_fresh_one_after_its_generations_wrap(workers: int) -> None:
    """Entries keep their generation modulo 256: 256 searches after a search, its entries
    read as the current search's own. Here a depth-6 search after 255 others then answered
    with the depth-10 value (-10 in 8 nodes, where a fresh engine finds -13 in 873). The
    engines now give every entry the last generation before a search whose generations could
    wrap onto old entries: the search reads them as misses, and an exact solve still reads
    its proofs."""
    spec = get_game("connect4")
    position, other = spec.from_position("4453"), spec.from_position("1")
    with Solver("connect4", hash_mb=HASH_MB, workers=workers) as solver:
        state = solver.state(position)
        proven = solver.state(spec.from_position("4453362"))
        solver.exact.search(state, 10)
        first_solve = solver.exact.solve(proven)
        for _ in range(GENERATIONS - 2):
            solver.exact.search(solver.state(other), 1)
        assert solver.exact.generation == GENERATIONS
        again = solver.exact.search(state, 6)
        # and a deepening, whose iterations share one epoch, stays a fresh one's too
        deepened = solver.search(position, limit=Limit(depth=6))
        solved_again = solver.exact.solve(proven)
    assert solved_again.rank == first_solve.rank
    # The proofs that stayed in the small table: 330,474 nodes against 1,964,675 (the same as
    # a fresh engine's had the table been cleared).
    assert solved_again.stats.nodes < first_solve.stats.nodes / 3
    first = Solver("connect4", hash_mb=HASH_MB).exact.search(state, 6)
    assert (again.score, again.best_move) == (first.score, first.best_move) == (-13, 6)
    assert (
        deepened.value
        == Solver("connect4", hash_mb=HASH_MB).search(position, limit=Limit(depth=6)).value
    )
    if workers == 1:  # the parallel split counts its own nodes
        assert again.stats.nodes == first.stats.nodes

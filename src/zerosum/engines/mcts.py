"""Monte Carlo tree search with a solver: the engine for games without a good evaluation.

:class:`MctsEngine` grows a tree from the position one simulation at a time, in four steps:

1. **Selection.** From the root, descend to the child with the highest UCT score
   ``q + exploration * sqrt(ln N / n)`` (``q`` the child's mean reward for the side choosing,
   ``n`` its visits, ``N`` the parent's), plus ``bias * h / (n + 1)`` with progressive bias
   (``h`` the game's evaluation of the child, squashed into ``(-1, 1)``).
2. **Expansion.** At the first node with an untried move, add one child for a random one
   (selection stops at ``MAX_PLY`` plies below the root, where it plays out at once). With
   ``expand_after = k`` a node below the root grows children only once it has ``k`` visits:
   selection stops at a younger leaf and plays out from it, so the tree grows about ``k``
   times slower for the same simulations (the default, 1, grows a node at each simulation).
3. **Playout.** Score the new leaf: a random game to the end (``playout="random"``: +1 won,
   -1 lost, 0 drawn); a game to the end whose moves are random but *decisive*
   (``playout="decisive"``: a move that wins at once is played, the first in the legal order;
   else a random one among the moves after which the opponent cannot win at once, if there are
   any; this is what connect four needs, where a random player misses wins and threats); or
   the game's evaluation squashed into ``(-1, 1)`` (``playout="evaluation"``: no random moves,
   the leaf's heuristic at once).
4. **Backup.** Add the reward to every node on the path, from the side that moved into it, and
   recompute the score bounds of each ancestor whose child's bounds changed.

**The solver** (MCTS-Solver, Winands et al. 2008, with the score bounds of Cazenave and
Saffidine 2010). Each node keeps a pessimistic and an optimistic bound on its exact value, from
its own side to move, in ``mission.md``'s convention counted from the node (a win ``n`` plies
later scores ``WIN - n``). A finished position is exact at once (as is one the game's probe
decides); an inner node's bounds are the negamax of its children's, so a child proven lost for
its side to move makes the parent a win, a parent whose moves all lose is a loss, and draws and
the distance to the end come out exact too. Selection skips proven children and those whose
optimistic value cannot beat what the parent already has; a node is proven when its bounds
meet, and a proven root ends the search with the exact value (``solved=True``). In exchange
for exact distances the solver must also refute every faster win, so it proves a won position a
little later than a win-loss-only solver would.

Trade-offs:

* **A tree, not a graph.** Positions reached by different paths get different nodes (no
  transposition table): statistics are not shared, but every node has one parent, a reward is
  backed up along one path, and a subtree can be kept or dropped as a whole.
* **Bounded memory.** The tree holds at most ``max_nodes`` nodes. Once full, simulations go on
  from the leaves they reach (refining the statistics, proving nothing new); a search with no
  time, simulation or depth budget stops there, not solved.
* **Tree reuse.** A search of the same game object after moves were made keeps the subtree of
  the new position when the tree holds it (found by position among the nodes that many plies
  down), so a player following a game keeps what it learnt; else the tree starts afresh.
* **Limits.** ``Limit.nodes`` counts simulations (``stats.nodes`` reports simulations, not
  positions). Iteration ``k`` ends after ``FIRST_ITERATION * 2**(k-1)`` simulations and is
  reported through ``on_iteration``; ``Limit.depth = d`` therefore means "stop after iteration
  ``d``", a simulation budget that doubles with the depth (MCTS has no search depth of its own).
  Time and the stop callback are polled before every simulation.
* **Reproducible.** The random choices come from one generator seeded at construction (seed
  ``None`` is 0), :class:`SplitMix64`: a fresh engine with the same seed and the same
  simulation count gives the same tree, visit for visit. An expansion takes untried move
  ``below(len(untried))`` (the untried moves stay in the game's order), a playout move
  ``choices[below(len(choices))]`` (``choices`` the legal moves, or the decisive ones, in the
  game's order), so the compiled search (:mod:`zerosum.compiled.mcts`),
  drawing the same numbers at the same steps, builds the same tree too.
* **A game's own playouts.** A game that implements
  :class:`~zerosum.capabilities.RandomPlayouts` plays the random playouts itself (the OpenSpiel
  bridge, on one pyspiel state, without a ``make`` and an ``undo`` a ply through the
  protocol), drawing the same numbers: the tree is the same, which the tests check against
  ``game_playouts=False``. Capabilities are looked up once per game object, not per node.

**Compiled.** :class:`CompiledMctsEngine` (:mod:`zerosum.engines.mcts_compiled`) runs this
algorithm in numba on the game's kernel, with a memory budget and threads; ``--algorithm mcts``
picks it for a game whose kernel offers MCTS, and this engine for the others
(``open_engine(..., compiled=False)`` picks this one everywhere). This engine is its readable
twin and the oracle of its tests.

A result's value is the exact score when the root is proven; else a proven bound when the root
is known won (at least ``WIN - n``: won within ``n`` plies) or lost; else the best move's mean
reward in hundredths (``+100``: every playout through it won).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final, Literal

from zerosum.capabilities import RandomPlayouts
from zerosum.engines.base import Engine, EngineError, OnIteration, at_depth, no_moves
from zerosum.game import (
    HEURISTIC_LIMIT,
    MAX_PLY,
    WIN,
    Game,
    Outcome,
    Probe,
    Score,
    no_moves_error,
    probe_of,
    terminal_score,
)
from zerosum.search.compare import CompareRow
from zerosum.search.core import Limit, SearchResult, Stats, probed_score

Playout = Literal["random", "decisive", "evaluation"]
"""How a new leaf is scored: a random game to the end, one with decisive moves, or the game's
evaluation (see the header)."""

PlayoutFunction = Callable[[Callable[[int], int], int], "tuple[Outcome | None, int]"]
"""A game's :meth:`~zerosum.capabilities.RandomPlayouts.random_playout`."""

PLAYOUTS: Final[tuple[Playout, ...]] = ("random", "decisive", "evaluation")
GAME_DEFAULTS: Final[dict[str, dict[str, Any]]] = {
    "connect4": {"playout": "decisive", "expand_after": 8},
}
"""Options a game's compiled MCTS (and the Python twin that answers while it compiles,
:mod:`zerosum.engines.warming`) takes unless told otherwise (the others: the defaults),
chosen by measurement (docs/benchmarks.md). Connect four: random playouts miss the wins and
the blocks that decide it, and its kernel lists the decisive moves from bitboards for some 15%
of the simulations; and a simulation there is so fast that, growing a node each, a 2 s search
overflowed the default 64 MiB tree in about a second: a node grows children after 8 visits
instead."""

DEFAULT_EXPLORATION: Final = 1.4
"""UCT's exploration constant (about ``sqrt(2)``, for rewards in ``[-1, 1]``)."""
MAX_EXPAND_AFTER: Final = 1_000_000
"""The largest ``expand_after``."""
DEFAULT_MAX_NODES: Final = 200_000
"""The default bound on the tree's size (some 50 MB of Python objects)."""
FIRST_ITERATION: Final = 16
"""The simulations of iteration 1; each later iteration doubles the total."""
EVALUATION_SCALE: Final = 200.0
"""An evaluation of ``x`` centi-units rewards ``tanh(x / EVALUATION_SCALE)``."""
VALUE_SCALE: Final = 100
"""A mean reward ``q`` is reported as the value ``round(q * VALUE_SCALE)``."""

UNKNOWN: Final[Score] = WIN - 1
"""The bound of a position not over: it cannot be won or lost sooner than in one ply."""


_MASK64: Final = (1 << 64) - 1


class SplitMix64:
    """The search's random generator: SplitMix64 (Steele, Lea and Flood 2014), one 64-bit word
    of state. Chosen because it is a few lines in any language: the compiled search computes
    the same numbers with numba's signed words, so both searches make the same choices."""

    __slots__ = ("state",)

    def __init__(self, seed: int) -> None:
        self.state = seed & _MASK64

    def below(self, bound: int) -> int:
        """The next number in ``[0, bound)``: the next output's top 63 bits modulo ``bound``
        (``bound`` is small: the bias is negligible)."""
        self.state = state = (self.state + 0x9E3779B97F4A7C15) & _MASK64
        z = ((state ^ (state >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
        return ((z ^ (z >> 31)) >> 1) % bound


def up(score: Score) -> Score:
    """A node's score (or bound) seen from its parent, one ply above: negated, and a win or a
    loss one ply further away (``-(WIN - n)`` for the child is ``WIN - n - 1`` for the parent)."""
    if score > 0:
        return 1 - score
    if score < 0:
        return -1 - score
    return 0


class Node:
    """One position of the tree (see the module header for its invariants)."""

    __slots__ = ("children", "lower", "move", "prior", "total", "untried", "upper", "visits")

    def __init__(self, move: Any, lower: Score, upper: Score, prior: float = 0.0) -> None:
        self.move = move
        """The move from the parent (``None`` at the root)."""
        self.children: list[Node] = []
        self.untried: list[Any] | None = None
        """Legal moves without a child yet; ``None`` until the node is first expanded."""
        self.visits = 0
        self.total = 0.0
        """Sum of the rewards backed up through the node, for the side that moved into it."""
        self.lower = lower
        """Pessimistic bound of the node's exact value, from its side to move."""
        self.upper = upper
        """Optimistic bound of the node's exact value, from its side to move."""
        self.prior = prior
        """The evaluation of the node for the side that moved into it, in ``(-1, 1)``
        (progressive bias only; 0 otherwise)."""

    @property
    def proven(self) -> bool:
        return self.lower == self.upper

    def mean(self) -> float:
        """The mean reward for the side that moved into the node (0 before any visit)."""
        return self.total / self.visits if self.visits else 0.0

    def update_bounds(self) -> bool:
        """Recompute the bounds from the children's (negamax); true if they changed."""
        lower, upper = -UNKNOWN, -UNKNOWN
        children = self.children
        if children:
            # The largest of up(x) is up(the smallest x): up never increases (a min in C,
            # then one call, where a call a child cost a tenth of a simulation).
            lower = max(lower, up(min([child.upper for child in children])))
            upper = max(upper, up(min([child.lower for child in children])))
        if self.untried is None or self.untried:
            upper = UNKNOWN  # a move not tried yet may still win at once
        changed = (lower, upper) != (self.lower, self.upper)
        self.lower, self.upper = lower, upper
        return changed


@dataclass(frozen=True)
class RootMove:
    """One root move's statistics after a search, from the root's side to move."""

    move: Any
    visits: int
    """Simulations through the move (over every search that kept the tree)."""
    value: float
    """The mean reward of those simulations, in ``[-1, 1]`` (0 without a visit)."""
    proven: Score | None
    """The move's exact value when the solver proved it, else ``None``."""


class MctsEngine(Engine):
    """Monte Carlo tree search with a solver, for any game of the protocol (see the header).

    ``exploration`` is UCT's constant, ``playout`` how leaves are scored, ``bias`` the weight of
    progressive bias (0: none; it evaluates every new node), ``expand_after`` the visits a node
    below the root needs before it grows children, ``max_nodes`` the tree's bound and ``seed``
    the random generator's seed; ``game_playouts`` false plays random playouts through the
    protocol even where the game plays them itself (the twin of that fast path). Raises
    :class:`EngineError` for a bad option.
    """

    name = "mcts"

    def __init__(
        self,
        *,
        exploration: float = DEFAULT_EXPLORATION,
        playout: str = "random",
        bias: float = 0.0,
        expand_after: int = 1,
        max_nodes: int = DEFAULT_MAX_NODES,
        seed: int | None = None,
        game_playouts: bool = True,
    ) -> None:
        if not (math.isfinite(exploration) and exploration >= 0):
            raise EngineError(f"exploration {exploration} is out of range: expected a number >= 0")
        if playout not in PLAYOUTS:
            raise EngineError(f"unknown playout {playout!r}: expected one of {', '.join(PLAYOUTS)}")
        if not (math.isfinite(bias) and bias >= 0):
            raise EngineError(f"bias {bias} is out of range: expected a number >= 0")
        if not 1 <= expand_after <= MAX_EXPAND_AFTER:
            raise EngineError(
                f"expand_after {expand_after} is out of range: expected a number of visits "
                f"in [1, {MAX_EXPAND_AFTER}]"
            )
        if max_nodes < 2:
            raise EngineError(f"max_nodes {max_nodes} is out of range: expected at least 2")
        self.exploration = exploration
        self.playout = playout
        self.bias = bias
        self.expand_after = expand_after
        self.max_nodes = max_nodes
        self.seed = seed
        self.game_playouts = game_playouts
        self._rng = SplitMix64(0 if seed is None else seed)
        # The capabilities of the game object last searched, looked up once (``isinstance``
        # against a protocol costs microseconds): its probe and its own random playouts.
        self._capable: Game[Any] | None = None
        self._probe: Probe | None = None
        self._random_playout: PlayoutFunction | None = None
        self._root: Node | None = None
        self._root_game: Game[Any] | None = None
        """A copy of the position at the root, to find the new root after moves."""
        self._game: Game[Any] | None = None
        self._size = 0
        """Nodes in the tree under (and with) the root."""

    # -- the public interface ---------------------------------------------------------------

    def search(
        self,
        game: Game[Any],
        limit: Limit | None = None,
        *,
        on_iteration: OnIteration | None = None,
    ) -> SearchResult[Any]:
        """Simulate under ``limit`` until the root is proven (then ``solved``), reporting each
        iteration (a doubling of the simulations, see the header); without a time, simulation
        or depth budget, a full tree also ends it. ``best_move`` is the most visited root move
        unless the solver proved better; ``stats.nodes`` counts simulations. The first
        simulation runs before any limit is looked at, so there is always a move to report.
        Leaves ``game`` as it was."""
        return self._run(game, limit or Limit(), on_iteration, solving=False)

    def solve(self, game: Game[Any], *, limit: Limit | None = None) -> SearchResult[Any]:
        """Simulate until the root and every root move are proven: the exact value, every
        move's value (``move_values``) and all best moves. If ``limit`` (its depth ignored) or
        the tree's bound stops it first, ``solved`` is false and unproven values are estimates."""
        if limit is not None:
            limit = at_depth(limit, None)
        return self._run(game, limit or Limit(), None, solving=True)

    def _best_moves(
        self, game: Game[Any], depth: int, seed: int | None, limit: Limit | None
    ) -> SearchResult[Any]:
        if seed is not None:
            self._rng = SplitMix64(seed)
        if depth == 0:
            return self.solve(game, limit=limit)
        return self.search(game, at_depth(limit, depth))

    def root_stats(self) -> tuple[RootMove, ...]:
        """Every root move of the last search, best first (as ``best_move`` ranks them), with
        its visits, mean reward and proven value; moves never tried come last, unvisited."""
        if self._root_game is None:
            return ()
        root = self._root_view(self._root_game)
        ranked = sorted(root.children, key=_ranking(root), reverse=True)
        stats = [
            RootMove(c.move, c.visits, c.mean(), up(c.lower) if c.proven else None) for c in ranked
        ]
        stats += [RootMove(move, 0, 0.0, None) for move in root.untried or ()]
        return tuple(stats)

    @property
    def tree_size(self) -> int:
        """The nodes in the tree now (at most ``max_nodes``)."""
        return self._size

    def reset(self) -> None:
        self._root = self._root_game = self._game = None
        self._capable = self._probe = self._random_playout = None
        self._size = 0

    def close(self) -> None:
        self.reset()

    # -- the search ----------------------------------------------------------------------------

    def _run(
        self, game: Game[Any], limit: Limit, on_iteration: OnIteration | None, *, solving: bool
    ) -> SearchResult[Any]:
        """The simulation loop shared by :meth:`search` and :meth:`solve`."""
        if game.outcome() is not None:
            return no_moves(game)
        started = time.perf_counter()
        self._start(game)
        budgeted = limit.nodes is not None or limit.time is not None or limit.depth is not None
        simulations = evaluations = iteration = reported = 0
        next_report = FIRST_ITERATION
        complete = False
        while True:
            # Step 1. Stop when the answer is known, a limit is reached, or nothing can change.
            if self._done(solving=solving):
                complete = True
                if simulations > reported or not iteration:
                    iteration += 1  # the iteration that proved it ends here
                break
            if limit.nodes is not None and simulations >= limit.nodes:
                break
            elapsed = time.perf_counter() - started
            if simulations and limit.time is not None and elapsed >= limit.time:
                break
            if simulations and limit.stop is not None and limit.stop():
                break
            if not budgeted and self._full():
                break
            # Step 2. Simulations: one here, a batch in the compiled engine (which checks the
            # root and the tree before each, as step 1 does).
            count = self._batch(limit, simulations, next_report)
            made, evaluated = self._simulations(game, count, solving=solving, budgeted=budgeted)
            simulations += made
            evaluations += evaluated
            # Step 3. Report an iteration at each doubling; a depth limit counts iterations.
            if simulations == next_report:
                iteration, reported = iteration + 1, simulations
                next_report *= 2
                if limit.depth is not None and iteration >= limit.depth:
                    complete = True
                    break
                if on_iteration is not None:
                    on_iteration(
                        self._result(game, iteration, simulations, evaluations, started, solving)
                    )
        result = self._result(
            game, iteration, simulations, evaluations, started, solving, complete=complete
        )
        if on_iteration is not None and complete:
            on_iteration(result)
        return result

    # -- the steps the compiled engine replaces ------------------------------------------------

    def _start(self, game: Game[Any]) -> None:
        """Find or make the root for ``game``'s position."""
        self._root_for(game)

    def _done(self, *, solving: bool) -> bool:
        """Whether the root is proven (``solving``: and every root move)."""
        assert self._root is not None
        return _solved(self._root) if solving else self._root.proven

    def _full(self) -> bool:
        return self._size >= self.max_nodes

    def _batch(self, limit: Limit, simulations: int, next_report: int) -> int:
        """How many simulations to run before the limits are looked at again."""
        return 1

    def _simulations(
        self, game: Game[Any], count: int, *, solving: bool, budgeted: bool
    ) -> tuple[int, int]:
        """Run ``count`` simulations (fewer if the root is done or, not ``budgeted``, the tree
        is full): the simulations and evaluations made."""
        assert self._root is not None and count == 1
        return 1, self._simulate(game, self._root, prune_root=not solving)

    def _root_view(self, game: Game[Any]) -> Node:
        """The root, its children, and the best line's nodes with theirs (what results read)."""
        assert self._root is not None
        return self._root

    def _simulate(self, game: Game[Any], root: Node, *, prune_root: bool) -> int:
        """One simulation from ``root`` (``game`` at its position, left there); returns the
        evaluations it made."""
        path = [root]
        node = root
        evaluations = 0
        # Steps 1 and 2. Selection descends while every move of the node has a child (or the
        # tree is full); the first node with an untried move expands one, the new leaf. A path
        # stops at MAX_PLY plies (a game that can go on for ever) or at a leaf below the root
        # with fewer than expand_after visits: it plays out from there.
        while len(path) <= MAX_PLY:
            if node is not root and node.visits < self.expand_after:
                break
            if node.untried is None:
                node.untried = game.legal_moves()
                if not node.untried:
                    raise no_moves_error(game)
            if node.untried and self._size < self.max_nodes:
                node = self._expand(game, node)
                evaluations += int(self.bias > 0)
                path.append(node)
                break
            # UCT's choice; none when a full tree ends here: play out from this node.
            child = self._select(node, prune=prune_root or node is not root)
            if child is None:
                break
            game.make(child.move)
            path.append(child)
            node = child
        # Step 3. Playout: a reward for the leaf's side to move.
        reward, evaluated = self._playout(game, node)
        evaluations += evaluated
        # Step 4. Backup: rewards for the side that moved into each node, then the bounds.
        changed = True
        for depth in range(len(path) - 1, -1, -1):
            step = path[depth]
            step.visits += 1
            step.total -= reward
            reward = -reward
            if depth < len(path) - 1 and changed:
                changed = step.update_bounds()
            if depth:
                game.undo()
        return evaluations

    def _expand(self, game: Game[Any], node: Node) -> Node:
        """A child of ``node`` for a random untried move, made on ``game``."""
        untried = node.untried
        assert untried
        move = untried.pop(self._rng.below(len(untried)))
        game.make(move)
        lower, upper = -UNKNOWN, UNKNOWN
        outcome = game.outcome()
        if outcome is not None:
            lower = upper = terminal_score(outcome, 0)
        else:
            probe = self._capabilities(game)[0]
            probed = probe() if probe is not None else None
            if probed is not None:
                lower = upper = probed_score(probed[0], probed[1], 0)
        prior = -_squash(game.evaluate()) if self.bias > 0 else 0.0
        child = Node(move, lower, upper, prior)
        node.children.append(child)
        self._size += 1
        return child

    def _select(self, node: Node, *, prune: bool) -> Node | None:
        """The child with the best UCT score among those that can still change ``node``'s
        value (``prune`` false: every unproven child); ``None`` if there is none."""
        best: Node | None = None
        best_score = -math.inf
        log_visits = math.log(max(node.visits, 1))
        exploration, bias = self.exploration, self.bias
        floor = node.lower
        for child in node.children:
            lower = child.lower
            if lower == child.upper:
                continue
            if prune and (1 - lower if lower > 0 else -1 - lower if lower < 0 else 0) <= floor:
                continue  # up(lower) <= floor, written out: this loop is the search's hottest
            visits = child.visits
            if not visits:
                return child
            score = child.total / visits + exploration * math.sqrt(log_visits / visits)
            if bias:
                score += bias * child.prior / (visits + 1)
            if score > best_score:
                best, best_score = child, score
        return best

    def _playout(self, game: Game[Any], leaf: Node) -> tuple[float, int]:
        """The reward of ``leaf`` for its side to move and the evaluations made (``game`` at
        the leaf's position, left there)."""
        if leaf.proven:
            return float((leaf.lower > 0) - (leaf.lower < 0)), 0
        if self.playout == "evaluation":
            return _squash(game.evaluate()), 1
        decisive = self.playout == "decisive"
        fast = None if decisive else self._capabilities(game)[1]
        if fast is not None:
            ended, plies = fast(self._rng.below, MAX_PLY)
            result = 0.0 if ended is None else float(int(ended))
            return (result if plies % 2 == 0 else -result), 0
        made = 0
        while made < MAX_PLY and game.outcome() is None:
            moves = game.legal_moves()
            if not moves:
                raise no_moves_error(game)
            if decisive:
                moves = decisive_moves(game, moves)
            game.make(moves[self._rng.below(len(moves))])
            made += 1
        outcome = game.outcome()
        reward = 0.0 if outcome is None else float(int(outcome))
        for _ in range(made):
            game.undo()
        return (reward if made % 2 == 0 else -reward), 0

    def _capabilities(self, game: Game[Any]) -> tuple[Probe | None, PlayoutFunction | None]:
        """``game``'s probe and its own random playouts (``None``: it has none, or they are
        not to be used), looked up once per game object."""
        if self._capable is not game:
            self._capable = game
            self._probe = probe_of(game)
            self._random_playout = (
                game.random_playout
                if self.game_playouts and isinstance(game, RandomPlayouts)
                else None
            )
        return self._probe, self._random_playout

    # -- the tree between searches ---------------------------------------------------------------

    def _root_for(self, game: Game[Any]) -> Node:
        """The tree's node for ``game``'s position: the old root's descendant when the same
        game object has moved on (or not) into a position the tree holds, else a new root."""
        found = self._follow(game) if game is self._game else None
        if found is not None and found.proven and not found.children:
            found = None  # a leaf the game's probe decided: the root needs its moves' children
        if found is None:
            found = Node(None, -UNKNOWN, UNKNOWN)
            self._size = 1
        else:
            self._size = _count(found)
        self._root, self._game, self._root_game = found, game, game.copy()
        return found

    def _follow(self, game: Game[Any]) -> Node | None:
        """The node of ``game``'s position among the old root's descendants, if any."""
        root, before = self._root, self._root_game
        if root is None or before is None:
            return None
        plies = game.ply() - before.ply()
        if plies < 0:
            return None
        position, key = game.position(), game.key()
        level: list[tuple[Node, tuple[Any, ...]]] = [(root, ())]
        for _ in range(plies):
            level = [(c, (*line, c.move)) for n, line in level for c in n.children]
        for node, line in level:
            for move in line:
                before.make(move)
            same = before.key() == key and before.position() == position
            for _ in line:
                before.undo()
            if same:
                return node
        return None

    # -- results -------------------------------------------------------------------------------

    def _result(
        self,
        game: Game[Any],
        iteration: int,
        simulations: int,
        evaluations: int,
        started: float,
        solving: bool,
        *,
        complete: bool = True,
    ) -> SearchResult[Any]:
        """The search's result so far (see the header for what its value means)."""
        root = self._root_view(game)
        best = best_child(root)
        if root.proven or root.lower >= HEURISTIC_LIMIT:  # exact, or won within some plies
            value = root.lower
        elif root.upper <= -HEURISTIC_LIMIT:
            value = root.upper
        else:
            value = _estimate(best)
        pv: list[Any] = []
        node = best
        while node is not None:
            pv.append(node.move)
            node = best_child(node)
        best_move = best.move if best is not None else game.legal_moves()[0]
        best_moves: tuple[Any, ...] = (best_move,)
        move_values: tuple[tuple[Any, Score], ...] = ()
        solved = root.proven and (not solving or _solved(root))
        if solving:
            values = {c.move: up(c.lower) if c.proven else _estimate(c) for c in root.children}
            move_values = tuple((m, values.get(m, 0)) for m in game.legal_moves())
            if solved:
                best_moves = tuple(m for m, v in move_values if v == value)
        stats = Stats(
            nodes=simulations, evaluations=evaluations, time_s=time.perf_counter() - started
        )
        return SearchResult(
            value,
            best_move,
            best_moves,
            tuple(pv) or (best_move,),
            iteration,
            stats,
            move_values,
            complete=complete,
            solved=solved,
        )


def _ranking(parent: Node) -> Callable[[Node], tuple[bool, bool, Score, bool, int, float]]:
    """How good a child of ``parent`` is to play: when ``parent`` is proven, a child that keeps
    its exact value first; then a proven win (the quicker, the better); then any move not
    proven lost; then the most visited; then the best mean."""
    exact = parent.lower if parent.proven else None

    def rank(child: Node) -> tuple[bool, bool, Score, bool, int, float]:
        pessimistic = up(child.upper)
        won = pessimistic >= HEURISTIC_LIMIT
        lost = up(child.lower) <= -HEURISTIC_LIMIT
        keeps = exact is not None and pessimistic == exact
        return keeps, won, pessimistic if won else 0, not lost, child.visits, child.mean()

    return rank


def decisive_moves(game: Game[Any], moves: list[Any]) -> list[Any]:
    """What a decisive playout picks from in ``game`` (not over; ``moves`` its legal moves): the
    first move that wins at once, alone; else the moves after which the opponent cannot win at
    once (a move that ends the game in a draw is one), in the given order; else, every move
    losing, all of them. Leaves ``game`` as it was."""
    safe = []
    for move in moves:
        game.make(move)
        outcome = game.outcome()
        if outcome is not None:
            game.undo()
            if outcome == Outcome.LOSS:  # for the side to move after the move: a win
                return [move]
            safe.append(move)
            continue
        threatened = False
        for reply in game.legal_moves():
            game.make(reply)
            threatened = game.outcome() == Outcome.LOSS
            game.undo()
            if threatened:
                break
        game.undo()
        if not threatened:
            safe.append(move)
    return safe or moves


def best_child(node: Node) -> Node | None:
    """The child to play from ``node`` (see :func:`_ranking`); ``None`` for a leaf. The
    compiled engine ranks its children with it too."""
    return max(node.children, key=_ranking(node), default=None)


def _estimate(child: Node | None) -> Score:
    """A child's mean reward as a value for its parent (see ``VALUE_SCALE``)."""
    return 0 if child is None else round(child.mean() * VALUE_SCALE)


def _squash(evaluation: Score) -> float:
    """A heuristic evaluation as a reward in ``(-1, 1)``."""
    return math.tanh(evaluation / EVALUATION_SCALE)


def _solved(root: Node) -> bool:
    """Whether the root and every root move are proven (what :meth:`MctsEngine.solve` needs)."""
    return (
        root.untried is not None
        and not root.untried
        and all(child.proven for child in root.children)
    )


def _count(node: Node) -> int:
    """The nodes in ``node``'s subtree, itself included."""
    count, stack = 0, [node]
    while stack:
        current = stack.pop()
        count += 1
        stack.extend(current.children)
    return count


def compare_row(
    game: Game[Any],
    simulations: int,
    *,
    depth: int,
    seed: int = 0,
    stop: Callable[[], bool] | None = None,
) -> CompareRow[Any]:
    """MCTS as one more row of the teaching table (:func:`zerosum.search.compare.compare`):
    ``simulations`` random playouts from ``game`` (a budget the caller matches to the
    alpha-beta rows' nodes), seeded. Its value is the proven one if the solver proved the root,
    else the mean reward x100; ``depth`` only labels the row, as MCTS has no horizon."""
    engine = MctsEngine(seed=seed)
    result = engine.search(game, Limit(nodes=max(simulations, 1), stop=stop))
    return CompareRow(
        algorithm="mcts",
        table="tree",
        best="one",
        depth=depth,
        value=result.value,
        best_moves=result.best_moves,
        stats=result.stats,
        complete=result.complete or result.stats.nodes >= simulations,
    )

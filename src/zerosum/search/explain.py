"""The search tree of a small search, recorded node by node so a front end can draw it.

:func:`explain` runs seed 001's alpha-beta (or the reference minimax, to see what alpha-beta
saved) on a position to a small depth and returns every node it visited: the move that led
there, the value, the window it was searched with, whether its move loop was cut off, and the
moves the cut-off left unsearched ("pruned" nodes, drawn red in the seed). The chosen path (the
principal variation, green in the seed) is marked.

The recording is a traced twin of the real node functions, not a hook inside them: the
reference algorithms stay free of display code. It walks the same moves in the same order with
the same windows as :func:`zerosum.search.algorithms.alphabeta` and
:func:`~zerosum.search.algorithms.minimax` driven by :func:`zerosum.search.search`, and with
``table=True`` it probes and fills the same kind of table (alpha-beta's transposition table,
minimax's memo) at the same nodes, so its value, best move, node count, cutoff count and table
hits equal theirs (the tests check it). Nodes the table settles are drawn as such.

Values and windows are given from the root player's point of view, as the seed draws them: MAX
nodes (the root player to move) take the largest child, MIN nodes the smallest.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Final, Generic, TypeVar

from zerosum.game import INFINITY, Game, Score, ZerosumError, no_moves_error, terminal_score
from zerosum.markup import notice_svg, scrolling
from zerosum.search.algorithms import MEMO_LIMIT
from zerosum.search.core import from_table, to_table
from zerosum.search.table import DEFAULT_ENTRIES, TranspositionTable
from zerosum.search.table import Bound as TableBound
from zerosum.search.tree_drawing import tree_svg

M = TypeVar("M")

MAX_TREE_NODES: Final = 5_000
"""The largest tree :func:`explain` records by default (a drawing past this is unreadable)."""

EXPLAINED: Final = ("alphabeta", "minimax")
"""The algorithms whose tree :func:`explain` can record."""


class ExplainError(ZerosumError, ValueError):
    """A tree that cannot be recorded: unknown algorithm, bad depth, or too many nodes."""


class TreeTooLargeError(ExplainError):
    """The tree asked for has more nodes than the caller allowed."""


class Kind(Enum):
    """What a node of the tree is."""

    INNER = "inner"
    """Searched by its children."""
    HORIZON = "horizon"
    """At depth 0: valued by the game's heuristic evaluation."""
    TERMINAL = "terminal"
    """The game is over here: a win, loss or draw."""
    PRUNED = "pruned"
    """Never visited: a cutoff above left it out (no value, no window)."""
    TABLE = "table"
    """Settled by the table (or memo): an entry from a transposition of an earlier subtree
    gave its value, or a bound outside its window, so its moves were not searched."""


class Bound(Enum):
    """How a node's value relates to its true minimax value (alpha-beta is fail-soft)."""

    EXACT = "exact"
    LOWER = "lower"
    """The true value is at least ``value`` (from the root player's point of view)."""
    UPPER = "upper"
    """The true value is at most ``value``."""


@dataclass(frozen=True)
class TreeNode(Generic[M]):
    """One node of a recorded search tree (values from the root player's point of view)."""

    move: M | None
    """The move that led here; ``None`` at the root."""
    maximizing: bool
    """True when the root player is to move here (a MAX node)."""
    kind: Kind
    value: Score | None
    """The node's value as the search returned it; ``None`` for a pruned node."""
    bound: Bound
    """Whether ``value`` is exact or only a bound (alpha-beta's fail-soft results)."""
    alpha: Score | None
    """The lower end of the window the node was searched with; ``None`` for minimax."""
    beta: Score | None
    """The upper end of the window; ``None`` for minimax."""
    cutoff: bool
    """True when the move loop stopped early: the children after the cutting one are pruned."""
    chosen: bool
    """True on the chosen path: the root and its principal variation."""
    children: tuple[TreeNode[M], ...]
    name: str | None = None
    """``move`` in the game's notation (``None`` at the root)."""


@dataclass(frozen=True)
class Tree(Generic[M]):
    """A recorded search of one position."""

    algorithm: str
    depth: int
    root: TreeNode[M]
    value: Score
    """The root's value from the side to move's point of view (the search's result)."""
    best_move: M | None
    pv: tuple[M, ...]
    """The chosen path's moves."""
    nodes: int
    """Nodes visited, the root included (pruned nodes are not visited)."""
    cutoffs: int
    """Nodes whose move loop stopped early."""
    pruned: int
    """Moves left unsearched by those cutoffs."""
    table: bool = False
    """Searched with the algorithm's table (alpha-beta's transposition table, minimax's memo)."""
    table_hits: int = 0
    """Table lookups that found the position (settling it or not), as the search counts them."""

    def svg(self, *, max_nodes: int = MAX_TREE_NODES) -> str:
        """The tree drawn as SVG, as the web app draws it (:mod:`zerosum.search.tree_drawing`);
        raises :class:`TreeTooLargeError` when it holds more than ``max_nodes`` nodes, the
        pruned ones included."""
        size = self.nodes + self.pruned
        if size > max_nodes:
            raise TreeTooLargeError(
                f"the tree has {size:,} nodes, more than {max_nodes:,} to draw: "
                "expected a smaller depth, or a larger max_nodes"
            )
        return tree_svg(self)

    def _repr_svg_(self) -> str:
        """The drawing of :meth:`svg`, or a note when it is too large."""
        try:
            return self.svg()
        except TreeTooLargeError as error:
            return notice_svg(str(error))

    def _repr_html_(self) -> str:
        """The drawing at its full size in a box that scrolls sideways (what Jupyter shows: a
        wide tree shrunk to the page's width would be unreadable)."""
        return scrolling(self._repr_svg_())


@dataclass
class _Recorder(Generic[M]):
    game: Game[M]
    max_nodes: int
    prune: bool
    table: TranspositionTable[M] | None = None
    """Alpha-beta's table, as :func:`~zerosum.search.algorithms.alphabeta` uses it."""
    memo: dict[tuple[int, int], Score] | None = None
    """Minimax's memo of exact values by (key, depth), as the reference forms keep it."""
    nodes: int = 0
    cutoffs: int = 0
    pruned: int = 0
    table_hits: int = 0

    def lookup(self, depth: int, alpha: Score, beta: Score, ply: int) -> tuple[Score, Bound] | None:
        """A value the table settles the node with (from the side to move, with its bound from
        the side to move), as the real node functions probe it; ``None`` if it does not."""
        key = self.game.key()
        if self.memo is not None:
            known = self.memo.get((key, depth))
            if known is None:
                return None
            self.table_hits += 1
            return from_table(known, ply), Bound.EXACT
        if self.table is None:
            return None
        entry = self.table.probe(key)
        if entry is None:
            return None
        self.table_hits += 1
        if entry.depth < depth:
            return None
        score = from_table(entry.score, ply)
        if entry.bound == TableBound.EXACT:
            return score, Bound.EXACT
        if entry.bound == TableBound.LOWER and score >= beta:
            return score, Bound.LOWER
        if entry.bound == TableBound.UPPER and score <= alpha:
            return score, Bound.UPPER
        return None

    def remember(
        self, depth: int, best: Score, alpha: Score, beta: Score, move: M | None, ply: int
    ) -> None:
        """Store a searched node as the real node functions do (``alpha`` as on entry)."""
        key = self.game.key()
        if self.memo is not None:
            if len(self.memo) >= MEMO_LIMIT:
                self.memo.clear()
            self.memo[key, depth] = to_table(best, ply)
        elif self.table is not None:
            self.table.store(
                key, depth, to_table(best, ply), TableBound.of(best, alpha, beta), move
            )

    def visit(self) -> None:
        self.nodes += 1
        if self.nodes > self.max_nodes:
            raise TreeTooLargeError(
                f"the tree has more than {self.max_nodes:,} nodes: expected a smaller depth"
            )

    def node(
        self,
        move: M | None,
        depth: int,
        alpha: Score,
        beta: Score,
        ply: int,
        name: str | None = None,
    ) -> tuple[Score, TreeNode[M]]:
        """Search the current position as fail-soft alpha-beta in negamax form (or plain
        negamax when not pruning); returns the side to move's value and the recorded node
        (``name``: ``move`` in the game's notation).

        The recorded value and window are turned to the root player's point of view.
        """
        self.visit()
        game = self.game
        sign = 1 if ply % 2 == 0 else -1
        alpha_on_entry = alpha
        outcome = game.outcome()
        children: list[TreeNode[M]] = []
        cutoff = False
        # the root is searched move by move by the driver, which looks nothing up there
        settled = (
            None
            if outcome is not None or depth <= 0 or ply == 0
            else (self.lookup(depth, alpha, beta, ply))
        )
        if outcome is not None:
            kind, best = Kind.TERMINAL, terminal_score(outcome, ply)
        elif depth <= 0:
            kind, best = Kind.HORIZON, game.evaluate()
        elif settled is not None:
            kind, best = Kind.TABLE, settled[0]
        else:
            kind, best, best_move = Kind.INNER, -INFINITY, None
            moves = game.legal_moves()
            if not moves:
                raise no_moves_error(game)
            for index, child_move in enumerate(moves):
                child_name = game.format_move(child_move)
                game.make(child_move)
                value, child = self.node(child_move, depth - 1, -beta, -alpha, ply + 1, child_name)
                value = -value
                game.undo()
                children.append(child)
                if value > best:
                    best, best_move = value, child_move
                    if self.prune and value > alpha:
                        alpha = value
                        if value >= beta:
                            cutoff = True
                            self.cutoffs += 1
                            children.extend(
                                self.pruned_node(m, ply + 1) for m in moves[index + 1 :]
                            )
                            break
            if ply > 0:
                self.remember(depth, best, alpha_on_entry, beta, best_move, ply)
        bound = Bound.EXACT
        if settled is not None and settled[1] is not Bound.EXACT:
            bound = settled[1] if sign > 0 else _FLIPPED[settled[1]]
        if self.prune and kind is Kind.INNER:
            if best <= alpha_on_entry:
                bound = Bound.UPPER if sign > 0 else Bound.LOWER
            elif best >= beta:
                bound = Bound.LOWER if sign > 0 else Bound.UPPER
        window_alpha, window_beta = (alpha_on_entry, beta) if sign > 0 else (-beta, -alpha_on_entry)
        record = TreeNode(
            move=move,
            maximizing=sign > 0,
            kind=kind,
            value=sign * best,
            bound=bound,
            alpha=window_alpha if self.prune else None,
            beta=window_beta if self.prune else None,
            cutoff=cutoff,
            chosen=False,
            children=tuple(children),
            name=name,
        )
        return best, record

    def pruned_node(self, move: M, ply: int) -> TreeNode[M]:
        self.pruned += 1
        name = self.game.format_move(move)
        return TreeNode(
            move, ply % 2 == 0, Kind.PRUNED, None, Bound.EXACT, None, None, False, False, (), name
        )


_FLIPPED: Final = {Bound.LOWER: Bound.UPPER, Bound.UPPER: Bound.LOWER, Bound.EXACT: Bound.EXACT}
"""A bound from the side to move seen from the other side."""


def _best_child(node: TreeNode[M]) -> TreeNode[M] | None:
    """The first child whose value decided the node's value (the move the search kept)."""
    for child in node.children:
        if child.kind is not Kind.PRUNED and child.value == node.value:
            return child
    return None


def _mark_chosen(node: TreeNode[M]) -> tuple[TreeNode[M], tuple[M, ...]]:
    """The node with its chosen path marked, and that path's moves."""
    best = _best_child(node)
    if best is None:
        return _replace(node, node.children), ()
    marked, line = _mark_chosen(best)
    children = tuple(marked if child is best else child for child in node.children)
    assert marked.move is not None
    return _replace(node, children), (marked.move, *line)


def _replace(node: TreeNode[M], children: tuple[TreeNode[M], ...]) -> TreeNode[M]:
    return TreeNode(
        node.move,
        node.maximizing,
        node.kind,
        node.value,
        node.bound,
        node.alpha,
        node.beta,
        node.cutoff,
        True,
        children,
        node.name,
    )


def explain(
    game: Game[M],
    depth: int,
    *,
    algorithm: str = "alphabeta",
    table: bool = False,
    max_nodes: int = MAX_TREE_NODES,
) -> Tree[M]:
    """Record the tree of ``algorithm`` (``alphabeta`` or ``minimax``) searching ``game`` to
    ``depth`` plies, without or with (``table``) its table: alpha-beta's transposition table,
    minimax's memo, fresh for this search. Nodes the table settles are :attr:`Kind.TABLE`.

    Raises :class:`TreeTooLargeError` when the search visits more than ``max_nodes`` nodes,
    :class:`ExplainError` for an unknown algorithm or a depth below 1, and
    :class:`~zerosum.game.ProtocolError` at a position with no legal move that is not over. The
    game is left as it was.
    """
    if algorithm not in EXPLAINED:
        raise ExplainError(
            f"unknown algorithm {algorithm!r} for a tree: expected one of {', '.join(EXPLAINED)}"
        )
    if depth < 1:
        raise ExplainError(f"depth {depth} is out of range: expected 1 or more")
    prune = algorithm == "alphabeta"
    recorder = _Recorder(
        game,
        max_nodes,
        prune=prune,
        table=TranspositionTable(DEFAULT_ENTRIES) if table and prune else None,
        memo={} if table and not prune else None,
    )
    if recorder.table is not None:
        recorder.table.new_search()  # as the driver starts every search
    ply = game.ply()
    try:
        value, root = recorder.node(None, depth, -INFINITY, INFINITY, 0)
    finally:
        while game.ply() > ply:
            game.undo()
    root, pv = _mark_chosen(root)
    return Tree(
        algorithm=algorithm,
        depth=depth,
        root=root,
        value=value,
        best_move=pv[0] if pv else None,
        pv=pv,
        nodes=recorder.nodes,
        cutoffs=recorder.cutoffs,
        pruned=recorder.pruned,
        table=table,
        table_hits=recorder.table_hits,
    )

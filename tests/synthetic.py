"""A synthetic random game for property tests: random branching, leaf values and transpositions.

A node is ``(level, index)``. Its moves, its children, whether it is finished (and how) and its
heuristic value are all drawn from a hash of the game's seed and the node, so the game is a fixed
random tree per seed. Children are drawn from only ``width`` indices per level, so different
paths meet in the same node: transpositions, always at the same level (a search of fixed depth
from the start therefore reaches a node with one remaining depth only).
"""

from __future__ import annotations

from typing import Self

from zerosum.game import MoveError, Outcome, Score

MASK = (1 << 64) - 1


def mix(*parts: int) -> int:
    """A 64-bit hash of some integers (splitmix64 over their sum chain)."""
    value = 0x9E3779B97F4A7C15
    for part in parts:
        value = (value ^ (part & MASK)) * 0xBF58476D1CE4E5B9 & MASK
        value = (value ^ (value >> 31)) * 0x94D049BB133111EB & MASK
        value ^= value >> 29
    return value


class RandomGame:
    """A random game tree (implements :class:`zerosum.game.Game`)."""

    name = "random"

    def __init__(self, seed: int, *, width: int = 4, max_branching: int = 4) -> None:
        self.seed = seed
        self.width = width
        self.max_branching = max_branching
        self._path = [0]

    def _node(self) -> tuple[int, int]:
        return len(self._path) - 1, self._path[-1]

    def _draw(self, salt: int) -> int:
        level, index = self._node()
        return mix(self.seed, level, index, salt)

    def side_to_move(self) -> int:
        return (len(self._path) - 1) & 1

    def ply(self) -> int:
        return len(self._path) - 1

    def outcome(self) -> Outcome | None:
        if len(self._path) > 1 and self._draw(1) % 6 == 0:  # one node in six is finished
            return Outcome(self._draw(2) % 3 - 1)
        return None

    def legal_moves(self) -> list[int]:
        if self.outcome() is not None:
            return []
        return list(range(1 + self._draw(3) % self.max_branching))

    def make(self, move: int) -> None:
        level, index = self._node()
        self._path.append(mix(self.seed, level, index, move, 4) % self.width)

    def undo(self) -> None:
        self._path.pop()

    def evaluate(self) -> Score:
        return self._draw(5) % 201 - 100

    compute_evaluation = evaluate

    def key(self) -> int:
        level, index = self._node()
        return mix(level, index)

    compute_key = key

    def copy(self) -> Self:
        twin = type(self)(self.seed, width=self.width, max_branching=self.max_branching)
        twin._path = list(self._path)
        return twin

    def parse_move(self, text: str) -> int:
        if not text.isdigit() or int(text) not in self.legal_moves():
            raise MoveError(f"{text!r} is not a legal move: expected one of {self.legal_moves()}")
        return int(text)

    def format_move(self, move: int) -> str:
        return str(move)

    def position(self) -> str:
        return "/".join(map(str, self._path))

    def render(self) -> str:
        return self.position()


class StuckGame(RandomGame):
    """A :class:`RandomGame` that breaks rule 1 of the protocol: from ``stuck_at`` plies on, a
    position has no legal moves yet is not over (a game that forgot that a pass is a move)."""

    name = "stuck"

    def __init__(
        self, seed: int, *, stuck_at: int = 2, width: int = 4, max_branching: int = 4
    ) -> None:
        super().__init__(seed, width=width, max_branching=max_branching)
        self.stuck_at = stuck_at

    def outcome(self) -> Outcome | None:
        return None if self.ply() >= self.stuck_at else super().outcome()

    def legal_moves(self) -> list[int]:
        return [] if self.ply() >= self.stuck_at else super().legal_moves()

    def copy(self) -> Self:
        twin = type(self)(
            self.seed, stuck_at=self.stuck_at, width=self.width, max_branching=self.max_branching
        )
        twin._path = list(self._path)
        return twin


class Nim:
    """A subtraction game (implements :class:`zerosum.game.Game`): heaps of stones, a move takes
    1 to ``most`` stones from one heap, and the player who cannot move loses. A heap of ``n``
    has Grundy value ``n % (most + 1)``, so the side to move wins exactly when the heaps' Grundy
    values do not xor to 0: a known result for the solvers. Moves are ``(heap, stones)``."""

    name = "nim"

    def __init__(self, heaps: tuple[int, ...], *, most: int = 3) -> None:
        self.heaps = list(heaps)
        self.most = most
        self._history: list[tuple[int, int]] = []

    def first_player_wins(self) -> bool:
        grundy = 0
        for heap in self.heaps:
            grundy ^= heap % (self.most + 1)
        return grundy != 0

    def side_to_move(self) -> int:
        return len(self._history) & 1

    def ply(self) -> int:
        return len(self._history)

    def outcome(self) -> Outcome | None:
        return Outcome.LOSS if not any(self.heaps) else None

    def legal_moves(self) -> list[tuple[int, int]]:
        return [
            (heap, take)
            for heap, stones in enumerate(self.heaps)
            for take in range(1, min(stones, self.most) + 1)
        ]

    def make(self, move: tuple[int, int]) -> None:
        self.heaps[move[0]] -= move[1]
        self._history.append(move)

    def undo(self) -> None:
        heap, take = self._history.pop()
        self.heaps[heap] += take

    def evaluate(self) -> Score:
        return 0

    compute_evaluation = evaluate

    def key(self) -> int:
        return mix(self.side_to_move(), *self.heaps)

    compute_key = key

    def copy(self) -> Self:
        twin = type(self)(tuple(self.heaps), most=self.most)
        twin._history = list(self._history)
        return twin

    def parse_move(self, text: str) -> tuple[int, int]:
        heap, _, take = text.partition(":")
        if heap.isdigit() and take.isdigit() and (int(heap), int(take)) in self.legal_moves():
            return int(heap), int(take)
        raise MoveError(f"{text!r} is not a legal move: expected HEAP:STONES")

    def format_move(self, move: tuple[int, int]) -> str:
        return f"{move[0]}:{move[1]}"

    def position(self) -> str:
        return ",".join(map(str, self.heaps)) + f"/{self.side_to_move()}"

    def render(self) -> str:
        return self.position()

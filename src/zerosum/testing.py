"""The conformance suite as a public function: does a game keep the protocol's promises?

:func:`check_game` plays seeded random games of a :class:`~zerosum.games.GameSpec` and checks,
at every position, each rule that :class:`zerosum.game.Game` states; the search relies on all
of them. A broken rule raises :class:`~zerosum.game.ProtocolError` naming the rule, the game
and the position, so a game developer learns what to fix instead of meeting an ``IndexError``
deep in a search. zerosum's own conformance tests call it for every registered game.
"""

from __future__ import annotations

import pickle
import random
from typing import Any

from zerosum.capabilities import names_depend_on_position
from zerosum.game import HEURISTIC_LIMIT, Game, MoveError, Outcome, ProtocolError, ZerosumError
from zerosum.games import GameSpec, get_game

Snapshot = tuple[Any, ...]


def check_game(spec: GameSpec, *, playouts: int = 20, max_plies: int = 300, seed: int = 0) -> None:
    """Check every protocol rule on ``playouts`` random games of ``spec`` (each cut off after
    ``max_plies`` moves), and on its variants; raise :class:`ProtocolError` at the first rule
    broken. Returns ``None`` when the game conforms."""
    _Checker(spec, seed).run(playouts, max_plies)
    for name in spec.variants:
        check_game(get_game(name), playouts=playouts, max_plies=max_plies, seed=seed)


class _Checker:
    def __init__(self, spec: GameSpec, seed: int) -> None:
        self.spec = spec
        self.rng = random.Random(f"check_game/{spec.name}/{seed}")
        self.names: dict[Any, tuple[str, int]] = {}
        """Each move's name in this playout, and the ply where it was first written."""
        self.positional = False

    def fail(self, rule: str, game: Game[Any] | None = None, detail: str = "") -> ProtocolError:
        where = ""
        if game is not None:
            try:
                where = f" at position {game.position()!r}"
            except Exception:  # the position itself may be what is broken
                where = f" after {game.ply()} plies"
        more = f": {detail}" if detail else ""
        return ProtocolError(f"game {self.spec.name!r} breaks the rule '{rule}'{where}{more}")

    def run(self, playouts: int, max_plies: int) -> None:
        game = self.new()
        if game.outcome() is not None or not game.legal_moves():
            raise self.fail(
                "the starting position is not over",
                game,
                f"outcome {game.outcome()!r} with {len(game.legal_moves())} legal moves",
            )
        self.check_pickles(game)
        self.check_garbage(game)
        for _ in range(playouts):
            self.playout(self.new(), max_plies)
        self.check_copy()

    def new(self) -> Game[Any]:
        try:
            game = self.spec.new()
        except ZerosumError:
            raise
        except Exception as error:
            raise self.fail("new() makes the starting position", None, repr(error)) from error
        if getattr(game, "name", None) != self.spec.name:
            raise self.fail(
                "a game's name is its registry name",
                game,
                f"name is {getattr(game, 'name', None)!r}, expected {self.spec.name!r}",
            )
        return game

    def snapshot(self, game: Game[Any]) -> Snapshot:
        return (game.position(), game.key(), game.side_to_move(), game.ply(), game.outcome())

    def full_snapshot(self, game: Game[Any]) -> Snapshot:
        """What undo must restore: the snapshot, the legal moves (as a set: their order may
        follow move-ordering state) and the board as drawn."""
        moves = game.legal_moves()
        try:
            legal: Any = frozenset(moves)
        except TypeError:  # check_moves names this rule
            legal = tuple(map(repr, moves))
        return (*self.snapshot(game), legal, game.render())

    def playout(self, game: Game[Any], max_plies: int) -> None:
        path = [self.full_snapshot(game)]
        self.names = {}
        self.positional = names_depend_on_position(game)
        for _ in range(max_plies):
            moves = self.check_position(game)
            if not moves:
                break
            move = self.rng.choice(moves)
            side, ply = game.side_to_move(), game.ply()
            game.make(move)
            if game.ply() != ply + 1 or game.side_to_move() == side:
                raise self.fail(
                    "make() of a legal move adds one ply and passes the turn",
                    game,
                    f"after {game.format_move(move)!r}: ply {ply} -> {game.ply()}, "
                    f"side {side} -> {game.side_to_move()}",
                )
            path.append(self.full_snapshot(game))
        fields = ("position", "key", "side", "ply", "outcome", "legal moves", "board")
        while len(path) > 1:
            path.pop()
            game.undo()
            now = self.full_snapshot(game)
            if now != path[-1]:
                wrong = [
                    name for name, was, got in zip(fields, path[-1], now, strict=True) if was != got
                ]
                raise self.fail(
                    "undo() restores the position, key, side and ply exactly, with the "
                    "outcome, legal moves and board",
                    game,
                    f"{', '.join(wrong)} differ: expected {path[-1][:5]!r}, got {now[:5]!r}",
                )

    def check_position(self, game: Game[Any]) -> list[Any]:
        """Every rule about one position; returns its legal moves."""
        key = game.key()
        if key != game.compute_key():
            raise self.fail("key() equals compute_key()", game, f"{key} != {game.compute_key()}")
        if not (isinstance(key, int) and 0 <= key < 1 << 64):
            raise self.fail("a key is a 64-bit unsigned int", game, repr(key))
        value = game.evaluate()
        if value != game.compute_evaluation():
            raise self.fail(
                "evaluate() equals compute_evaluation()",
                game,
                f"{value} != {game.compute_evaluation()}",
            )
        if not -HEURISTIC_LIMIT < value < HEURISTIC_LIMIT:
            raise self.fail(
                "evaluation stays inside (-HEURISTIC_LIMIT, HEURISTIC_LIMIT)",
                game,
                f"evaluate() gave {value}, the limit is {HEURISTIC_LIMIT}",
            )
        moves = list(game.legal_moves())
        outcome = game.outcome()
        if outcome is not None and not isinstance(outcome, Outcome):
            raise self.fail("outcome() is an Outcome or None", game, repr(outcome))
        if outcome is None and not moves:
            raise self.fail(
                "a position with no legal moves is over (a pass is a move)",
                game,
                "legal_moves() is empty but outcome() is None",
            )
        if outcome is not None and moves:
            raise self.fail(
                "a finished game has no legal moves", game, f"outcome {outcome.name}, moves left"
            )
        self.check_moves(game, moves)
        self.check_round_trip(game)
        return moves

    def check_moves(self, game: Game[Any], moves: list[Any]) -> None:
        try:
            distinct = set(moves)
        except TypeError as error:
            raise self.fail("moves are hashable", game, str(error)) from error
        if len(distinct) != len(moves):
            raise self.fail("legal_moves() lists each move once", game)
        for move in moves:
            text = game.format_move(move)
            if not self.positional:
                seen = self.names.get(move)
                if seen is not None and seen[0] != text:
                    raise self.fail(
                        "a move's name does not depend on the position it is written in (or "
                        "the game declares position_dependent_names = True)",
                        game,
                        f"{move!r} is {text!r} here but was {seen[0]!r} at ply {seen[1]}",
                    )
                self.names[move] = (text, game.ply())
            try:
                again = game.parse_move(text)
            except MoveError as error:
                raise self.fail(
                    "parse_move(format_move(m)) == m for every legal move", game, str(error)
                ) from error
            if again != move:
                raise self.fail(
                    "parse_move(format_move(m)) == m for every legal move",
                    game,
                    f"{text!r} parses to {again!r}, not {move!r}",
                )

    def check_round_trip(self, game: Game[Any]) -> None:
        text = game.position()
        try:
            again = self.spec.from_position(text)
        except ZerosumError as error:
            raise self.fail(
                "position() reads back through the spec's from_position", game, str(error)
            ) from error
        if again.position() != text or again.key() != game.key():
            raise self.fail(
                "position() reads back through the spec's from_position",
                game,
                f"read back as {again.position()!r} with key {again.key()}",
            )

    def check_garbage(self, game: Game[Any]) -> None:
        for text in ("", "zz99", "!", "a1-" * 50):
            try:
                game.parse_move(text)
            except MoveError:
                continue
            except Exception as error:
                raise self.fail(
                    "a malformed or illegal move raises MoveError",
                    game,
                    f"{text!r} raised {type(error).__name__}: {error}",
                ) from error
            raise self.fail("a malformed or illegal move raises MoveError", game, f"{text!r}")

    def check_copy(self) -> None:
        game = self.new()
        for _ in range(3):
            moves = game.legal_moves()
            if not moves:
                break
            game.make(self.rng.choice(moves))
        before = self.snapshot(game)
        twin = game.copy()
        moves = twin.legal_moves()
        if self.snapshot(twin) != before:
            raise self.fail("copy() is the same position", game)
        if moves:
            twin.make(self.rng.choice(moves))
            if self.snapshot(game) != before:
                raise self.fail("copy() is independent of the original", game)

    def check_pickles(self, game: Game[Any]) -> None:
        """Worker processes receive games by pickle: the class must be importable by name (a
        class defined inside a function is not)."""
        try:
            again = pickle.loads(pickle.dumps(game))
        except Exception as error:
            raise self.fail(
                "a game pickles, its class importable by worker processes",
                game,
                f"{type(error).__name__}: {error}",
            ) from error
        if again.position() != game.position():
            raise self.fail("a game pickles to the same position", game)


__all__ = ["check_game"]

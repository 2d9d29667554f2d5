"""What a game developer met while bridging OpenSpiel and writing a game from scratch, each fixed
or checked: check_game's stricter undo and start rules, position-dependent move names and the
principal variations that name them, the kernel contract, ``import zerosum.search.perft`` and
the pure-Python solve that searched every line to its end.

Only the last test needs pyspiel; the others hold for any game.
"""

from __future__ import annotations

import dataclasses
import hashlib
from typing import Any, Self

import pytest

from zerosum.compiled.kernels import (
    MAX_MOVE_CODE,
    CompiledGame,
    KernelContractError,
    check_contract,
    check_move_codes,
)
from zerosum.formatting import line_names, result_figures
from zerosum.game import MoveError, Outcome, ProtocolError
from zerosum.games import GameSpec
from zerosum.games.tictactoe import TicTacToe
from zerosum.search.core import Limit
from zerosum.search.driver import search, solve
from zerosum.testing import check_game


def spec_of(factory: Any, name: str = "tictactoe") -> GameSpec:
    return GameSpec(
        name=name,
        title="a test game",
        new=factory,
        from_position=TicTacToe.from_position,
        position_format="",
        sides=("X", "O"),
        levels=(1,),
    )


# -- check_game --------------------------------------------------------------------------


class StickyBoard(TicTacToe):
    """Undo takes the move back but leaves it drawn (dots and boxes through pyspiel's undo)."""

    def make(self, move: int) -> None:
        super().make(move)
        self.__dict__.setdefault("drawn", set()).add(move)

    def render(self) -> str:
        return super().render() + f"\ndrawn {sorted(self.__dict__.get('drawn', ()))}"


class StickyMoves(TicTacToe):
    """Undo takes the move back but the cell stays unavailable."""

    def make(self, move: int) -> None:
        super().make(move)
        self.__dict__.setdefault("used", set()).add(move)

    def legal_moves(self) -> list[int]:
        used = self.__dict__.get("used", set())
        return [move for move in super().legal_moves() if move not in used or self.ply() == 0]


def finished() -> TicTacToe:
    return TicTacToe.from_position("xxx/oo./...")


class Marked(TicTacToe):
    """Names a move with the mark of the side that plays it: ``xb2``, ``ob2``."""

    def format_move(self, move: int) -> str:
        return "xo"[self.side_to_move()] + super().format_move(move)

    def parse_move(self, text: str) -> int:
        if text[:1] != "xo"[self.side_to_move()]:
            raise MoveError(f"{text!r}: expected the mark of the side to move first")
        return super().parse_move(text[1:])


class DeclaredMarked(Marked):
    position_dependent_names = True


@pytest.mark.parametrize(
    ("factory", "words"),
    [
        (StickyBoard, "board differ"),
        (StickyMoves, "legal moves"),
        (finished, "the starting position is not over"),
        (Marked, "a move's name does not depend on the position"),
    ],
    ids=["board", "moves", "over", "names"],
)
def test_check_game_names_what_the_game_breaks(factory: Any, words: str) -> None:
    with pytest.raises(ProtocolError) as caught:
        check_game(spec_of(factory), playouts=5, seed=4)
    assert words in str(caught.value)


def test_a_game_that_declares_positional_names_passes() -> None:
    check_game(spec_of(DeclaredMarked), playouts=5, seed=4)


def test_a_principal_variation_is_named_where_each_move_is_played() -> None:
    game = DeclaredMarked()
    found = search(game, limit=Limit(depth=4))
    names = line_names(game, found.pv)
    assert [name[0] for name in names] == ["x", "o", "x", "o"]
    assert result_figures(game, found)["pv"] == names
    assert found.named(game).pv_notation == tuple(names)
    assert game.ply() == 0  # left as it was


# -- the kernel contract -----------------------------------------------------------------


def _mapping_with(moves: Any) -> CompiledGame:
    from zerosum.compiled.tictactoe import GAME

    return dataclasses.replace(
        GAME, kernel=dataclasses.replace(GAME.kernel, moves=moves, legal=None)
    )


def test_a_kernel_whose_move_codes_are_not_the_games_moves_is_refused() -> None:
    def too_big(state: Any, out: Any) -> int:
        out[0] = MAX_MOVE_CODE
        return 1

    def not_a_move(state: Any, out: Any) -> int:
        out[0] = 9
        return 1

    with pytest.raises(KernelContractError, match=r"expected codes 0\.\.65535"):
        check_contract("tictactoe", _mapping_with(too_big), TicTacToe())
    with pytest.raises(KernelContractError, match="must equal the game's moves"):
        check_contract("tictactoe", _mapping_with(not_a_move), TicTacToe())
    game = TicTacToe()
    check_move_codes("tictactoe", game, game.legal_moves(), every=True)
    with pytest.raises(KernelContractError, match="same order"):
        check_move_codes("tictactoe", game, sorted(game.legal_moves()), every=True)


def test_compiled_mcts_refuses_a_kernel_whose_codes_are_not_the_games_moves(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from zerosum.engines import mcts_compiled

    def not_a_move(state: Any, out: Any) -> int:
        out[0] = 9
        return 1

    monkeypatch.setattr(mcts_compiled, "compiled_game", lambda name: _mapping_with(not_a_move))
    monkeypatch.setattr(mcts_compiled, "has_compiled_mcts", lambda name: True)
    with pytest.raises(KernelContractError, match="must equal the game's moves"):
        mcts_compiled.CompiledMctsEngine("tictactoe")


def test_the_built_in_kernels_keep_the_contract() -> None:
    from zerosum.compiled.tictactoe import GAME

    check_contract("tictactoe", GAME, TicTacToe())


# -- imports -----------------------------------------------------------------------------


def test_search_submodules_import_by_their_dotted_names() -> None:
    import zerosum
    import zerosum.search.driver as driver
    import zerosum.search.perft as perft

    assert perft.perft(TicTacToe(), 1) == 9
    assert zerosum.search.driver is driver
    assert zerosum.search(TicTacToe(), limit=Limit(depth=1)).best_move is not None


# -- solve stops when every root move is proven ------------------------------------------

LONG = 60


class Detour:
    """The first player wins at once (move 0) or takes a detour (1), after which the second
    player wins at once (0) or starts a forced line of ``LONG`` plies that ends in a draw."""

    name = "detour"

    def __init__(self) -> None:
        self.path: list[int] = []

    def legal_moves(self) -> list[int]:
        if self.outcome() is not None:
            return []
        return [0, 1] if len(self.path) < 2 else [2]

    def make(self, move: int) -> None:
        self.path.append(move)

    def undo(self) -> None:
        self.path.pop()

    def side_to_move(self) -> int:
        return len(self.path) % 2

    def ply(self) -> int:
        return len(self.path)

    def outcome(self) -> Outcome | None:
        if self.path and self.path[-1] == 0:
            return Outcome.LOSS
        return Outcome.DRAW if len(self.path) == 2 + LONG else None

    def evaluate(self) -> int:
        return 0

    compute_evaluation = evaluate

    def key(self) -> int:
        return int.from_bytes(hashlib.blake2b(bytes(self.path), digest_size=8).digest(), "big")

    compute_key = key

    def copy(self) -> Self:
        twin = type(self)()
        twin.path = list(self.path)
        return twin

    def parse_move(self, text: str) -> int:
        return int(text)

    def format_move(self, move: int) -> str:
        return str(move)

    def position(self) -> str:
        return "".join(map(str, self.path))

    def render(self) -> str:
        return self.position()


@pytest.mark.parametrize("algorithm", ["engine", "alphabeta"])
def test_solve_stops_at_the_depth_that_proves_every_root_move(algorithm: str) -> None:
    """The detour is a loss in 2 plies; the old solve searched its drawn line to the end (62
    plies deep) because an iteration that evaluated anything was not counted as solved."""
    found = solve(Detour(), algorithm=algorithm)
    assert found.solved and dict(found.move_values) == {0: 999_999, 1: -999_998}
    assert found.depth == 2
    assert found.stats.nodes < 20
    proof = search(Detour(), algorithm=algorithm)
    assert proof.solved and proof.value == found.value


def test_solve_is_exact_where_the_old_one_was() -> None:
    pyspiel = pytest.importorskip("pyspiel")
    del pyspiel
    from zerosum import get_game

    found = solve(get_game("openspiel:breakthrough(rows=4,columns=4)").new())
    assert found.solved and found.value == 999_989
    # the depth of the longest proven root move (a loss in 12), not the end of every line
    assert found.depth == 12
    assert max(v for _, v in found.move_values if v < 0) == -999_988
    # the values the old solve found after 370,830 nodes, in 90,909 nodes
    assert (
        sorted(v for _, v in found.move_values) == [-999_992] * 6 + [-999_988] * 2 + [999_989] * 2
    )
    assert found.stats.nodes < 200_000

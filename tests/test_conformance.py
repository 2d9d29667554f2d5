"""The conformance suite every registered game must pass, and what it says about broken games."""

from __future__ import annotations

from typing import Any

import pytest

from zerosum.game import HEURISTIC_LIMIT, ProtocolError
from zerosum.games import GAMES, GameSpec, get_game
from zerosum.games.tictactoe import TicTacToe
from zerosum.testing import check_game

GAME_SPECS = [
    *GAMES.values(),
    *(get_game(name) for spec in GAMES.values() for name in spec.variants),
]
"""Every registered game (plugins included) and every named variant of one."""


@pytest.mark.parametrize(
    "spec",
    [
        # chess plays its random games through python-chess: the slow set's half minute
        pytest.param(spec, id=spec.name, marks=[pytest.mark.slow] if spec.name == "chess" else [])
        for spec in GAME_SPECS
    ],
)
def test_every_registered_game_conforms(spec: GameSpec) -> None:
    check_game(spec, playouts=60, max_plies=1000, seed=2026)


class NoPass(TicTacToe):
    """Has no legal moves once the centre is taken, yet the game goes on."""

    def legal_moves(self) -> list[int]:
        return [] if "x" in self.position()[4:6] else super().legal_moves()


class Overconfident(TicTacToe):
    def evaluate(self) -> int:
        return HEURISTIC_LIMIT

    def compute_evaluation(self) -> int:
        return HEURISTIC_LIMIT


class ForgetfulUndo(TicTacToe):
    """Undo takes the move back but keeps a stale key."""

    def undo(self) -> None:
        key = self.key()
        super().undo()
        self._stale = key

    def key(self) -> int:
        return getattr(self, "_stale", None) or super().key()


class ListMoves(TicTacToe):
    def legal_moves(self) -> list[Any]:
        return [[move] for move in super().legal_moves()]

    def format_move(self, move: Any) -> str:
        return super().format_move(move[0] if isinstance(move, list) else move)


def spec_of(factory: Any) -> GameSpec:
    return GameSpec(
        name="tictactoe",
        title="broken",
        new=factory,
        from_position=TicTacToe.from_position,
        position_format="",
        sides=("X", "O"),
        levels=(1,),
    )


@pytest.mark.parametrize(
    ("factory", "rule"),
    [
        (NoPass, "a position with no legal moves is over (a pass is a move)"),
        (Overconfident, "evaluation stays inside (-HEURISTIC_LIMIT, HEURISTIC_LIMIT)"),
        (ForgetfulUndo, "undo() restores the position, key, side and ply exactly"),
        (ListMoves, "moves are hashable"),
    ],
    ids=lambda value: value.__name__ if isinstance(value, type) else "",
)
def test_a_broken_game_is_named_with_the_rule_it_breaks(factory: Any, rule: str) -> None:
    with pytest.raises(ProtocolError, match="breaks the rule") as caught:
        check_game(spec_of(factory), playouts=5)
    assert rule in str(caught.value)
    assert "'tictactoe'" in str(caught.value)


def test_a_game_class_that_workers_cannot_import_is_named() -> None:
    class Local(TicTacToe):  # defined in a function: pickle cannot find it by name
        pass

    with pytest.raises(ProtocolError, match="pickles"):
        check_game(spec_of(Local), playouts=1)


def test_a_spec_whose_game_has_another_name_is_named() -> None:
    spec = GameSpec(
        name="noughts",
        title="renamed",
        new=TicTacToe,
        from_position=TicTacToe.from_position,
        position_format="",
        sides=("X", "O"),
        levels=(1,),
    )
    with pytest.raises(ProtocolError, match="name is its registry name"):
        check_game(spec, playouts=1)

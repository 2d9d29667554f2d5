"""OpenSpiel's games in zerosum (the bridge) and zerosum's engines in OpenSpiel (the bot)."""

from __future__ import annotations

import json
import pickle
import random
import subprocess
import sys
from typing import Any

import pytest

pyspiel = pytest.importorskip("pyspiel")

from open_spiel.python.algorithms import evaluate_bots  # noqa: E402
from waiting import HANG_S  # noqa: E402

from zerosum import Limit, get_game, search  # noqa: E402
from zerosum.cli import main  # noqa: E402
from zerosum.formatting import line_names, result_figures  # noqa: E402
from zerosum.game import MoveError, PositionError, ZerosumError  # noqa: E402
from zerosum.games import GAMES  # noqa: E402
from zerosum.games.openspiel import (  # noqa: E402
    MCTS_LEVELS,
    SEARCH_LEVELS,
    IneligibleGameError,
    OpenSpielGame,
    clamp,
    register_evaluation,
    unregister_evaluation,
)
from zerosum.openspiel import Bot  # noqa: E402
from zerosum.testing import check_game  # noqa: E402


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


# -- the registry and eligibility --------------------------------------------------------


def test_openspiel_is_registered_and_its_variants_are_pyspiel_game_strings() -> None:
    assert "openspiel" in GAMES
    spec = get_game("openspiel:hex(board_size=5)")
    assert spec.name == "openspiel:hex(board_size=5)"
    assert spec.play_engine == "mcts"  # pyspiel offers no evaluation
    assert spec.levels == MCTS_LEVELS
    game = spec.new()
    assert game.name == spec.name
    assert [game.format_move(move) for move in game.legal_moves()[:3]] == ["a1", "b1", "c1"]
    assert get_game("openspiel").new().name == "openspiel"  # plain: tic-tac-toe
    assert get_game("openspiel:tic_tac_toe").name == "openspiel"


@pytest.mark.parametrize(
    ("name", "words"),
    [
        ("openspiel:kuhn_poker", "lacks determinism (it has chance events), perfect information"),
        ("openspiel:goofspiel", "sequential moves"),
        ("openspiel:bogus", "OpenSpiel has no game 'bogus'"),
        ("openspiel:hex(foo=1)", "Unknown parameter 'foo'"),
        ("openspiel:checkers(rows=6,columns=6)", "is over at the start"),
    ],
)
def test_a_game_zerosum_cannot_search_is_refused_in_one_line(name: str, words: str) -> None:
    with pytest.raises(IneligibleGameError) as caught:
        get_game(name)
    assert words in str(caught.value)
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize(
    ("game", "words"),
    [
        # issue 24: each of these reached pyspiel in this process
        ("connect_four(rows=0)", "it crashed pyspiel (SIGSEGV)"),  # a segmentation fault
        ("connect_four(rows=-1)", "it needs more than 2 GB"),  # a ValueError traceback
        ("hex(board_size=100000)", "1,410,065,408 distinct actions: expected at most 65,536"),
        ("hex(board_size=300)", "90,000 distinct actions"),  # 22 GB and the OOM killer (web)
        ("hex(board_size=-1)", "has no legal action but is not over"),
    ],
)
def test_parameters_that_break_pyspiel_are_refused_in_one_line(game: str, words: str) -> None:
    """pyspiel believes its parameters: a game with parameters is tried in a child process,
    bounded in memory and time, before this process loads it."""
    done = subprocess.run(
        [sys.executable, "-m", "zerosum", "legal", f"openspiel:{game}"],
        capture_output=True,
        text=True,
        timeout=HANG_S,
    )
    assert done.returncode == 2, done
    assert done.stderr.startswith(f"zerosum: error: OpenSpiel cannot load '{game}': ")
    assert words in done.stderr and done.stderr.count("\n") == 1, done.stderr


def test_the_cli_refuses_an_ineligible_game_without_a_traceback(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, _, err = run(capsys, "analyze", "openspiel:leduc_poker", "--depth", "1")
    assert status != 0
    assert "lacks determinism" in err and "Traceback" not in err


# -- the protocol ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name",
    [
        "openspiel:hex(board_size=3)",
        "openspiel:breakthrough(rows=4,columns=4)",
        "openspiel:dots_and_boxes",  # a player may act twice: moves are whole turns
        "openspiel:connect_four",
        "openspiel:nim",
    ],
)
def test_bridged_games_conform(name: str) -> None:
    check_game(get_game(name), playouts=4, max_plies=80, seed=1)


def test_positions_are_action_histories_and_round_trip() -> None:
    spec = get_game("openspiel:connect_four")
    game = spec.new()
    for text in ("x3", "o3", "x4"):
        game.make(game.parse_move(text))
    assert game.position() == "3 3 4"
    again = spec.from_position("3 3 4")
    assert again.key() == game.key() and again.render() == game.render()
    assert again.side_to_move() == 1 and again.ply() == 3
    with pytest.raises(PositionError, match="not legal"):
        spec.from_position("3 3 99")
    with pytest.raises(PositionError, match="not an action number"):
        spec.from_position("3 x")


def test_a_turn_of_several_actions_is_one_move_and_positions_end_between_turns() -> None:
    spec = get_game("openspiel:dots_and_boxes")
    game = spec.new()
    # Close the top-left box: its fourth line gives the player another action.
    for text in ("P1(h,0,0)", "P2(v,0,0)", "P1(h,1,0)"):
        game.make(game.parse_move(text))
    closing = [m for m in game.legal_moves() if game.format_move(m).startswith("P2(v,0,1)+")]
    assert closing and all(len(move) == 2 for move in closing)
    with pytest.raises(MoveError):
        game.parse_move("P2(v,0,1)")  # half a turn is no move
    game.make(closing[0])
    assert game.side_to_move() == 0  # the other player, after the whole turn
    assert spec.from_position(game.position()).key() == game.key()
    inside = " ".join(game.position().split()[:-1])
    with pytest.raises(PositionError, match="inside a turn"):
        spec.from_position(inside)


def test_moves_are_named_at_their_position_and_read_by_number_too() -> None:
    game = get_game("openspiel:connect_four").new()
    first = game.legal_moves()[0]
    assert game.format_move(first) == "x0"
    assert game.parse_move("@0") == first
    game.make(first)
    assert game.format_move(first) == "o0"  # the same action, named at another position
    assert OpenSpielGame.position_dependent_names
    with pytest.raises(MoveError, match="expected one of o0"):
        game.parse_move("x0")
    nim = get_game("openspiel:nim").new()
    assert nim.format_move(nim.legal_moves()[0]) == "pile:1,_take:1;"  # no spaces in a name


def test_a_principal_variation_is_named_move_by_move() -> None:
    game = get_game("openspiel:connect_four").from_position("3 3")
    found = search(game, limit=Limit(depth=3))
    assert line_names(game, found.pv) == ["x0", "o0", "x0"][: len(found.pv)] or all(
        name[0] == "xo"[index % 2] for index, name in enumerate(line_names(game, found.pv))
    )
    figures = result_figures(game, found)
    assert [name[0] for name in figures["pv"]] == ["xo"[i % 2] for i in range(len(found.pv))]


def test_the_first_mover_is_side_0_whatever_pyspiel_numbers_it() -> None:
    spec = get_game("openspiel:chess")
    game = spec.new()
    assert spec.sides == ("Player 1", "Player 0")  # pyspiel's white, who moves first, is 1
    assert game.side_to_move() == 0 and game.player() == 1
    game.make(game.parse_move("e4"))
    assert game.side_to_move() == 1 and game.player() == 0


def test_keys_identify_positions_not_paths() -> None:
    spec = get_game("openspiel:tic_tac_toe")
    one, two = spec.new(), spec.new()
    for game, order in (
        (one, ("x(0,0)", "o(1,1)", "x(2,2)")),
        (two, ("x(2,2)", "o(1,1)", "x(0,0)")),
    ):
        for text in order:
            game.make(game.parse_move(text))
    assert one.key() == two.key() and one.position() != two.position()
    two.undo()
    assert one.key() != two.key()


def test_a_game_pickles_by_name_and_history() -> None:
    game = get_game("openspiel:breakthrough(rows=4,columns=4)").new()
    game.make(game.legal_moves()[2])
    again = pickle.loads(pickle.dumps(game))
    assert again.position() == game.position() and again.key() == game.key()
    assert again.legal_moves() == game.legal_moves()


def test_an_evaluation_plugin_makes_the_game_searched_by_alpha_beta() -> None:
    def material(state: Any, player: int) -> int:
        board = str(state)
        mine, theirs = ("b", "w") if player == 0 else ("w", "b")
        return clamp(100 * (board.count(mine) - board.count(theirs)))

    register_evaluation("breakthrough", material)
    try:
        spec = get_game("openspiel:breakthrough(rows=5,columns=5)")
        assert spec.play_engine == spec.analyzer and spec.levels == SEARCH_LEVELS
        game = spec.new()
        game.make(game.legal_moves()[0])
        assert game.evaluate() == material(game.state, game.player())
        check_game(spec, playouts=2, max_plies=40)
    finally:
        unregister_evaluation("breakthrough")
    assert get_game("openspiel:breakthrough(rows=5,columns=5)").play_engine == "mcts"


# -- front ends --------------------------------------------------------------------------


def test_solve_and_analyze_from_the_command_line(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(capsys, "solve", "openspiel:hex(board_size=3)", "--json")
    assert status == 0, err
    data = json.loads(out)
    assert data["value"] > 0 and data["best_moves"] == ["b2"]
    status, out, err = run(
        capsys, "analyze", "openspiel:connect_four", "--moves", "x3", "o3", "--depth", "3"
    )
    assert status == 0, err
    assert "pv         x" in out and "x0 x0" not in out


def test_play_names_the_mcts_player_and_its_simulations(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A game played by MCTS is not announced as a search depth (the web app's levels too say
    simulations)."""
    import io

    monkeypatch.setattr("sys.stdin", io.StringIO("quit\n"))
    status, out, err = run(capsys, "play", "openspiel:clobber(rows=4,columns=4)", "--level", "2")
    assert status == 0, err
    assert "level 2 of 5 (MCTS, 512 simulations)" in out and "search depth" not in out


def test_the_web_app_opens_any_eligible_game_by_its_name() -> None:
    """The page's list holds ``openspiel`` and two variants; ``GET /api/games?name=`` (what the
    page asks for ``?game=NAME``) describes any other, and a session plays it."""
    from fastapi.testclient import TestClient

    from zerosum.web.app import create_app

    name = "openspiel:oware(num_houses_per_player=3,num_seeds_per_house=2)"
    with TestClient(create_app()) as client:
        listed = [game["name"] for game in client.get("/api/games").json()["games"]]
        assert "openspiel" in listed and name not in listed
        (game,) = client.get("/api/games", params={"name": name}).json()["games"]
        assert game["name"] == name and game["player"] == "mcts"
        assert game["levels"][0]["label"] == "128 simulations"
        session = client.post("/api/sessions", json={"game": name})
        assert session.status_code == 201, session.text
        assert session.json()["legal"] == ["A", "B", "C"]
        refused = client.get("/api/games", params={"name": "openspiel:kuhn_poker"})
        assert refused.status_code == 422
        assert "lacks determinism" in refused.json()["detail"]
        assert client.get("/api/games", params={"name": "nogame"}).status_code == 404


def test_a_search_over_worker_processes_rebuilds_the_game_there() -> None:
    game = get_game("openspiel:breakthrough(rows=4,columns=4)").new()
    serial = search(game, algorithm="alphabeta", limit=Limit(depth=4))
    split = search(game, algorithm="alphabeta", limit=Limit(depth=4), workers=2)
    assert split.value == serial.value


# -- the bot -----------------------------------------------------------------------------


def _play(game: Any, bots: list[Any]) -> list[float]:
    import numpy as np

    return list(
        evaluate_bots.evaluate_bots(game.new_initial_state(), bots, np.random.RandomState(0))
    )


@pytest.mark.parametrize("seat", [0, 1])
def test_the_bot_never_loses_tic_tac_toe_in_openspiels_evaluation(seat: int) -> None:
    game = pyspiel.load_game("tic_tac_toe")
    bot = Bot(game, engine="engine", limit=Limit(depth=9), seed=seat)
    assert bot.spec.name == "tictactoe"  # the built-in game, actions mapped
    try:
        for seed in range(3):
            other = pyspiel.make_uniform_random_bot(1 - seat, seed)
            bots = [bot, other] if seat == 0 else [other, bot]
            assert _play(game, bots)[seat] >= 0
    finally:
        bot.close()


def test_the_bot_wins_connect_four_with_the_compiled_engine() -> None:
    game = pyspiel.load_game("connect_four")
    bot = Bot(game, engine="compiled", limit=Limit(depth=6))
    assert bot.spec.name == "connect4"
    try:
        for seat in (0, 1):
            other = pyspiel.make_uniform_random_bot(1 - seat, 7)
            bots = [bot, other] if seat == 0 else [other, bot]
            assert _play(game, bots)[seat] == 1.0
    finally:
        bot.close()


def test_the_bot_plays_chess_as_zerosums_chess_whatever_pyspiel_numbers_white() -> None:
    game = pyspiel.load_game("chess")
    bot = Bot(game, engine="tactical", limit=Limit(depth=2))
    assert bot.spec.name == "chess"
    try:
        state = game.new_initial_state()
        for san in ("e4", "e5"):
            state.apply_action(state.string_to_action(san))
        action = bot.step(state)  # pyspiel's white is player 1
        assert action in state.legal_actions()
        position = get_game("chess").new()
        for san in ("e4", "e5"):
            position.make(position.parse_move(san))
        best = bot.engine.search(position, Limit(depth=2)).best_moves
        assert position.parse_move(state.action_to_string(action)) in best
    finally:
        bot.close()


@pytest.mark.parametrize("seed", range(4))
def test_openspiels_morris_is_zerosums_without_its_draw_rules(seed: int) -> None:
    """Move for move, the same legal turns (a removal is part of zerosum's move) and the same
    winner, until OpenSpiel's cap on a game's length."""
    from zerosum.game import Outcome
    from zerosum.openspiel.bot import BUILTIN, _turns

    mapped = BUILTIN["nine_mens_morris"]
    state = pyspiel.load_game("nine_mens_morris").new_initial_state()
    game = get_game(mapped.game).new()
    rng = random.Random(seed)
    while not state.is_terminal():
        turns = _turns(state)
        assert {mapped.text(state, turn) for turn in turns} == set(
            map(game.format_move, game.legal_moves())
        )
        turn = rng.choice(turns)
        game.make(game.parse_move(mapped.text(state, turn)))
        for action in turn:
            state.apply_action(action)
    returns = state.returns()
    if returns[0] == 0:  # OpenSpiel's cap: a draw zerosum's game does not have
        assert game.outcome() is None
    else:
        assert game.outcome() == Outcome.LOSS
        assert returns[game.side_to_move()] == -1.0


def test_the_bot_plays_openspiels_morris_as_zerosums_with_its_removals() -> None:
    game = pyspiel.load_game("nine_mens_morris")
    bot = Bot(game, engine="engine", limit=Limit(depth=2), seed=1)
    assert bot.spec.name == "morris:repetition=none:moves=none"
    try:
        state = game.new_initial_state()
        removals = 0
        while not state.is_terminal() and state.move_number() < 60:
            if state.current_player() == 0:
                player = state.current_player()
                action = bot.step(state)
                assert action in state.legal_actions()
                state.apply_action(action)
                if not state.is_terminal() and state.current_player() == player:
                    removals += 1  # a mill: a bot that did not plan this turn picks a removal
                    fresh = Bot(game, engine="engine", limit=Limit(depth=1))
                    assert fresh.step(state) in state.legal_actions()
                    fresh.close()
            else:
                state.apply_action(random.Random(state.move_number()).choice(state.legal_actions()))
        assert removals > 0  # the bot closed a mill and played its removal at the next step
    finally:
        bot.close()


def test_the_bot_plays_a_bridged_game_with_turns_of_several_actions() -> None:
    game = pyspiel.load_game("dots_and_boxes")
    bot = Bot(game, engine="engine", limit=Limit(depth=12))
    assert bot.spec.name == "openspiel:dots_and_boxes()"
    try:
        for seed in range(2):  # 2x2 is a first-player win: the bot wins it as the first
            assert _play(game, [bot, pyspiel.make_uniform_random_bot(1, seed)])[0] == 1.0
        assert _play(game, [pyspiel.make_uniform_random_bot(0, 3), bot])[1] in (-1.0, 0.0, 1.0)
    finally:
        bot.close()


@pytest.mark.parametrize(
    "name",
    [
        "hex(board_size=4)",
        "breakthrough(rows=4,columns=4)",  # in place (UNDO_GAMES)
        "tic_tac_toe",  # draws
        "dots_and_boxes(num_rows=1,num_cols=2)",  # turns of several actions
        "nim(pile_sizes=1;2;3)",
    ],
)
def test_the_bridges_own_playouts_grow_the_tree_of_the_protocols(name: str) -> None:
    from zerosum.engines.mcts import MctsEngine

    game = get_game(f"openspiel:{name}").new()
    game.make(game.legal_moves()[1])
    before = (game.position(), game.key())
    fast, slow = MctsEngine(seed=5), MctsEngine(seed=5, game_playouts=False)
    found = fast.search(game, Limit(nodes=1500))
    assert (game.position(), game.key()) == before  # left as it was
    twin = slow.search(game, Limit(nodes=1500))
    assert (found.value, found.best_move, found.pv, found.solved) == (
        twin.value,
        twin.best_move,
        twin.pv,
        twin.solved,
    )
    assert fast.root_stats() == slow.root_stats()
    assert fast._rng.state == slow._rng.state  # the same numbers drawn


def test_a_playout_stopped_by_its_ply_bound_is_not_over() -> None:
    game = get_game("openspiel:hex(board_size=5)").new()
    assert game.random_playout(lambda bound: 0, 3) == (None, 3)
    assert game.random_playout(lambda bound: 0, 0) == (None, 0)
    assert game.ply() == 0


def test_the_bot_keeps_one_game_so_mcts_finds_its_tree_again() -> None:
    game = pyspiel.load_game("hex(board_size=4)")
    bot = Bot(game, engine="mcts", limit=Limit(nodes=400), seed=1)
    try:
        state = game.new_initial_state()
        state.apply_action(bot.step(state))
        kept = bot._game
        engine: Any = bot.engine
        tree = engine._root
        reply = state.legal_actions()[0]
        state.apply_action(reply)
        expected = next(c for c in tree.children if c.move == state.history()[0])
        expected = next((c for c in expected.children if c.move == reply), None)
        bot.step(state)
        assert bot._game is kept and kept.position() == " ".join(map(str, state.history()))
        if expected is not None:  # the reply was in the tree: its node is the new root
            assert engine._root is expected
        other = game.new_initial_state()  # another game: the bot starts afresh
        other.apply_action(3)
        assert bot.step(other) in other.legal_actions() and bot._game is not kept
    finally:
        bot.close()


def test_the_bot_refuses_what_zerosum_cannot_search() -> None:
    with pytest.raises(ZerosumError, match="lacks"):
        Bot(pyspiel.load_game("kuhn_poker"))
    with pytest.raises(ZerosumError, match="compiled"):
        Bot(pyspiel.load_game("hex(board_size=3)"), engine="compiled")


@pytest.mark.slow
@pytest.mark.ray
def test_a_match_on_ray_rebuilds_the_game_in_its_actors(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("ray")
    status, out, err = run(
        capsys,
        "match",
        "openspiel:hex(board_size=3)",
        "--a",
        "level=1",
        "--b",
        "level=2",
        "--games",
        "2",
        "--cluster",
        "auto",
        "--workers",
        "1",
    )
    assert status == 0, err
    assert "A: +" in out and "games on 1 Ray node (2)" in out

"""Answering at once while the compiled code compiles: markers and lock
(:mod:`zerosum.compiled.warm`), the twin-then-compiled engine (:mod:`zerosum.engines.warming`),
``open_engine(instant=True)`` and UCI's readiness. The slow compile is a fake that the test
finishes when it chooses, so nothing here depends on how long a real compile takes."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import chess
import pytest
from waiting import HANG_S

from zerosum.compiled import warm
from zerosum.engines import COMPILED, PythonEngine, TacticalEngine, open_engine
from zerosum.engines.base import Engine, OnIteration
from zerosum.engines.warming import TWIN_PROOF_NODES, WarmingEngine
from zerosum.game import Game
from zerosum.games import get_game
from zerosum.games.tictactoe import TicTacToe
from zerosum.search.core import Limit, SearchResult, Stats
from zerosum.uci import UciEngine


@pytest.fixture(autouse=True)
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Markers in a folder of the test's own (where a child given ``NUMBA_CACHE_DIR`` =
    ``tmp_path`` writes them); this process keeps its numba cache."""
    monkeypatch.setattr(warm, "cache_dir", lambda: tmp_path / "zerosum-warm")
    monkeypatch.setenv("ZEROSUM_COMPILE", "background")
    return tmp_path


class SlowCompile:
    """A :class:`~zerosum.compiled.warm.Warmer` whose compile ends when the test says."""

    def __init__(self) -> None:
        self.finished = threading.Event()
        self.started = 0
        self.failed = False

    def start(self) -> None:
        self.started += 1

    def cached(self) -> bool:
        return False

    def done(self) -> bool:
        return self.finished.is_set()

    def wait(self, timeout: float | None = None) -> bool:
        return self.finished.wait(timeout)

    def remaining(self) -> float:
        return 42.0


def warming(
    twin: Engine, compiled: Engine | None = None, warmer: SlowCompile | None = None
) -> WarmingEngine:
    """A tic-tac-toe WarmingEngine with a fake compile, loading nothing."""

    def opened() -> Engine:
        if compiled is None:
            raise RuntimeError("no compiled engine here")
        return compiled

    return WarmingEngine(
        get_game("tictactoe"),
        ("search",),
        twin,
        opened,
        name=COMPILED,
        warmer=warmer or SlowCompile(),  # type: ignore[arg-type]  # the fake's interface
        load=lambda: None,
    )


# -- markers and the lock -------------------------------------------------------------------------


def test_warm_writes_a_marker_once_and_keeps_the_seconds() -> None:
    spec = get_game("connect4")
    calls: list[str] = []
    assert not warm.is_cached(spec, "mcts")
    warm.warm(spec, "mcts", work=lambda _spec, part: calls.append(part))
    assert warm.is_cached(spec, "mcts")
    assert warm.warm(spec, "mcts", work=lambda _spec, part: calls.append(part)) == 0.0
    assert calls == ["mcts"]
    assert warm.estimate(spec, "mcts") >= 0.0
    assert not warm.is_cached(spec, "search")  # a marker per part
    assert warm.estimate(spec, "search") == warm.ESTIMATE_S["search"]


def test_the_marker_names_the_source_so_an_edit_finds_none(monkeypatch: pytest.MonkeyPatch) -> None:
    spec = get_game("tictactoe")
    warm.warm(spec, "perft", work=lambda _spec, _part: None)
    before = warm.marker_path(spec, "perft")
    monkeypatch.setattr(warm, "part_key", lambda _spec, _part: "edited")
    assert warm.marker_path(spec, "perft") != before
    assert not warm.is_cached(spec, "perft")
    warm.warm(spec, "perft", work=lambda _spec, _part: None)
    assert warm.is_cached(spec, "perft") and not before.exists()  # the old marker is gone


def test_two_processes_never_compile_one_part_twice() -> None:
    spec = get_game("tictactoe")
    inside = threading.Event()
    release = threading.Event()
    calls: list[str] = []

    def slow(_spec: Any, part: str) -> None:
        calls.append(part)
        inside.set()
        release.wait()

    first = threading.Thread(target=warm.warm, args=(spec, "search"), kwargs={"work": slow})
    first.start()
    inside.wait()
    second = threading.Thread(target=warm.warm, args=(spec, "search"), kwargs={"work": slow})
    second.start()  # waits on the lock (or comes after it), then finds the marker
    release.set()
    first.join()
    second.join()
    assert calls == ["search"]


def test_the_child_compiles_a_part_and_marks_it(cache: Path) -> None:
    spec = get_game("tictactoe")
    done = subprocess.run(
        [sys.executable, "-m", "zerosum.compiled", "tictactoe", "perft"],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path), "NUMBA_CACHE_DIR": str(cache)},
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    assert "tictactoe perft" in done.stderr
    assert warm.is_cached(spec, "perft")
    warmer = warm.Warmer(spec, ["perft"])
    assert warmer.cached() and warmer.done()


@pytest.mark.parametrize(
    ("argv", "expected"), [([], "usage"), (["nonsense"], "error"), (["chess", "search"], "error")]
)
def test_the_child_refuses_bad_arguments(argv: list[str], expected: str) -> None:
    import io

    err = io.StringIO()
    assert warm.main(argv, err=err) == 2
    assert err.getvalue().startswith(expected)


def test_the_background_child_lowers_its_priority_and_reads_its_arguments() -> None:
    # In a child process: --background renices the process that reads it.
    done = subprocess.run(
        [sys.executable, "-m", "zerosum.compiled", "--background", "nonsense"],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
        timeout=600,
    )
    assert done.returncode == 2
    assert done.stderr.startswith("error: ") and "nonsense" in done.stderr


def test_a_warmer_starts_one_child_and_reports_its_end() -> None:
    spec = get_game("tictactoe")
    started: list[Sequence[str]] = []

    def spawn(arguments: Sequence[str]) -> subprocess.Popen[bytes]:
        started.append(arguments)
        return subprocess.Popen([sys.executable, "-c", "raise SystemExit(3)"])

    warmer = warm.Warmer(spec, ["search"], spawn=spawn)
    warmer.start()
    warmer.start()
    assert started == [["tictactoe", "search"]]
    assert warmer.wait()
    assert warmer.failed  # it ended without a marker


# -- the engine -----------------------------------------------------------------------------------


def test_the_twin_answers_until_the_compiled_engine_is_ready_with_the_same_value() -> None:
    from zerosum.engines.compiled import CompiledEngine

    compiled = CompiledEngine("tictactoe", hash_mb=1)
    warmer = SlowCompile()
    engine = warming(PythonEngine(), compiled, warmer)
    game = TicTacToe.from_position("x.o/.x./...")
    early = engine.search(game, Limit(depth=9))
    assert engine.answered is engine.twin and not engine.ready
    assert engine.status().endswith("about 42 s left); the Python engine answers meanwhile")
    # A caller waiting for the compiled engine (a proof) is told what it waits for alone.
    assert engine.status(waiting=True).endswith("engine (its first use: about 42 s left)")
    warmer.finished.set()
    assert engine.wait()
    late = engine.search(game, Limit(depth=9))
    assert engine.answered is compiled and engine.status() == ""
    assert (early.value, early.best_move) == (late.value, late.best_move)
    direct = compiled.search(game, Limit(depth=9))
    assert late.value == direct.value
    engine.close()


class HandingOver(Engine):
    """A twin that reports depth 1, lets the compile finish, then searches until it is
    stopped (by the hand-over), returning its unfinished iteration."""

    name = "engine"

    def __init__(self, warmer: SlowCompile) -> None:
        self.warmer = warmer
        self.wrapper: WarmingEngine | None = None
        self.stopped = False

    def search(
        self,
        game: Game[Any],
        limit: Limit | None = None,
        *,
        on_iteration: OnIteration | None = None,
    ) -> SearchResult[Any]:
        assert limit is not None and limit.stop is not None
        first = SearchResult(0, game.legal_moves()[0], (), (), 1, Stats(), complete=True)
        if on_iteration is not None:
            on_iteration(first)
        self.warmer.finished.set()
        assert self.wrapper is not None and self.wrapper.wait()
        self.stopped = limit.stop()
        return SearchResult(0, first.best_move, (), (), 1, Stats(), complete=False)

    def solve(self, game: Game[Any], *, limit: Limit | None = None) -> SearchResult[Any]:
        raise NotImplementedError

    def _best_moves(
        self, game: Game[Any], depth: int, seed: int | None, limit: Limit | None
    ) -> SearchResult[Any]:
        raise NotImplementedError


def test_a_search_is_handed_over_when_the_compiled_engine_becomes_ready() -> None:
    from zerosum.engines.compiled import CompiledEngine

    compiled = CompiledEngine("tictactoe", hash_mb=1)
    warmer = SlowCompile()
    twin = HandingOver(warmer)
    engine = warming(twin, compiled, warmer)
    twin.wrapper = engine
    depths: list[int] = []
    game = TicTacToe()
    found = engine.search(game, Limit(depth=6), on_iteration=lambda r: depths.append(r.depth))
    assert twin.stopped  # the hand-over stopped the twin
    assert engine.answered is compiled
    assert depths == sorted(set(depths)) and depths[0] == 1 and depths[-1] == 6
    assert found.depth == 6 and found.value == compiled.search(game, Limit(depth=6)).value
    engine.close()


class UntilStopped(HandingOver):
    """A twin that reports depth 1, then searches until its limit stops it."""

    def search(
        self,
        game: Game[Any],
        limit: Limit | None = None,
        *,
        on_iteration: OnIteration | None = None,
    ) -> SearchResult[Any]:
        assert limit is not None and limit.stop is not None
        first = SearchResult(0, game.legal_moves()[0], (), (), 1, Stats(), complete=True)
        if on_iteration is not None:
            on_iteration(first)
        while not limit.stop():
            pass
        self.stopped = True
        return SearchResult(0, first.best_move, (), (), 1, Stats(), complete=False)


def test_a_depth_search_waits_for_a_compiled_engine_that_only_loads() -> None:
    from zerosum.engines.compiled import CompiledEngine

    compiled = CompiledEngine("tictactoe", hash_mb=1)
    warmer = SlowCompile()
    warmer.finished.set()  # nothing to compile: the parts are cached
    twin = UntilStopped(warmer)
    engine = warming(twin, compiled, warmer)
    engine.delay = 0.0  # the twin stops at its first look; the loader starts at once
    depths: list[int] = []
    found = engine.search(
        TicTacToe(), Limit(depth=4), on_iteration=lambda r: depths.append(r.depth)
    )
    # The twin's first iteration (if the loader was not done first), then the deeper ones.
    assert engine.answered is compiled
    assert found.depth == 4 and depths == [1, 2, 3, 4]
    engine.close()


def test_a_limited_search_keeps_to_the_twin_while_the_compile_runs() -> None:
    engine = warming(PythonEngine())
    found = engine.search(TicTacToe(), Limit(time=0.2))
    # How deep 0.2 s reach is the machine's load (depth 0, the first move, when starved).
    assert found.best_move in TicTacToe().legal_moves()
    assert engine.answered is engine.twin
    assert engine.warmer.started == 1  # type: ignore[attr-defined]  # the fake's counter


def test_the_loader_starts_loading_only_between_searches_on_a_clock() -> None:
    """Loading waits for the end of every hold (UCI's timed searches), unless someone waits
    for the compiled engine."""
    loads: list[int] = []
    warmer = SlowCompile()
    engine = WarmingEngine(
        get_game("tictactoe"),
        ("search",),
        PythonEngine(),
        PythonEngine,
        name=COMPILED,
        warmer=warmer,  # type: ignore[arg-type]  # the fake's interface
        load=lambda: loads.append(engine._holds),
    )
    engine.delay = 0.0
    with engine.hold():
        engine.start()
        warmer.finished.set()
        with engine.hold():  # holds nest
            pass
        assert not engine._settled.wait(0.2)  # no load while held (never a false failure)
    assert engine.wait() and loads == [0]
    engine.close()

    waited = WarmingEngine(
        get_game("tictactoe"),
        ("search",),
        PythonEngine(),
        PythonEngine,
        name=COMPILED,
        warmer=SlowCompile(),  # type: ignore[arg-type]  # the fake's interface
        load=lambda: None,
    )
    with waited.hold():
        waited.warmer.finished.set()  # type: ignore[attr-defined]  # the fake's event
        assert waited.wait()  # waiting for the compiled engine passes over the hold
    waited.close()


def test_a_compiled_engine_that_fails_to_load_leaves_the_twin_answering() -> None:
    warmer = SlowCompile()
    engine = warming(PythonEngine(), None, warmer)
    warmer.finished.set()
    assert not engine.wait()
    assert isinstance(engine.error, RuntimeError)
    assert "failed" in engine.status()
    assert engine.search(TicTacToe(), Limit(depth=2)).best_move is not None


def _answered(call: Any) -> Any:
    """``call()``'s result, failing (not hanging) if it waits for a compile that never ends."""
    results: list[Any] = []
    thread = threading.Thread(target=lambda: results.append(call()), daemon=True)
    thread.start()
    thread.join(HANG_S)
    assert results, "it waited for the compiled engine"
    return results[0]


def _exact(result: SearchResult[Any]) -> tuple[Any, ...]:
    """What a proof of perfect play or a solve must agree on, whichever engine found it."""
    return (result.value, set(result.best_moves), dict(result.move_values), result.solved)


@pytest.mark.parametrize(
    ("name", "position"),
    [("tictactoe", ""), ("tictactoe", "x.o/.x./..."), ("connect4", "367774542722127342472614")],
)
def test_a_proof_within_the_twins_budget_is_the_twins_and_equals_the_compiled_one(
    name: str, position: str
) -> None:
    """Perfect play and solves of positions the twin proves at once (a whole tic-tac-toe
    game, a connect four game near its end) do not wait for a compile that never ends, and
    answer what the compiled engine answers."""
    from zerosum.engines.compiled import CompiledEngine

    spec = get_game(name)
    game = spec.new() if not position else spec.from_position(position)
    compiled = CompiledEngine(name, hash_mb=1)
    engine = WarmingEngine(
        spec,
        ("solve",),
        PythonEngine(),
        lambda: compiled,
        name=COMPILED,
        warmer=SlowCompile(),
        load=lambda: None,  # type: ignore[arg-type]  # the fake
    )
    perfect = _answered(lambda: engine.best_moves(game.copy(), depth=0, seed=3))
    assert engine.answered is engine.twin and not engine.ready
    assert perfect.solved and perfect.complete and perfect.stats.nodes <= TWIN_PROOF_NODES
    expected = compiled.best_moves(game.copy(), depth=0, seed=3)
    assert (perfect.value, set(perfect.best_moves)) == (expected.value, set(expected.best_moves))
    solved = _answered(lambda: engine.solve(game.copy()))
    assert engine.answered is engine.twin
    assert _exact(solved) == _exact(compiled.solve(game.copy()))
    engine.close()


class Announcing(PythonEngine):
    """The Python engine, saying when a proof of perfect play has ended."""

    def __init__(self) -> None:
        super().__init__()
        self.gave_up = threading.Event()

    def _best_moves(
        self, game: Game[Any], depth: int, seed: int | None, limit: Limit | None
    ) -> SearchResult[Any]:
        found = super()._best_moves(game, depth, seed, limit)
        self.gave_up.set()
        return found


PAST_THE_BUDGET = "366356216464"
"""A connect four position whose perfect play the Python engine cannot prove within
:data:`TWIN_PROOF_NODES` nodes."""


def test_a_proof_past_the_twins_budget_waits_for_the_compiled_engine() -> None:
    from zerosum.engines.compiled import CompiledEngine

    spec = get_game("connect4")
    compiled = CompiledEngine("connect4", hash_mb=4)
    warmer = SlowCompile()
    twin = Announcing()
    engine = WarmingEngine(
        spec,
        ("solve",),
        twin,
        lambda: compiled,
        name=COMPILED,
        warmer=warmer,
        load=lambda: None,  # type: ignore[arg-type]  # the fake
    )
    game = spec.from_position(PAST_THE_BUDGET)
    answers: list[SearchResult[Any]] = []
    thinking = threading.Thread(
        target=lambda: answers.append(engine.best_moves(game.copy(), depth=0, seed=3))
    )
    thinking.start()
    assert twin.gave_up.wait(HANG_S)  # the twin's try ended unproven ...
    assert thinking.is_alive()  # ... and the call waits for the compiled one (not ready yet)
    warmer.finished.set()
    thinking.join(HANG_S)
    assert not thinking.is_alive() and engine.answered is compiled
    expected = compiled.best_moves(game.copy(), depth=0, seed=3)
    assert answers[0].solved and answers[0].value == expected.value
    assert set(answers[0].best_moves) == set(expected.best_moves)
    engine.close()


def test_ctrl_c_while_a_proof_waits_for_the_compiled_engine_ends_the_wait() -> None:
    spec = get_game("connect4")
    engine = WarmingEngine(
        spec,
        ("solve",),
        Announcing(),
        PythonEngine,
        name=COMPILED,
        warmer=SlowCompile(),
        load=lambda: None,  # type: ignore[arg-type]  # the fake
    )
    twin = engine.twin
    assert isinstance(twin, Announcing)
    stopped = Limit(stop=twin.gave_up.is_set)  # Ctrl-C as soon as the twin gave up
    found = _answered(
        lambda: engine.best_moves(spec.from_position(PAST_THE_BUDGET), depth=0, limit=stopped)
    )
    assert not found.complete and not engine.ready and engine.answered is twin
    engine.close()


class Inexact(HandingOver):
    """A twin that proves nothing (as the tactical search): it must never be asked to."""

    exact = False


def test_a_twin_that_proves_nothing_leaves_proofs_to_the_compiled_engine() -> None:
    from zerosum.engines.compiled import CompiledEngine

    compiled = CompiledEngine("tictactoe", hash_mb=1)
    warmer = SlowCompile()
    engine = warming(Inexact(warmer), compiled, warmer)
    warmer.finished.set()  # the compile is done: the call waits for the load alone
    game = TicTacToe.from_position("x.o/.x./...")
    perfect = _answered(lambda: engine.best_moves(game.copy(), depth=0, seed=3))
    assert engine.answered is compiled and perfect.solved
    assert _exact(_answered(lambda: engine.solve(game.copy()))) == _exact(compiled.solve(game))
    engine.close()


def test_open_engine_answers_at_once_only_when_asked_and_allowed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(warm.Warmer, "start", lambda self: None)  # no child in this test
    for name, twin in (("compiled", PythonEngine), ("mcts", object)):
        engine = open_engine("connect4", name, instant=True)
        assert isinstance(engine, WarmingEngine)
        if twin is PythonEngine:
            assert isinstance(engine.twin, PythonEngine)
        engine.close()
    chess_engine = open_engine("chess", instant=True)
    assert isinstance(chess_engine, WarmingEngine)
    assert isinstance(chess_engine.twin, TacticalEngine)
    assert not isinstance(open_engine("tictactoe", "engine", instant=True), WarmingEngine)
    monkeypatch.setenv("ZEROSUM_COMPILE", "wait")
    assert not isinstance(open_engine("chess", "tactical", instant=True), WarmingEngine)


# -- UCI ------------------------------------------------------------------------------------------


class Recorder:
    def __init__(self) -> None:
        self.lines: list[str] = []
        self.bestmove = threading.Event()

    def __call__(self, line: str) -> None:
        self.lines.append(line)
        if line.startswith("bestmove"):
            self.bestmove.set()


def test_uci_is_ready_at_once_and_plays_with_the_twin_while_it_compiles(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from zerosum.engines import warming as warming_module

    fake = SlowCompile()
    monkeypatch.setattr(warming_module, "Warmer", lambda spec, parts: fake)
    monkeypatch.setattr(WarmingEngine, "_load_parts", lambda self: None)
    out = Recorder()
    uci = UciEngine(out)
    uci.handle("uci")
    assert out.lines[-1] == "uciok"
    assert isinstance(uci.engine, WarmingEngine) and fake.started == 1  # loading after uci
    uci.handle("isready")
    assert out.lines[-1] == "readyok" and not uci.engine.ready  # did not wait
    uci.handle("position startpos")
    uci.handle("go depth 2")
    out.bestmove.wait()
    uci.stop()
    assert any(
        line.startswith("info string compiling") and line.endswith("(weaker)") for line in out.lines
    )
    move = chess.Move.from_uci(out.lines[-1].split()[1])
    assert move in chess.Board().legal_moves
    # The compile ends: the next go is the compiled engine's (here: any tactical engine).
    uci.engine._open_compiled = TacticalEngine
    fake.finished.set()
    assert uci.engine.wait()
    out.lines.clear()
    out.bestmove.clear()
    uci.handle("go depth 2")
    out.bestmove.wait()
    uci.stop()
    assert not any("compiling" in line or "weaker" in line for line in out.lines), out.lines
    assert uci.engine.compiled is not None and uci.engine.current() is uci.engine.compiled
    uci.close()


# -- the command line ---------------------------------------------------------------------------


def test_analyze_answers_with_the_twin_and_says_so(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    from zerosum.cli import main
    from zerosum.engines import warming as warming_module

    fake = SlowCompile()  # a compile that never ends in this test
    monkeypatch.setattr(warming_module, "Warmer", lambda spec, parts: fake)
    # a limit lets the twin answer; 60 s only caps it (depth 8 takes a moment, even when loaded)
    argv = ["analyze", "tictactoe", "--moves", "b2", "--algorithm", "compiled", "--time", "60"]
    assert main([*argv, "--depth", "8", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["answered_by"] == "python engine" and data["value"] == 0
    assert main([*argv, "--depth", "8"]) == 0
    out = capsys.readouterr().out
    assert "depth   8" in out and "the Python twin" in out


# -- the web app ----------------------------------------------------------------------------------


def test_a_web_think_answers_with_the_twin_while_the_engine_compiles(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from zerosum.engines import warming as warming_module
    from zerosum.web import jobs

    fake = SlowCompile()  # a compile that never ends in this test: nothing may wait for it
    monkeypatch.setattr(warming_module, "Warmer", lambda spec, parts: fake)
    events: list[dict[str, Any]] = []
    request = {
        "game": "connect4",
        "start": None,
        "moves": ["4", "4", "3"],
        "depth": 6,
        "time": 30.0,
        "seed": 1,
        "engine": "compiled",
        "task": "analyze",
    }
    jobs.think(request, events.append, lambda: False)
    kinds = [event["type"] for event in events]
    assert kinds[:2] == ["loading", "searching"] and kinds[-1] == "done", kinds
    assert fake.started == 1  # the compile was started, and the think did not wait for it
    searching, done = events[1], events[-1]
    assert searching["engine"] == done["engine"] == "python"  # the twin answered, and says so
    assert done["depth"] == 6 and done["best_moves"], done

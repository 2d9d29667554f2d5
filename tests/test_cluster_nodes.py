"""A real Ray cluster of two nodes (``ray start``, token authentication): joining it, work spread
over both nodes, and losing the second node in the middle of a solve and of a match.

One cluster serves the whole session (``conftest.two_ray_nodes``; 10-60 s to start on a loaded
2-core machine); a test after one that lost the second node starts it again. Each test joins from
this process and leaves (``ray.shutdown``) at its end. Ray missing is the only reason to skip:
a machine that cannot start the cluster fails these tests.
"""

from __future__ import annotations

import json
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("ray")

from ray_nodes import TwoNodes, both_alive, joined
from waiting import HANG_S

from zerosum.cli import main
from zerosum.compiled.distributed import solve_distributed
from zerosum.compiled.solver import Solver
from zerosum.games.connect4 import Connect4
from zerosum.match import Match, parse_player
from zerosum.match.runner import close_players, kill_players
from zerosum.runtime import SerialExecutor
from zerosum.runtime.cluster import ClusterError, RayActorExecutor, RayTaskExecutor, connect
from zerosum.store import Store

# The slow set: Ray nodes started, joined and killed; test_cluster_ray covers one local Ray.
pytestmark = [pytest.mark.slow, pytest.mark.ray]

POSITION, SCORE = "32164625", 11
"""The first position of Test_L1_R1 and its exact score (the other Ray tests' too)."""
SLOW = "3216462"
"""One ply earlier: more work in each unit, so a node is lost while it still has some."""


@pytest.fixture
def cluster(two_ray_nodes: TwoNodes) -> TwoNodes:
    """The session's two nodes (``conftest.two_ray_nodes``)."""
    return two_ray_nodes


@pytest.fixture
def token(cluster: TwoNodes, tmp_path: Path) -> Iterator[str]:
    """Both nodes up; this process holds the cluster's token in RAY_AUTH_TOKEN, has no token
    file and no RAY_AUTH_MODE (as a user who only exported the token): :func:`ray_nodes.joined`.
    (A test lists it before ``monkeypatch``, whose changes are then undone first.)"""
    with joined(cluster, tmp_path):
        yield cluster.token


def _second(ray: Any) -> str:
    """The id of the node with the resource ``second``."""
    ids = [n["NodeID"] for n in ray.nodes() if n["Alive"] and "second" in n["Resources"]]
    assert len(ids) == 1, ray.nodes()
    return str(ids[0])


def _cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


# -- joining ----------------------------------------------------------------------------------


@pytest.mark.parametrize("source", ["RAY_AUTH_TOKEN", "RAY_AUTH_TOKEN_PATH", "token file"])
def test_each_of_rays_token_sources_joins(
    cluster: TwoNodes,
    token: str,
    source: str,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    if source != "RAY_AUTH_TOKEN":
        monkeypatch.delenv("RAY_AUTH_TOKEN")
        path = tmp_path / ".ray" / "auth_token"
        path.parent.mkdir()
        path.write_text(token + "\n")
        if source == "RAY_AUTH_TOKEN_PATH":
            moved = path.rename(tmp_path / "elsewhere")
            monkeypatch.setenv("RAY_AUTH_TOKEN_PATH", str(moved))
    ray, owned = connect(cluster.address)
    try:
        assert owned and ray.cluster_resources().get("CPU") == 2
    finally:
        ray.shutdown()


def test_bad_joins_are_one_line_errors_that_say_what_to_do(
    cluster: TwoNodes,
    token: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    import ray

    argv = ("solve", "connect4", "--moves", POSITION, "--cluster")
    joins: list[str] = []

    def join(*args: object, **kwargs: object) -> None:  # Ray alone retries for 20 s
        joins.append(str(kwargs.get("address")))
        raise AssertionError("ray.init was asked to join: the refusal came only after its retries")

    monkeypatch.setattr(ray, "init", join)

    def refused(expected: str, address: str = cluster.address) -> None:
        status, out, err = _cli(capsys, *argv, address)
        assert (status, out) == (2, ""), err
        assert err.startswith("zerosum: error: ") and err.count("\n") == 1, err
        assert expected in err, err
        assert not joins, joins  # refused before ray.init, not after its 20 s of retries
        assert not ray.is_initialized()

    monkeypatch.setenv("RAY_AUTH_TOKEN", "0" * 64)
    refused("refused the token from RAY_AUTH_TOKEN: expected the token the cluster was started")
    monkeypatch.delenv("RAY_AUTH_TOKEN")
    refused("requires a token and none was found: expected the cluster's token in RAY_AUTH")
    monkeypatch.setenv("RAY_AUTH_TOKEN_PATH", "/nonexistent/token")
    refused("RAY_AUTH_TOKEN_PATH names /nonexistent/token, which cannot be read")


def test_a_version_an_empty_port_and_a_stranger_are_told_apart(
    cluster: TwoNodes, token: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    import ray

    monkeypatch.setattr(ray, "__version__", "2.59.0")
    python = ".".join(map(str, sys.version_info[:3]))
    with pytest.raises(ClusterError, match=rf"runs Ray \S+ on Python {python}, and this process"):
        connect(cluster.address)
    monkeypatch.undo()
    with socket.socket() as stranger:  # listens, never answers as Ray
        stranger.bind(("127.0.0.1", 0))
        stranger.listen()
        port = stranger.getsockname()[1]
        with pytest.raises(ClusterError, match=r"something listens at .* but no Ray cluster"):
            connect(f"127.0.0.1:{port}")
    with pytest.raises(ClusterError, match=r"no Ray cluster answers at .*ray start --head"):
        connect(f"127.0.0.1:{port}")  # closed now
    assert not ray.is_initialized()


# -- two nodes --------------------------------------------------------------------------------

LOCAL_FIELDS = ("score", "value", "best_moves", "complete", "scores")


def test_a_solve_and_a_match_spread_over_both_nodes(
    cluster: TwoNodes, token: str, capsys: pytest.CaptureFixture[str]
) -> None:
    solve = ("solve", "connect4", "--moves", POSITION, "--all", "--json")
    status, out, _ = _cli(capsys, *solve)
    local = json.loads(out)
    status, out, err = _cli(capsys, *solve, "--cluster", cluster.address)
    assert status == 0, err
    remote = json.loads(out)
    assert {k: remote[k] for k in LOCAL_FIELDS} == {k: local[k] for k in LOCAL_FIELDS}
    assert remote["score"] == SCORE
    assert remote["nodes"] == remote["solve_nodes"] + remote["moves_nodes"]
    assert remote["workers_reused"] + remote["workers_made"] >= 1  # on the pool workers
    # Where the units ran depends on the schedule: a unit on a node whose worker is still
    # starting (loading the kernel) may be cancelled once the other node's answers make it
    # unneeded, so one solve may count units on one node only. Solves are run again until
    # both nodes have run units (bounded against a hang only).
    nodes = set(remote["units_per_node"])
    assert remote["cluster_nodes"] == len(nodes) >= 1
    deadline = time.monotonic() + HANG_S
    while len(nodes) < 2:
        assert time.monotonic() < deadline, f"no unit ran on the second node: {remote}"
        status, out, err = _cli(capsys, *solve, "--cluster", cluster.address)
        assert status == 0, err
        nodes |= set(json.loads(out)["units_per_node"])
    assert len(nodes) == 2

    match = ["match", "connect4", "--a", "depth=3,algorithm=engine", "--b", "depth=2"]
    match += ["--games", "6", "--seed", "3", "--json"]
    status, out, _ = _cli(capsys, *match)
    local = json.loads(out)
    status, out, err = _cli(capsys, *match, "--cluster", cluster.address)
    assert status == 0, err
    remote = json.loads(out)
    assert remote["cluster_nodes"] == 2 and remote["games_rerun"] == 0
    assert sorted(remote["games_per_node"].values())[0] > 0
    assert sum(remote["games_per_node"].values()) == 6
    moves = [[r["moves"], r["result"]] for r in local["records"]]
    assert [[r["moves"], r["result"]] for r in remote["records"]] == moves


# -- losing a node ----------------------------------------------------------------------------


class _Loser:
    """Kills the second node as soon as ``placed()`` counts some of its work (units it ran, or
    runs), from a thread that looks every 20 ms while the work goes on."""

    def __init__(self, cluster: TwoNodes, placed: Callable[[], int]) -> None:
        self.killed = False
        self._done = threading.Event()

        def watch() -> None:
            while not self._done.wait(0.02):
                if placed() > 0:
                    cluster.kill_second()
                    self.killed = True
                    return

        self._thread = threading.Thread(target=watch, daemon=True)
        self._thread.start()

    def stop(self) -> bool:
        """Stop looking; whether the node was killed."""
        self._done.set()
        self._thread.join()
        return self.killed


def test_losing_a_node_in_a_solve_loses_nothing(
    cluster: TwoNodes, token: str, tmp_path: Path
) -> None:
    game = Connect4.from_position(SLOW)
    with Solver("connect4") as solver:
        expected = solver.solve(game)
    path = tmp_path / "units.sqlite"
    with RayTaskExecutor(cluster.address) as executor, Store(path) as store:
        second = _second(executor._ray)
        # A fresh node's first unit waits for its worker to start and load the kernel: warm
        # it first, or the head may finish the whole solve before the second node runs a unit.
        deadline = time.monotonic() + HANG_S
        for attempt in range(100):
            if executor.units_per_node[second] > 0:
                break
            assert time.monotonic() < deadline, "the second node never ran a unit"
            with Store(tmp_path / f"warm-up-{attempt}.sqlite") as fresh:
                solve_distributed(Connect4.from_position(POSITION), executor=executor, store=fresh)
        warmed = executor.units_per_node[second]
        loser = _Loser(cluster, lambda: executor.units_per_node[second] - warmed)
        try:
            found = solve_distributed(game, executor=executor, store=store)
        finally:
            killed = loser.stop()
        placed = executor.units_per_node
        assert killed, f"the solve ended before the second node ran a unit: {placed}, {found}"
        assert found.rank == expected.rank and found.complete
        head = sum(n for node, n in executor.units_per_node.items() if node != second)
        assert head > 0
    with Store(path) as store:  # every proven result stayed in the store
        again = solve_distributed(game, executor=SerialExecutor(), store=store)
    assert again.stored and again.rank == expected.rank and again.solved == 0


def test_pool_workers_on_both_nodes_are_kept_and_a_lost_node_loses_nothing(
    cluster: TwoNodes, token: str, tmp_path: Path
) -> None:
    from zerosum.runtime.pool import RayPoolExecutor

    game = Connect4.from_position(SLOW)
    with Solver("connect4") as solver:
        expected = solver.solve(game)
    both_alive(cluster)
    with RayPoolExecutor(cluster.address, idle_s=HANG_S) as first, Store(":memory:") as store:
        assert first.workers == first.ready() == 2  # one on each node
        found = solve_distributed(Connect4.from_position(POSITION), executor=first, store=store)
        assert found.rank == SCORE
    with RayPoolExecutor(cluster.address, idle_s=HANG_S) as pool:
        assert pool.ready() == 2 and (pool.reused, pool.made) == (2, 0)  # found again
        second = _second(pool._ray)
        [on_second] = [index for index, slot in enumerate(pool._slots) if slot.node == second]

        # The second node dies the moment a unit has been handed to its worker: from inside
        # the pool's own hand-out, so the unit is in flight however short it is. A solve
        # whose units all went to the head (its worker was still greeted or warming on a
        # busy machine) is done again, in a new store.
        dispatch, killed = pool._dispatch, False

        def dispatch_and_kill() -> None:
            nonlocal killed
            dispatch()
            if not killed and any(index == on_second for index, _ in pool._running.values()):
                cluster.kill_second()
                killed = True

        pool._dispatch = dispatch_and_kill  # type: ignore[method-assign]
        deadline = time.monotonic() + HANG_S
        for attempt in range(100):
            path = tmp_path / f"units-{attempt}.sqlite"
            with Store(path) as store:
                found = solve_distributed(game, executor=pool, store=store)
            assert found.rank == expected.rank and found.complete
            if killed:
                break
            assert time.monotonic() < deadline, f"the second node never ran a unit: {found}"
    with Store(path) as store:  # every proven result stayed in the store
        again = solve_distributed(game, executor=SerialExecutor(), store=store)
    assert again.stored and again.rank == expected.rank and again.solved == 0


def test_losing_a_node_in_a_match_replays_its_game(cluster: TwoNodes, token: str) -> None:
    a = parse_player("depth=5,algorithm=engine,seed=5")
    b = parse_player("depth=4,algorithm=alphabeta,seed=9")
    match = Match("connect4", a, b, games=6, seed=11)
    serial = match.play()
    both_alive(cluster)
    with RayActorExecutor(cluster.address, teardown=close_players, kill=kill_players) as executor:
        assert executor.workers == 2
        second = _second(executor._ray)
        homes = [str(home) for home in executor._ray.get(executor._homes)]
        on_second = {number for number, home in enumerate(homes) if home == second}
        assert len(on_second) == 1

        def playing() -> int:  # games running on the second node's actor now
            return sum(number in on_second for number, _ in list(executor._running.values()))

        loser = _Loser(cluster, playing)  # killed with a game under way: that game is lost
        try:
            played = match.play(executor=executor)
        finally:
            killed = loser.stop()
        assert killed and executor.lost_runs >= 1
    signature = [(r.index, r.a_first, r.moves, r.ending) for r in serial.games]
    assert [(r.index, r.a_first, r.moves, r.ending) for r in played.games] == signature

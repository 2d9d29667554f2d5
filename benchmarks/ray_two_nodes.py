"""A real distributed solve on two Ray nodes against one node and one local process.

Two clusters run on this machine side by side, started as ``tests/ray_nodes.py`` starts them
(``ray start`` processes, one CPU each, token authentication): a head with a second node, and
a head alone. Each position is solved, in rounds, by ``zerosum solve connect4 --moves P`` as a
fresh command in each of three ways, one after the other (so that a change in the machine's
load hits the three alike; pair the rows of one round):

* ``two``: ``--cluster`` on the two-node cluster;
* ``one``: ``--cluster`` on the one-node cluster;
* ``local``: one local process, the compiled solver with its one table (``--no-book``: the
  cluster solve does not read the book either);
* with ``--root-tests K``, also ``two-t`` and ``one-t``: the same clusters, ``solve
  --root-tests K`` (the score by null-window tests over the units, K at once);
* with ``--before CHECKOUT``, also ``two-b`` and ``one-b``: on two and one nodes started with
  the zerosum source of another checkout (the code before a change), so that before and
  after are measured in the same rounds.

``solve --cluster`` runs its units on each cluster's pool workers (``zerosum.runtime.pool``),
which outlive a command: the first command on a cluster makes them (its time includes their
start), the next ones find them loaded. The ``before`` clusters run whatever that checkout
runs (Ray tasks, before the pool).

Each command runs in a session of its own, as each ``ray start`` node does: with the
kernel's autogroup scheduling, a session is one scheduling group, so the local process and
each node get a share of the CPUs as separate machines would (on this shared machine, a
local solve of ``44534`` in the benchmark's own session took 63.7 s, a one-node cluster beside
it 36.3 s).
Every command's ``time_s`` (start-up, score and best moves: the whole command but Python's own
start) is printed with the load average before it and its start-up (``start``: Ray's
connection and the compiled kernel's load before the first unit; for a local solve, the
solver's load), and the scores and best moves must agree.
With it, where the CPU went while the command ran (``/proc``, Linux): the command's own CPU
seconds (``cmd``: the coordinator, or the whole local solve), each node's (``nodes``: every
process of the node's session, its raylet and agents with its workers), the rest of the
machine's (``others``: other sessions, the idle clusters' own processes), and the command's
nodes over its nodes' CPU seconds (``M/cpu s``): whether a node searches slower beside the
other, or only gets less of a CPU. The end adds each way's CPU over all its commands: the
share of a core each node got, and the share of the machine other sessions took (near 0 on a
quiet machine).
A machine shared with other work makes single timings noisy: the table ends with each way's
median and the per-round ratios (of ``time_s``), with the whole commands' seconds beside
(from starting the command to its end: Python's start, its imports and its closing too). Under
each cluster command, its nodes' CPU by kind of process (:class:`NodeSampler`): the pool
worker, the raylet, a head's GCS, a command's own actors.

Run from the repository root (Ray installed)::

    .venv/bin/python benchmarks/ray_two_nodes.py [--positions 44534 44533 44536] [--rounds 2]
        [--unit-nodes N] [--split 2] [--root-tests K] [--before CHECKOUT]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any, Final

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from ray_nodes import TwoNodes, in_session, session_of  # the tests' cluster, reused as it is
from unit_trace import cpu_seconds, machine_cpu_seconds


class OneNode(TwoNodes):
    """A head alone: :class:`TwoNodes` without its second node."""

    def start_second(self) -> None:
        pass


def _started(clusters: list[TwoNodes], kind: type[TwoNodes], source: str | None) -> TwoNodes:
    """A cluster of ``kind`` whose nodes import zerosum from ``source`` (None: as this
    process does), kept in ``clusters`` to be closed."""
    saved = os.environ.get("PYTHONPATH")
    if source is not None:
        os.environ["PYTHONPATH"] = source
    try:
        cluster = kind()
    finally:
        if saved is None:
            os.environ.pop("PYTHONPATH", None)
        else:
            os.environ["PYTHONPATH"] = saved
    clusters.append(cluster)
    return cluster


def node_cpu_seconds(cluster: TwoNodes | None) -> list[float]:
    """The CPU seconds taken so far by each node of ``cluster`` (the processes of its session
    alive now, with their children that ended and were waited for: a lower bound, since a
    process that ends between two readings is not counted), none for no cluster."""
    if cluster is None:
        return []
    return [sum(cpu_seconds(pid) for pid in in_session(session)) for session in cluster.pids()]


SAMPLE_S: Final = 0.25
"""How often :class:`NodeSampler` reads the nodes' processes while a command runs."""


def process_kind(pid: int) -> str:
    """What process ``pid`` of a Ray node is, from its command line: a Ray worker by its
    title, its method dropped (``ray::PoolWorker``, ``ray::_StopBoard``, ``ray::IDLE``), else
    its program's name, or its script's for Python (``raylet``, ``gcs_server``,
    ``dashboard.py``, ``ray``); "" for a process that is gone."""
    try:
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace").split("\0")
    except OSError:
        return ""
    first = argv[0].strip()
    if first.startswith("ray::"):
        return first.split()[0].partition(".")[0]
    program = os.path.basename(first)
    if program.startswith("python"):
        scripts = [os.path.basename(arg) for arg in argv[1:] if arg and not arg.startswith("-")]
        return scripts[0] if scripts else program
    return program


class NodeSampler:
    """The CPU seconds each node's processes took while a command ran, by kind of process
    (:func:`process_kind`): read when it starts, every :data:`SAMPLE_S` while it runs (in a
    thread) and when it stops, so that a process that starts and ends within the command (a
    command's own short-lived actor) counts up to its last reading (still a lower bound). A
    process first seen after the start counts from 0. Each process counts its own CPU only,
    not its children's that it waited for: those count as themselves (a child counted in its
    parent too would count twice)."""

    def __init__(self, cluster: TwoNodes | None) -> None:
        self._sessions = [] if cluster is None else cluster.pids()
        self._first: list[dict[int, float]] = [{} for _ in self._sessions]
        self._last: list[dict[int, tuple[str, float]]] = [{} for _ in self._sessions]
        self._done = threading.Event()
        self._thread: threading.Thread | None = None

    def _read(self, baseline: bool = False) -> None:
        pids: dict[int | None, list[int]] = {}
        for stat in Path("/proc").glob("[0-9]*/stat"):  # one pass for every node
            pids.setdefault(session_of(int(stat.parent.name)), []).append(int(stat.parent.name))
        for session, first, last in zip(self._sessions, self._first, self._last, strict=True):
            for pid in pids.get(session, []):
                spent, kind = cpu_seconds(pid, children=False), process_kind(pid)
                if not kind:
                    continue  # gone since listed: its last reading stands
                if baseline:
                    first[pid] = spent
                last[pid] = (kind, spent)

    def __enter__(self) -> NodeSampler:
        self._read(baseline=True)
        if self._sessions:
            self._thread = threading.Thread(target=self._sample, daemon=True)
            self._thread.start()
        return self

    def _sample(self) -> None:
        while not self._done.wait(SAMPLE_S):
            self._read()

    def __exit__(self, *exc: object) -> None:
        self._done.set()
        if self._thread is not None:
            self._thread.join()
        self._read()

    def kinds(self) -> list[dict[str, float]]:
        """Each node's CPU seconds by kind of process, the largest first."""
        nodes = []
        for first, last in zip(self._first, self._last, strict=True):
            spent: dict[str, float] = {}
            for pid, (kind, seconds) in last.items():
                spent[kind] = spent.get(kind, 0.0) + seconds - first.get(pid, 0.0)
            ranked = sorted(spent.items(), key=lambda item: -item[1])
            nodes.append({kind: round(seconds, 2) for kind, seconds in ranked})
        return nodes


def children_cpu_seconds() -> float:
    """The CPU seconds of this process's children that have ended (the commands)."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def cpu_line(cpu: dict[str, Any], nodes: int) -> str:
    """A command's CPU use (the module docstring) as printed after its time."""
    line = f" cpu: cmd {cpu['command']:.2f}"
    if cpu["nodes"]:
        spent = sum(cpu["nodes"])
        rate = f", {nodes / spent / 1e6:.2f} M/cpu s" if spent > 0 else ""
        line += f", nodes {[round(used, 2) for used in cpu['nodes']]}{rate}"
    return line + f", others {cpu['others']:.2f}"


def cpu_summary(answers: list[dict[str, Any]], cores: int) -> str:
    """One way's CPU over all its commands (:func:`solve_measured` answers): the share of a
    core each node got (its CPU seconds over the commands' seconds), its nodes over its nodes'
    CPU seconds, and the share of the machine's ``cores`` that other sessions took meanwhile
    (near 0 on a quiet machine)."""
    wall = sum(answer["cpu"]["wall"] for answer in answers)
    line = ""
    spent = [
        sum(used) for used in zip(*(answer["cpu"]["nodes"] for answer in answers), strict=True)
    ]
    if spent and wall > 0 and sum(spent) > 0:
        nodes = sum(answer["nodes"] for answer in answers)
        shares = ", ".join(f"{used / wall:.2f}" for used in spent)
        line += f"a node's share of a core {shares}; {nodes / sum(spent) / 1e6:.2f} M/cpu s; "
    others = sum(answer["cpu"]["others"] for answer in answers)
    return line + f"others {others / (wall * cores) if wall > 0 else 0.0:.2f} of the machine"


def kinds_line(kinds: list[dict[str, float]], most: int = 5) -> str:
    """Each node's CPU seconds by kind of process (:meth:`NodeSampler.kinds`), its ``most``
    largest kinds and the rest, as printed under a command's line."""
    parts = []
    for number, spent in enumerate(kinds, 1):
        shown = list(spent.items())[:most]
        rest = sum(spent.values()) - sum(seconds for _, seconds in shown)
        text = ", ".join(f"{kind} {seconds:.2f}" for kind, seconds in shown)
        parts.append(f"node {number}: {text}" + (f", rest {rest:.2f}" if rest >= 0.005 else ""))
    return "; ".join(parts)


def kinds_summary(answers: list[dict[str, Any]]) -> list[dict[str, float]]:
    """Each node's CPU seconds by kind of process over all of one way's commands."""
    nodes: list[Counter[str]] = []
    for answer in answers:
        for number, spent in enumerate(answer["cpu"].get("kinds", [])):
            if number == len(nodes):
                nodes.append(Counter())
            nodes[number].update(spent)
    return [{kind: round(seconds, 2) for kind, seconds in spent.most_common()} for spent in nodes]


def solve_measured(
    position: str, extra: list[str], env: dict[str, str], cluster: TwoNodes | None
) -> dict[str, Any]:
    """:func:`solve`, with where the CPU went while it ran (``cpu``: ``command``, ``nodes``,
    ``others``, CPU seconds, and ``wall``: the command's seconds from its start to its end)."""
    nodes = node_cpu_seconds(cluster)
    command = children_cpu_seconds()
    machine = machine_cpu_seconds()
    wall = time.perf_counter()
    with NodeSampler(cluster) as sampler:
        answer = solve(position, extra, env)
    wall = time.perf_counter() - wall
    machine = machine_cpu_seconds() - machine
    command = children_cpu_seconds() - command
    nodes = [after - before for before, after in zip(nodes, node_cpu_seconds(cluster), strict=True)]
    answer["cpu"] = {
        "wall": wall,
        "command": command,
        "nodes": nodes,
        "others": max(0.0, machine - command - sum(nodes)),
        "kinds": sampler.kinds(),
    }
    return answer


def solve(position: str, extra: list[str], env: dict[str, str]) -> dict[str, Any]:
    """``zerosum solve connect4 --moves position --json`` with ``extra``: its JSON answer."""
    command = [sys.executable, "-m", "zerosum", "solve", "connect4", "--moves", position]
    done = subprocess.run(
        [*command, *extra, "--json"],
        capture_output=True,
        text=True,
        env=env,
        check=False,
        start_new_session=True,  # a scheduling group of its own, as each Ray node has
    )
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command + extra)} failed:\n{done.stderr[-2000:]}")
    answer: dict[str, Any] = json.loads(done.stdout)
    return answer


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", nargs="+", default=["44534", "44533", "44536"])
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--unit-nodes", type=int, help="solve --unit-nodes (default: solve's)")
    parser.add_argument("--split", type=int, default=2)
    parser.add_argument(
        "--root-tests",
        type=int,
        default=0,
        metavar="K",
        help="also ways 'two-t' and 'one-t': solve --root-tests K on the same clusters",
    )
    parser.add_argument(
        "--before",
        type=Path,
        help="also solve on two and on one node with the zerosum source at BEFORE/src "
        "(another checkout: the code before a change), interleaved with the others",
    )
    args = parser.parse_args()
    if args.rounds < 1:
        parser.error(f"--rounds {args.rounds}: expected 1 or more")
    print(f"command: {' '.join([os.path.basename(sys.executable), *sys.argv])}")
    cluster = ["--split", str(args.split)]
    if args.unit_nodes is not None:
        cluster += ["--unit-nodes", str(args.unit_nodes)]
    clusters: list[TwoNodes] = []
    try:
        two = _started(clusters, TwoNodes, None)
        one = _started(clusters, OneNode, None)
        ways: dict[str, tuple[list[str], dict[str, str], TwoNodes | None]] = {
            "two": (["--cluster", two.address, *cluster], two.env, two),
            "one": (["--cluster", one.address, *cluster], one.env, one),
            "local": (["--no-book"], dict(os.environ), None),
        }
        if args.root_tests:
            tests = ["--root-tests", str(args.root_tests)]
            ways["two-t"] = (["--cluster", two.address, *cluster, *tests], two.env, two)
            ways["one-t"] = (["--cluster", one.address, *cluster, *tests], one.env, one)
        if args.before is not None:
            source = str(args.before.resolve() / "src")
            two_before = _started(clusters, TwoNodes, source)
            one_before = _started(clusters, OneNode, source)
            ways["two-b"] = (
                ["--cluster", two_before.address, *cluster],
                two_before.env,
                two_before,
            )
            ways["one-b"] = (
                ["--cluster", one_before.address, *cluster],
                one_before.env,
                one_before,
            )
        times: dict[str, list[float]] = {way: [] for way in ways}
        measured: dict[str, list[dict[str, Any]]] = {way: [] for way in ways}
        print(
            f"{'round':>5} {'position':>9} {'way':>5} {'load':>5} {'time s':>7} {'score':>5} "
            f"{'best':>4} {'nodes':>12}"
        )
        for number in range(1, args.rounds + 1):
            for position in args.positions:
                answers = {}
                for way, (extra, env, nodes) in ways.items():
                    load = os.getloadavg()[0]
                    answer = solve_measured(position, extra, env, nodes)
                    answers[way] = answer
                    times[way].append(answer["time_s"])
                    measured[way].append(answer)
                    units = ""
                    if way != "local":
                        placed = sorted(answer.get("units_per_node", {}).values())
                        units = (
                            f" units {answer['units_solved']} solved on {placed}, "
                            f"{answer['units_cancelled']} cancelled "
                            f"({answer.get('units_stopped', 0)} stopped), "
                            f"{answer['units_split']} split"
                        )
                    print(
                        f"{number:>5} {position:>9} {way:>5} {load:>5.1f} "
                        f"{answer['time_s']:>7.2f} {answer['score']:>5} "
                        f"{' '.join(answer['best_moves']):>4} {answer['nodes']:>12,}{units}"
                        + f" start {answer.get('startup_s', 0.0):.2f} s"
                        + cpu_line(answer["cpu"], answer["nodes"])
                    )
                    if answer["cpu"]["kinds"]:
                        print(f"{'':>22} by process: {kinds_line(answer['cpu']['kinds'])}")
                values = {(a["score"], tuple(a["best_moves"])) for a in answers.values()}
                assert len(values) == 1, f"{position}: the answers differ: {answers}"
        print("\nway    total s per round (median)   rounds   (whole commands, Python's start too)")
        rounds = args.rounds
        per_round: dict[str, list[float]] = {}
        for way, spent in times.items():
            totals = [
                sum(spent[r * len(args.positions) : (r + 1) * len(args.positions)])
                for r in range(rounds)
            ]
            walls = [answer["cpu"]["wall"] for answer in measured[way]]
            whole = [
                sum(walls[r * len(args.positions) : (r + 1) * len(args.positions)])
                for r in range(rounds)
            ]
            per_round[way] = totals
            print(
                f"{way:>5} {statistics.median(totals):>10.2f}   "
                + " ".join(f"{total:.2f}" for total in totals)
                + "   ("
                + " ".join(f"{total:.2f}" for total in whole)
                + ")"
            )
        for r in range(rounds):
            line = (
                f"round {r + 1}: two/one {per_round['two'][r] / per_round['one'][r]:.2f}, "
                f"two/local {per_round['two'][r] / per_round['local'][r]:.2f}"
            )
            if "two-t" in per_round:
                line += (
                    f"; root tests: two/one {per_round['two-t'][r] / per_round['one-t'][r]:.2f}, "
                    f"two/local {per_round['two-t'][r] / per_round['local'][r]:.2f}"
                )
            if "two-b" in per_round:
                line += (
                    f"; before: two/one {per_round['two-b'][r] / per_round['one-b'][r]:.2f}, "
                    f"two/local {per_round['two-b'][r] / per_round['local'][r]:.2f}"
                )
            print(line)
        print("\nway    CPU over all its commands")
        for way, done in measured.items():
            print(f"{way:>5} {cpu_summary(done, os.cpu_count() or 1)}")
            kinds = kinds_summary(done)
            if kinds:
                print(f"{'':>5} by process: {kinds_line(kinds, most=8)}")
        print(f"load average after: {os.getloadavg()[0]:.2f}")
    finally:
        for started in clusters:
            started.close()


if __name__ == "__main__":
    main()

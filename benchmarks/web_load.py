"""The web server under load from hostile clients: searches at once, latency, memory.

Starts ``zerosum serve`` on a free port and, as one client that does not play fair:

1. **thinks**: starts ``--thinks`` searches at once (connect four, ``time`` 6 s each) and,
   while they run, counts the server's search processes and times the page (``GET /``) and
   ``GET /api/health``; then the answers' status codes;
2. **clients that leave**: starts 4 searches of 30 s and drops the connections after 1 s;
   counts the searches still running 2 s later;
3. **explains**: asks for ``--explains`` search trees at once (connect four, depth 8, the
   largest tree) and times ``/api/health`` meanwhile;
4. **memory**: creates ``--sessions`` sessions, each a ``--moves``-move game of nine men's
   morris without its draw rules (so it can be that long), and reads the server's resident
   memory before and after;
5. **floods** on the live websocket, each while a thread times ``GET /api/health`` and
   ``GET /`` every 20 ms: 5,000 think messages sent at once on one socket; 1,000 a second for
   5 s on one socket; two sockets at 500 a second for 5 s. For each: the latencies during the
   flood and until the server runs no search again, the messages sent before the server
   closed the socket, its close code (1008: a client that kept flooding), the error events
   read, and the seconds until ``searches`` is 0 again.

Prints each figure, the status codes the server answered, and the command that made them.
Needs ``psutil``, ``httpx`` and ``websockets`` (the ``dev`` extra). ``--parts`` picks some.

    PYTHONPATH=src python benchmarks/web_load.py
    PYTHONPATH=src python benchmarks/web_load.py --thinks 20 --sessions 300 --moves 1000
    PYTHONPATH=src python benchmarks/web_load.py --parts floods
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import os
import random
import statistics
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from typing import Any

import httpx
import psutil
import websockets

from zerosum.games import get_game

LONG_MORRIS = "morris:repetition=none,moves=none"


def long_morris_game(moves: int, seed: int = 1) -> list[str]:
    """A legal game of ``moves`` random moves that never ends the game (no draw rules)."""
    game = get_game(LONG_MORRIS).new()
    rng = random.Random(seed)
    played: list[str] = []
    while len(played) < moves:
        legal = game.legal_moves()
        rng.shuffle(legal)
        for move in legal:
            game.make(move)
            if game.outcome() is None:
                break
            game.undo()
        else:
            raise RuntimeError(f"no move keeps the game going after {len(played)} moves")
        game.undo()
        played.append(game.format_move(move))
        game.make(move)
    return played


def start_server(extra: list[str]) -> tuple[subprocess.Popen[str], str]:
    process = subprocess.Popen(
        [sys.executable, "-m", "zerosum", "serve", "--port", "0", *extra],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    line = process.stdout.readline()
    if "http://" not in line:
        process.kill()
        raise SystemExit(f"zerosum serve did not start: {line!r}")
    return process, line.split("http://", 1)[1].split()[0].rstrip("/")


def rss_mb(pid: int) -> float:
    return float(psutil.Process(pid).memory_info().rss) / 2**20


def searches(pid: int, baseline: int) -> int:
    """The server's child processes beyond those it had idle (the fork server)."""
    return len(psutil.Process(pid).children(recursive=True)) - baseline


async def timed(call: Callable[[], Awaitable[httpx.Response]]) -> float:
    started = time.perf_counter()
    response = await call()
    response.raise_for_status()
    return (time.perf_counter() - started) * 1000


def summary(samples: list[float]) -> str:
    if not samples:
        return "no samples"
    return (
        f"median {statistics.median(samples):.1f} ms, max {max(samples):.1f} ms "
        f"({len(samples)} requests)"
    )


async def new_session(client: httpx.AsyncClient, game: str, moves: list[str]) -> str | None:
    response = await client.post("/api/sessions", json={"game": game, "moves": moves})
    return str(response.json()["id"]) if response.status_code == 201 else None


async def sample_while(
    busy: asyncio.Future[Any],
    client: httpx.AsyncClient,
    pid: int,
    baseline: int,
    figures: dict[str, Any],
) -> None:
    """Time the page and the health check, and count searches, until ``busy`` is done."""
    figures.setdefault("page", [])
    figures.setdefault("health", [])
    figures["processes"] = 0
    while not busy.done():
        figures["processes"] = max(figures["processes"], searches(pid, baseline))
        figures["page"].append(await timed(lambda: client.get("/")))
        figures["health"].append(await timed(lambda: client.get("/api/health")))
        await asyncio.sleep(0.1)


PARTS = ("thinks", "leaving", "explains", "memory", "floods")
THINK = '{"action": "think", "time": 1}'
WINDOW = 6.0
"""Seconds the probes run from each flood's start, at least (the flood may end sooner)."""


def _probe(base: str, every: float, ready: Any, done: Any, results: Any) -> None:
    """The prober's process: time the requests until ``done`` is set, then send the samples."""
    # A connection per request, as a browser's first request or curl: a kept-alive httpx
    # connection adds about 40 ms a request here (Nagle's algorithm against delayed ACKs).
    health: list[float] = []
    page: list[float] = []
    searching: list[int] = []
    fresh = httpx.Limits(max_keepalive_connections=0)
    with httpx.Client(base_url=base, timeout=120.0, limits=fresh) as client:
        client.get("/api/health")  # the first request pays the imports: not a sample
        ready.set()
        while not done.is_set():
            for path, samples in (("/api/health", health), ("/", page)):
                started = time.perf_counter()
                response = client.get(path)
                samples.append((time.perf_counter() - started) * 1000)
                if path == "/api/health":
                    searching.append(int(response.json()["searches"]))
            done.wait(every)
    results.send((health, page, searching))


class Prober:
    """Times ``GET /api/health`` and ``GET /`` every ``every`` seconds from a process of its
    own (so neither the flooding client's loop nor its share of the interpreter delays it)
    until :meth:`finish`."""

    def __init__(self, base: str, every: float = 0.02) -> None:
        context = multiprocessing.get_context("spawn")
        self._ready, self._done = context.Event(), context.Event()
        self._results, sending = context.Pipe(duplex=False)
        self._process = context.Process(
            target=_probe, args=(base, every, self._ready, self._done, sending), daemon=True
        )
        self.health: list[float] = []
        self.page: list[float] = []
        self.searches: list[int] = []

    def start(self) -> None:
        """Start probing; returns once the prober is timing requests."""
        self._process.start()
        self._ready.wait()

    def finish(self) -> None:
        self._done.set()
        self.health, self.page, self.searches = self._results.recv()
        self._process.join()


async def flood(url: str, count: int, rate: float | None) -> dict[str, Any]:
    """Send ``count`` thinks on one socket (``rate`` a second; ``None``: all at once), reading
    the server's events meanwhile; what the server did to the socket."""
    sent = errors = 0
    code: int | None = None
    async with websockets.connect(url, max_queue=None) as socket:

        async def read() -> None:
            nonlocal errors
            async for message in socket:
                if '"error"' in str(message):
                    errors += 1

        reader = asyncio.ensure_future(read())
        started = time.perf_counter()
        try:
            for index in range(count):
                if rate is not None:
                    delay = started + index / rate - time.perf_counter()
                    if delay > 0:
                        await asyncio.sleep(delay)
                await socket.send(THINK)
                sent += 1
        except websockets.ConnectionClosed:
            pass
        try:
            await asyncio.wait_for(reader, 30)
        except (TimeoutError, websockets.ConnectionClosed):
            reader.cancel()
        code = socket.close_code
    return {"sent": sent, "errors": errors, "code": code}


async def floods(base: str, address: str, probe: httpx.AsyncClient) -> None:
    cases: list[tuple[str, list[tuple[int, float | None]]]] = [
        ("5,000 thinks at once on one socket", [(5000, None)]),
        ("1,000 thinks a second for 5 s on one socket", [(5000, 1000.0)]),
        ("two sockets at 500 thinks a second for 5 s", [(2500, 500.0), (2500, 500.0)]),
    ]
    for name, sockets in cases:
        sid = await new_session(probe, "connect4", [])
        url = f"ws://{address}/api/sessions/{sid}/live"
        prober = Prober(base)
        prober.start()
        started = time.perf_counter()
        results = await asyncio.gather(*(flood(url, count, rate) for count, rate in sockets))
        flooded = time.perf_counter() - started
        while (await probe.get("/api/health")).json()["searches"]:
            await asyncio.sleep(0.05)
        recovered = time.perf_counter() - started
        await asyncio.sleep(max(0.0, WINDOW - recovered))  # probes over the whole window
        prober.finish()
        over = sum(1 for sample in prober.health + prober.page if sample > 100)
        print(
            f"{name}: flood {flooded:.2f} s, searches 0 again after {recovered:.2f} s; "
            f"over the first {max(WINDOW, recovered):.0f} s: "
            f"health {summary(prober.health)}; page {summary(prober.page)}; "
            f"{over} requests over 100 ms; at most {max(prober.searches, default=0)} searches"
        )
        for index, result in enumerate(results, start=1):
            print(
                f"  socket {index}: {result['sent']} messages sent before it closed, close code "
                f"{result['code']}, {result['errors']} error events read"
            )


async def run(args: argparse.Namespace, pid: int, base: str) -> None:
    limits = httpx.Limits(max_connections=None, max_keepalive_connections=None)
    timeout = httpx.Timeout(120.0)
    async with (
        httpx.AsyncClient(base_url=base, limits=limits, timeout=timeout) as client,
        httpx.AsyncClient(base_url=base, timeout=timeout) as probe,
    ):
        await asyncio.sleep(1.0)  # the fork server starts with the app
        baseline = len(psutil.Process(pid).children(recursive=True))
        idle = Prober(base)
        idle.start()
        await asyncio.sleep(2.0)
        idle.finish()
        print(
            f"idle, a connection per request: page {summary(idle.page)}; "
            f"health {summary(idle.health)}"
        )

        if "floods" in args.parts:
            await floods(base, base.removeprefix("http://"), probe)
        if "thinks" not in args.parts:
            return

        # 1. thinks at once
        ids = [await new_session(client, "connect4", []) for _ in range(args.thinks)]
        body = {"depth": 0, "time": 6}
        thinks = asyncio.gather(
            *(client.post(f"/api/sessions/{sid}/think", json=body) for sid in ids if sid)
        )
        figures: dict[str, Any] = {}
        await sample_while(thinks, probe, pid, baseline, figures)
        codes = Counter(response.status_code for response in await thinks)
        print(
            f"{args.thinks} thinks at once: at most {figures['processes']} search processes; "
            f"page {summary(figures['page'])}; health {summary(figures['health'])}; "
            f"answers {dict(sorted(codes.items()))}"
        )

        # 2. clients that leave
        ids = [await new_session(probe, "connect4", []) for _ in range(4)]
        async with httpx.AsyncClient(base_url=base, limits=limits, timeout=timeout) as leaving:
            tasks = [
                asyncio.ensure_future(
                    leaving.post(f"/api/sessions/{sid}/think", json={"depth": 0, "time": 30})
                )
                for sid in ids
                if sid
            ]
            await asyncio.sleep(1.0)
            running = (await probe.get("/api/health")).json()["searches"]
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
        await asyncio.sleep(2.0)
        after = (await probe.get("/api/health")).json()["searches"]
        print(
            f"4 thinks of 30 s, clients gone after 1 s: {running} running at 1 s, "
            f"{after} still running 2 s after the clients left "
            f"({searches(pid, baseline)} search processes)"
        )
        while (await probe.get("/api/health")).json()["searches"]:
            await asyncio.sleep(0.5)

        # 3. explains at once
        ids = [await new_session(client, "connect4", []) for _ in range(args.explains)]
        explains = asyncio.gather(
            *(
                client.get(f"/api/sessions/{sid}/explain", params={"depth": 8, "max_nodes": 5000})
                for sid in ids
                if sid
            )
        )
        figures = {}
        started = time.perf_counter()
        await sample_while(explains, probe, pid, baseline, figures)
        codes = Counter(response.status_code for response in await explains)
        print(
            f"{args.explains} explains at once ({time.perf_counter() - started:.1f} s): "
            f"health {summary(figures['health'])}; page {summary(figures['page'])}; "
            f"answers {dict(sorted(codes.items()))}"
        )

        # 4. memory
        moves = long_morris_game(args.moves)
        before = rss_mb(pid)
        codes = Counter()
        started = time.perf_counter()
        batch = 8
        for first in range(0, args.sessions, batch):
            count = min(batch, args.sessions - first)
            answers = await asyncio.gather(
                *(
                    client.post("/api/sessions", json={"game": LONG_MORRIS, "moves": moves})
                    for _ in range(count)
                )
            )
            codes.update(response.status_code for response in answers)
        live = (await probe.get("/api/health")).json()["sessions"]
        print(
            f"{args.sessions} sessions of {args.moves} morris moves "
            f"({time.perf_counter() - started:.1f} s): server RSS {before:.0f} MB -> "
            f"{rss_mb(pid):.0f} MB; {live} sessions kept; answers {dict(sorted(codes.items()))}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--thinks", type=int, default=50)
    parser.add_argument("--explains", type=int, default=40)
    parser.add_argument("--sessions", type=int, default=1100)
    parser.add_argument("--moves", type=int, default=2000)
    parser.add_argument("--serve", default="", help="extra options of zerosum serve")
    parser.add_argument(
        "--parts",
        nargs="+",
        choices=PARTS,
        default=list(PARTS),
        help="which parts to run: floods runs first, the others run together",
    )
    args = parser.parse_args()
    print("command: PYTHONPATH=src python benchmarks/web_load.py " + " ".join(sys.argv[1:]))
    print(f"machine: {os.cpu_count()} CPUs; date {time.strftime('%Y-%m-%d')}")
    process, address = start_server(args.serve.split())
    try:
        asyncio.run(run(args, process.pid, f"http://{address}"))
    finally:
        process.terminate()
        process.wait(timeout=10)


if __name__ == "__main__":
    main()

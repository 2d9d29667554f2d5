"""Issue 24's probe, rerun: every break its "Why" lists, replayed as a hostile local client and
an unlucky user would, against a running ``zerosum serve``, the command line and ``zerosum uci``.

Each item prints ``holds`` or ``BREAKS`` with its figure; the last line counts them, and the
exit status is 1 if any item breaks. ``--parts`` picks some of: web (slot leak, floods, binary
frame, a FEN's huge move number, the security headers, ``serve --host ""``), library (a reused
engine against a fresh one), cli (huge numbers, ``/dev/urandom`` as a positions file, the
damaged, read-only and locked store, ``match --a uci:/bin/cat``, ``play chess`` with an
illegal SAN move), uci (``go nodes 10^30``, a 1 MB unknown command, a huge FEN move number)
and page (the page items, in Debian's Chromium through Playwright).

    PYTHONPATH=src nice -n 10 python benchmarks/hardening_probe.py
    PYTHONPATH=src python benchmarks/hardening_probe.py --parts web library

The floods reuse ``benchmarks/web_load.py``'s flood and prober (a process of its own timing
``GET /api/health`` and ``GET /`` every 20 ms). "Within 100 ms" is judged on the maximum of
those latencies, printed next to the same figures over as long a window with no flood just
before (the machine's own delays at that moment: on a loaded machine a request may wait for
a core whatever the server does).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import hashlib
import json
import os
import re
import signal
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import psutil
import websockets
import websockets.sync.client

sys.path.insert(0, str(Path(__file__).resolve().parent))
import web_load  # the floods and the prober of the load benchmark

ZEROSUM = [sys.executable, "-m", "zerosum"]
PARTS = ("web", "library", "cli", "uci", "page")
BIG = 10**20
START_FEN = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 {}"
RESULTS: list[tuple[str, bool]] = []


def report(item: str, holds: bool, figure: str) -> None:
    RESULTS.append((item, holds))
    print(f"{'holds ' if holds else 'BREAKS'}  {item}: {figure}", flush=True)


def run(argv: list[str], **options: Any) -> subprocess.CompletedProcess[str]:
    options.setdefault("timeout", 600)
    return subprocess.run(
        [*ZEROSUM, *argv], capture_output=True, text=True, stdin=subprocess.DEVNULL, **options
    )


def one_line(
    done: subprocess.CompletedProcess[str], *words: str, status: int = 2
) -> tuple[bool, str]:
    """Whether a command failed as bad input should: ``status``, one line on stderr, a
    ``zerosum: error:`` naming ``words``, no traceback; and what it said."""
    lines = done.stderr.strip().splitlines()
    last = lines[-1] if lines else ""
    good = (
        done.returncode == status
        and "Traceback" not in done.stderr
        and len(lines) == 1
        and last.startswith("zerosum: error: ")
        and all(word in last for word in words)
    )
    return good, f"exit {done.returncode}, stderr {len(lines)} line(s): {last[:150]!r}"


def percentile(samples: list[float], share: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else 0.0


def latency(samples: list[float]) -> str:
    if not samples:
        return "no samples"
    return (
        f"median {statistics.median(samples):.1f}, p99 {percentile(samples, 0.99):.1f}, "
        f"max {max(samples):.1f} ms ({len(samples)} requests)"
    )


# -- the web app ------------------------------------------------------------------------------


@contextmanager
def served(*extra: str) -> Iterator[tuple[str, Path]]:
    """``zerosum serve`` on a free port: its address and its log (stderr)."""
    log = Path(tempfile.mkstemp(prefix="probe-serve-", suffix=".log")[1])
    with log.open("w") as err:
        process = subprocess.Popen(
            [*ZEROSUM, "serve", "--port", "0", *extra],
            stdout=subprocess.PIPE,
            stderr=err,
            text=True,
        )
    assert process.stdout is not None
    line = process.stdout.readline()
    if "http://" not in line:
        process.kill()
        raise SystemExit(f"zerosum serve did not start: {line!r} {log.read_text()}")
    try:
        yield line.split("http://", 1)[1].split()[0].rstrip("/"), log
    finally:
        process.terminate()
        process.wait(timeout=30)


def session(client: httpx.Client, game: str = "connect4", **body: Any) -> str:
    answer = client.post("/api/sessions", json={"game": game, **body})
    answer.raise_for_status()
    return str(answer.json()["id"])


def wait_searches_zero(client: httpx.Client, bound: float = 120.0) -> float | None:
    """Seconds until ``/api/health`` says no search runs (``None``: not within ``bound``)."""
    started = time.perf_counter()
    while client.get("/api/health").json()["searches"]:
        if time.perf_counter() - started > bound:
            return None
        time.sleep(0.05)
    return time.perf_counter() - started


def probe_web() -> None:
    with served() as (address, log), httpx.Client(base_url=f"http://{address}", timeout=120) as c:
        # 1. five thinks, each socket closed right after its message
        sid = session(c)
        for _ in range(5):
            with websockets.sync.client.connect(f"ws://{address}/api/sessions/{sid}/live") as ws:
                ws.send('{"action": "think", "time": 1}')
        freed = wait_searches_zero(c)
        think = c.post(f"/api/sessions/{sid}/think", json={"depth": 1, "time": 5})
        report(
            "search slot after 5 think-and-close",
            freed is not None and think.status_code == 200,
            f"searches 0 again after {freed if freed is None else round(freed, 2)} s; "
            f"the next think answers {think.status_code}",
        )

        # 2. floods, each timed by a prober process of its own, each after a window as long
        # with no flood (the machine's own delays at that moment)
        cases: list[tuple[str, list[tuple[int, float | None]]]] = [
            ("flood: 5,000 thinks at once on one socket", [(5000, None)]),
            ("flood: 1,000 thinks a second for 5 s on one socket", [(5000, 1000.0)]),
            ("flood: two sockets at 500 thinks a second for 5 s", [(2500, 500.0), (2500, 500.0)]),
        ]
        for name, sockets in cases:
            control = web_load.Prober(f"http://{address}")
            control.start()
            time.sleep(web_load.WINDOW)
            control.finish()
            url = f"ws://{address}/api/sessions/{session(c)}/live"
            prober = web_load.Prober(f"http://{address}")
            prober.start()
            started = time.perf_counter()

            async def flood_all(url: str = url, sockets: Any = sockets) -> list[dict[str, Any]]:
                return list(await asyncio.gather(*(web_load.flood(url, n, r) for n, r in sockets)))

            results = asyncio.run(flood_all())
            recovered = wait_searches_zero(c)
            time.sleep(max(0.0, web_load.WINDOW - (time.perf_counter() - started)))
            prober.finish()
            worst = max(prober.health + prober.page, default=0.0)
            closes = ", ".join(
                f"{r['sent']} sent, close {r['code']}, {r['errors']} errors" for r in results
            )
            report(
                name,
                worst <= 100 and recovered is not None,
                f"health {latency(prober.health)}; page {latency(prober.page)}; "
                f"searches 0 again {recovered if recovered is None else round(recovered, 2)} s "
                f"after the flood began; sockets: {closes}; load {os.getloadavg()[0]:.1f}; "
                f"the {web_load.WINDOW:g} s before it, no flood: health "
                f"{latency(control.health)}; page {latency(control.page)}",
            )

        # 3. a binary frame
        sid = session(c, "tictactoe", moves=["b2", "a1"])
        with websockets.sync.client.connect(f"ws://{address}/api/sessions/{sid}/live") as ws:
            ws.send(b'{"action": "think"}')
            event = json.loads(ws.recv(timeout=60))
            ws.send('{"action": "think", "depth": 2, "time": 5}')
            kinds = []
            while (kind := json.loads(ws.recv(timeout=120))["type"]) not in ("done", "error"):
                kinds.append(kind)
        wait_searches_zero(c)
        logged = log.read_text()
        report(
            "binary frame",
            event["type"] == "error" and kind == "done" and "Traceback" not in logged,
            f"answered {event['type']}: {event.get('message', '')!r}; the socket then "
            f"searched to '{kind}'; tracebacks in the server's log: {logged.count('Traceback')}",
        )

        # 4. a FEN whose full-move number is 10^20
        answer = c.post("/api/sessions", json={"game": "chess", "position": START_FEN.format(BIG)})
        report(
            "web: FEN with full-move number 10^20",
            answer.status_code == 422,
            f"POST /api/sessions answers {answer.status_code}: {answer.text[:120]}",
        )

        # 4b. OpenSpiel parameters that break pyspiel (a segfault, a 500, 90,000 actions;
        # hex(board_size=100000) took the server to 22 GB and the OOM killer: not replayed)
        for game in ("connect_four(rows=0)", "connect_four(rows=-1)", "hex(board_size=300)"):
            answer = c.post("/api/sessions", json={"game": f"openspiel:{game}"})
            alive = c.get("/api/health").status_code == 200
            report(
                f"web: openspiel:{game}",
                answer.status_code == 422 and alive,
                f"POST /api/sessions answers {answer.status_code}: {answer.text[:110]}; "
                f"the server {'answers' if alive else 'is gone'}",
            )

        # 5. the security headers on uvicorn's own 400 and on the websocket's 403
        host, port = address.split(":")
        heads = []
        upgrade = (
            f"GET /api/sessions/x/live HTTP/1.1\r\nHost: {address}\r\nUpgrade: websocket\r\n"
            "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
            "Sec-WebSocket-Version: 13\r\nOrigin: http://evil.example\r\n\r\n"
        ).encode()
        for request in (b"NOT HTTP AT ALL\r\n\r\n", upgrade):
            with socket.create_connection((host, int(port)), timeout=60) as connection:
                connection.sendall(request)
                answer_bytes = b""
                while b"\r\n\r\n" not in answer_bytes and (chunk := connection.recv(65536)):
                    answer_bytes += chunk
            heads.append(answer_bytes.split(b"\r\n\r\n")[0].decode("latin-1").lower())
        needed = ("x-frame-options: deny", "content-security-policy:", "x-content-type-options")
        for head in heads:
            status = head.split("\r\n")[0]
            missing = [name for name in needed if name not in head]
            report(
                f"security headers on '{status}'",
                not missing and (" 400 " in status or " 403 " in status),
                f"missing: {missing or 'none'}",
            )

    # 6. an empty --host
    done = run(["serve", "--host", ""], timeout=60)
    good, said = one_line(done, "--host")
    report('serve --host ""', good, said)


# -- the library ------------------------------------------------------------------------------


def probe_library() -> None:
    from zerosum.engines import COMPILED, open_engine
    from zerosum.games import get_game
    from zerosum.search import Limit

    for name, shallow, deep in (("connect4", 2, 10), ("othello", 2, 6)):
        spec = get_game(name)
        with open_engine(spec, COMPILED) as engine:
            engine.search(spec.new(), Limit(depth=shallow))
            again = engine.search(spec.new(), Limit(depth=deep))
        with open_engine(spec, COMPILED) as engine:
            first = engine.search(spec.new(), Limit(depth=deep))

        def answer(result: Any) -> tuple[Any, ...]:
            return (result.value, result.depth, result.solved, result.stats.nodes)

        report(
            f"reused compiled engine, {name}: depth {shallow} then {deep}",
            answer(again) == answer(first),
            f"reused (value, depth, solved, nodes) {answer(again)}, fresh {answer(first)}",
        )


# -- the command line -------------------------------------------------------------------------


def peak_memory(argv: list[str], bound_mb: float, seconds: float) -> tuple[float, float, str]:
    """Run ``argv``, killing it past ``bound_mb`` of resident memory or ``seconds``: its peak
    resident MB, its time, and how it ended."""
    process = subprocess.Popen(
        [*ZEROSUM, *argv], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    peak, started, ended = 0.0, time.perf_counter(), ""
    watched = psutil.Process(process.pid)
    while process.poll() is None:
        try:
            peak = max(peak, watched.memory_info().rss / 2**20)
        except psutil.NoSuchProcess:
            break
        if peak > bound_mb or time.perf_counter() - started > seconds:
            process.kill()
            ended = f"killed at {peak:.0f} MB"
            break
        time.sleep(0.02)
    _, err = process.communicate()
    elapsed = time.perf_counter() - started
    lines = err.strip().splitlines()
    ended = ended or f"exit {process.returncode}: {lines[-1][:120] if lines else ''!r}"
    if "Traceback" in err:
        ended += " (a traceback)"
    return peak, elapsed, ended


def real_store(path: Path, rows: int = 60_000) -> Path:
    """A store of ``rows`` results (about 1.4 MB) in its one file."""
    from zerosum.store import Store

    with Store(path) as store:
        store.put("tictactoe", 1, 0)
    db = sqlite3.connect(path)
    db.executemany(
        "INSERT INTO solved VALUES (?, ?, ?, ?)",
        [("connect4", key * 7919, 0, key % 5 - 2) for key in range(rows)],
    )
    db.commit()
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    return path


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


SOLVE = ["solve", "tictactoe", "--moves", "a1", "b2", "c3", "--algorithm", "compiled"]
"""A solve that stores what it proves."""


def probe_cli(workdir: Path) -> None:
    # huge numbers
    for argv in (
        ["analyze", "chess", "--position", START_FEN.format(BIG)],
        ["perft", "chess", "--position", START_FEN.format(BIG), "--depth", "1"],
        ["analyze", "chess", "--nodes", str(10**23)],
    ):
        good, said = one_line(run(argv))
        report(" ".join(a if len(a) < 30 else a[:20] + "..." for a in argv), good, said)

    # OpenSpiel parameters that crash pyspiel, and SPRT bounds past what the test computes
    for argv in (
        ["legal", "openspiel:connect_four(rows=0)"],
        ["legal", "openspiel:connect_four(rows=-1)"],
        ["match", "tictactoe", "--a", "depth=1", "--b", "depth=1", "--sprt", "0,1e308",
         "--games", "2"],
    ):  # fmt: skip
        good, said = one_line(run(argv))
        report(" ".join(argv), good, said)

    # a split deeper than the game: the whole tree below the root expanded, without end
    argv = ["solve", "connect4", "--split", "1000", "--cluster", "local", "--no-book", "--moves",
            *"444444333333"]  # fmt: skip
    started = time.perf_counter()
    try:
        good, said = one_line(run(argv, timeout=300), "--split")
    except subprocess.TimeoutExpired:
        good, said = False, "still running after 300 s"
    report(
        "solve --split 1000 --cluster local", good, f"{time.perf_counter() - started:.1f} s; {said}"
    )

    # SIGTERM to a command with worker processes (kill, timeout, a service manager)
    process = subprocess.Popen(
        [*ZEROSUM, "analyze", "connect4", "--workers", "2", "--time", "3600"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
    )  # fmt: skip
    try:
        assert process.stdout is not None
        process.stdout.readline()  # the first iteration: the workers are searching
        watched = psutil.Process(process.pid)
        while len(workers := watched.children(recursive=True)) < 2:
            time.sleep(0.05)
        process.terminate()
        _, err = process.communicate(timeout=600)
        _, alive = psutil.wait_procs(workers, timeout=60)
        report(
            "SIGTERM to analyze --workers 2",
            not alive and "Traceback" not in err,
            f"exit {process.returncode}; {len(alive)} of {len(workers)} worker processes left",
        )
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)

    # /dev/urandom as a positions file
    peak, elapsed, ended = peak_memory(
        ["solve", "connect4", "--positions", "/dev/urandom"], bound_mb=1024, seconds=120
    )
    report(
        "solve --positions /dev/urandom",
        ended.startswith("exit 2") and "Traceback" not in ended and peak < 1024,
        f"peak resident {peak:.0f} MB, {elapsed:.2f} s, {ended}",
    )

    # a store with 8 KB overwritten in its middle
    for argv in (
        SOLVE,
        ["book", "tictactoe", "--moves", "a1", "b2", "c3", "--plies", "1"],
        ["build-endgames", "morris", "--max-men", "3"],
    ):
        bad = real_store(workdir / f"bad-{argv[0]}.sqlite")
        with bad.open("r+b") as file:
            file.seek(bad.stat().st_size // 2)
            file.write(os.urandom(8192))
        before, size = digest(bad), bad.stat().st_size
        good, said = one_line(run([*argv, "--store", str(bad)]), "damaged")
        unchanged = digest(bad) == before
        report(
            f"damaged store: {argv[0]}",
            good and unchanged,
            f"{said}; store {'unchanged' if unchanged else 'WRITTEN'} ({size:,} bytes)",
        )

    # a read-only store, as a user who is not root (root writes through permission bits)
    folder = Path(tempfile.mkdtemp(prefix="probe-ro-"))
    folder.chmod(0o755)
    store = real_store(folder / "ro.sqlite", rows=10)
    store.chmod(0o444)
    before = digest(store)
    as_nobody = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
    environment = {**os.environ, "NUMBA_CACHE_DIR": str(folder / "numba"), "HOME": str(folder)}
    (folder / "numba").mkdir()
    os.chown(folder / "numba", 65534, 65534)
    done = subprocess.run(
        [*as_nobody, *ZEROSUM, *SOLVE, "--store", str(store)],
        capture_output=True,
        text=True,
        env=environment,
        timeout=600,
    )
    good, said = one_line(done, "read-only")
    report(
        "read-only store (chmod 444, user nobody)",
        good and digest(store) == before,
        said,
    )
    # the same through a read-only mount (root too), where the kernel refuses the write
    mounted = subprocess.run(
        [
            "unshare",
            "-m",
            "sh",
            "-c",
            f'mount --bind -o ro "{folder}" "{folder}" && exec "$@"',
            "sh",
            *ZEROSUM,
            *SOLVE,
            "--store",
            str(store),
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    if "mount" in mounted.stderr and "zerosum" not in mounted.stderr:
        print(f"        read-only mount not possible here: {mounted.stderr.strip()[:100]}")
    else:
        good, said = one_line(mounted, "read-only")
        report("read-only store (a read-only mount, root)", good, said)

    # a store held by another writer for 30 s
    path = real_store(workdir / "locked.sqlite", rows=10)
    holder = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    holder.execute("BEGIN IMMEDIATE")
    timer = threading.Timer(30.0, lambda: holder.execute("ROLLBACK"))
    timer.start()
    started = time.perf_counter()
    done = run([*SOLVE, "--store", str(path)])
    elapsed = time.perf_counter() - started
    timer.join()
    holder.close()
    lines = done.stderr.strip().splitlines()
    report(
        "store locked by another writer for 30 s",
        done.returncode == 0 and "Traceback" not in done.stderr and len(lines) == 1,
        f"exit {done.returncode} after {elapsed:.1f} s; stderr: {lines[:2]}",
    )

    # a program that is no UCI engine
    started = time.perf_counter()
    done = run(["match", "chess", "--a", "uci:/bin/cat", "--b", "uci:/bin/cat", "--games", "1"])
    elapsed = time.perf_counter() - started
    good, said = one_line(done, "cannot start UCI engine")
    reason = done.stderr.strip().splitlines()[-1] if done.stderr.strip() else ""
    report(
        "match --a uci:/bin/cat",
        good and elapsed < 10 and not reason.rstrip().endswith(":"),
        f"{elapsed:.2f} s; {said}",
    )

    # play chess: an illegal SAN move gets the legal moves in SAN
    done = subprocess.run(
        [*ZEROSUM, "play", "chess", "--level", "1", "--seed", "3"],
        input="Ke3\nquit\n",
        capture_output=True,
        text=True,
        timeout=600,
    )
    refused = next((line for line in done.stdout.splitlines() if "Ke3 is not legal" in line), "")
    report(
        "play chess: an illegal SAN move",
        " Nf3 " in refused + " " and "g1f3" not in refused,
        f"{refused[:110]!r}",
    )


# -- the UCI engine ---------------------------------------------------------------------------


class Uci:
    """``zerosum uci`` with a reader thread."""

    def __init__(self) -> None:
        self.process = subprocess.Popen(
            [*ZEROSUM, "uci"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
        self.lines: list[str] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.append(line.rstrip("\n"))

    def send(self, line: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()

    def wait(self, test: Callable[[str], bool], since: int, bound: float = 600) -> int:
        deadline = time.monotonic() + bound
        while time.monotonic() < deadline:
            for index in range(since, len(self.lines)):
                if test(self.lines[index]):
                    return index
            time.sleep(0.01)
        raise SystemExit(f"zerosum uci: no answer in {bound} s; last lines {self.lines[-5:]}")

    def close(self) -> None:
        self.send("quit")
        self.process.wait(timeout=60)


def probe_uci() -> None:
    engine = Uci()
    try:
        engine.send("uci")
        engine.send("isready")
        engine.wait(lambda line: line == "readyok", 0)
        mark = len(engine.lines)
        engine.send("position startpos")
        engine.send("go nodes " + str(10**30))
        engine.wait(lambda line: line.startswith("info depth"), mark)
        engine.send("stop")
        best = engine.wait(lambda line: line.startswith("bestmove"), mark)
        said = engine.lines[mark : best + 1]
        failed = [line for line in said if "search failed" in line or "error" in line.lower()]
        clamped = [line for line in said if line.startswith("info string")]
        report(
            "uci go nodes 10^30",
            not failed and said[-1].split()[1] != "(none)",
            f"{said[-1]!r}; info strings {clamped[:1]}; failures {failed[:1]}",
        )

        mark = len(engine.lines)
        engine.send("x" * 1_000_000)
        engine.send("isready")
        ready = engine.wait(lambda line: line == "readyok", mark)
        longest = max((len(line) for line in engine.lines[mark:ready]), default=0)
        report(
            "uci: a 1 MB unknown command",
            longest < 2000,
            f"the longest line sent back: {longest:,} characters",
        )

        mark = len(engine.lines)
        engine.send("position fen " + START_FEN.format(BIG))
        engine.send("isready")
        ready = engine.wait(lambda line: line == "readyok", mark)
        said = engine.lines[mark:ready]
        report(
            "uci: FEN with full-move number 10^20",
            any("full-move" in line for line in said) and engine.process.poll() is None,
            f"{said[:1]}",
        )

        # every go after the compiled engine loaded said 'info string  (weaker)'
        mark = len(engine.lines)
        engine.send("go depth 2")
        engine.wait(lambda line: line.startswith("bestmove"), mark)
        empty = [line for line in engine.lines if line.startswith("info string  ")]
        report(
            "uci: no info string without its text",
            not empty,
            f"{len(empty)} such lines, e.g. {empty[:1]}",
        )
    finally:
        engine.close()


# -- the page ---------------------------------------------------------------------------------


def probe_page() -> None:
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=300_000)  # a cold compile under load
    args = ["--no-sandbox", "--disable-gpu", "--no-first-run"]
    with served() as (address, _), sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path="/usr/bin/chromium", headless=True, args=args
        )
        page = browser.new_page(viewport={"width": 1280, "height": 1000})
        server = f"http://{address}"

        def open_game(game: str) -> None:
            page.goto(f"{server}/?game={game}")
            expect(page.locator("body")).to_have_attribute("data-ready", "yes")
            expect(page.locator("#board svg, #board pre")).to_be_visible()

        # the evaluation line after a computer move
        open_game("tictactoe")
        page.select_option("#level", "2")
        page.fill("#think-time", "5")
        page.locator("#board [data-move='a1'].legal").click()
        expect(page.locator("#movelist .move")).to_have_count(2)
        expect(page.locator("#evaltext")).not_to_have_text(re.compile("\u2013$"))
        shown, score = page.locator("#evaltext").inner_text(), page.locator("#f-score").inner_text()
        report(
            "page: evaluation after the computer's move",
            "\u2013" not in shown and score.split(" for ")[0] in shown,
            f"{shown!r}; search panel {score!r}",
        )

        # the explain legend on the chess and Othello pages
        for game, side in (("chess", "White"), ("othello", None)):
            open_game(game)
            legend = page.locator("#key-max").inner_text(), page.locator("#key-min").inner_text()
            wrong = any("X to move" in text or "O to move" in text for text in legend)
            report(
                f"page: explain legend on {game}",
                not wrong and (side is None or legend[0].startswith(side)),
                f"{legend}",
            )

        # the explain tree fits its box
        open_game("connect4")
        depths = page.locator("#explain-depth option").all_inner_texts()
        page.select_option("#explain-depth", depths[-1])
        page.click("#explain-run")
        expect(page.locator("#explain-summary")).to_contain_text("cut-offs")
        sizes = page.locator("#tree").evaluate(
            "b => ({box: b.clientWidth, scroll: b.scrollWidth,"
            " svg: b.querySelector('svg').getBoundingClientRect().width,"
            " natural: Number(b.dataset.width)})"
        )
        report(
            "page: explain tree width",
            sizes["scroll"] <= sizes["box"] and sizes["svg"] <= sizes["box"] + 1,
            f"tree {sizes['natural']:.0f} px drawn {sizes['svg']:.0f} px in a "
            f"{sizes['box']} px box (scroll width {sizes['scroll']})",
        )

        # the morris board names its points
        open_game("morris")
        names = page.locator("#board .point-name").all_text_contents()
        report("page: morris point names", len(set(names)) == 24, f"{len(names)} names drawn")

        # chess in SAN everywhere a person reads
        open_game("chess")
        page.select_option("#side", "both")
        page.fill("#moves", "e2e4 e7e5 g1f3")
        page.click("#load")
        expect(page.locator("#movelist .move")).to_have_count(3)
        page.fill("#think-time", "2")
        page.click("#engine")
        expect(page.locator("#movelist .move")).to_have_count(4)
        pv = page.locator("#f-pv").inner_text().split()
        box = page.locator("#moves").input_value().split()
        listed = page.locator("#movelist .move").all_inner_texts()
        uci = re.compile(r"^[a-h][1-8][a-h][1-8][qrbn]?$")
        in_uci = [move for move in pv + box + listed if uci.match(move)]
        report(
            "page: chess in SAN",
            not in_uci and bool(pv),
            f"pv {pv[:4]}, moves box {box}, list {listed}; in UCI: {in_uci}",
        )
        browser.close()


# -- main -------------------------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--parts", nargs="+", choices=PARTS, default=list(PARTS))
    args = parser.parse_args()
    print("command: PYTHONPATH=src python benchmarks/hardening_probe.py " + " ".join(sys.argv[1:]))
    print(f"machine: {os.cpu_count()} CPUs, load {os.getloadavg()}; {time.strftime('%F %T')}")
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    with tempfile.TemporaryDirectory(prefix="probe-") as folder:
        for part in args.parts:
            started = time.perf_counter()
            print(f"== {part}", flush=True)
            if part == "web":
                probe_web()
            elif part == "library":
                probe_library()
            elif part == "cli":
                probe_cli(Path(folder))
            elif part == "uci":
                probe_uci()
            else:
                probe_page()
            print(f"   ({time.perf_counter() - started:.0f} s; load {os.getloadavg()})")
    broken = [item for item, holds in RESULTS if not holds]
    print(f"{len(RESULTS) - len(broken)} of {len(RESULTS)} items hold; breaks: {broken or 'none'}")
    sys.exit(1 if broken else 0)


if __name__ == "__main__":
    main()

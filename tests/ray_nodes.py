"""A real Ray cluster of two nodes on this machine, for the tests (``ray start`` processes).

Each node is its own ``ray start --block`` process group (a head, and a second node joined by
address), with one CPU and a resource of its own (``head`` or ``second``), token
authentication on with a token of the cluster's own, its own temporary directory and ports.
:meth:`TwoNodes.close` kills every process it started (each group with SIGKILL), also when a
test failed; :meth:`TwoNodes.kill_second` loses the second node as a crashed machine would.
A node that does not start within :data:`START_S` is an error that shows its output: a
machine that cannot start a cluster fails the tests, it does not skip them.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Final

from waiting import HANG_S

START_S: Final = HANG_S
"""How long a node may take to start: a bound against a hang only (a loaded 2-core machine
takes minutes)."""
READY: Final = "Ray runtime started"
"""What ``ray start`` prints once its node has joined."""


def free_port() -> int:
    """A TCP port nobody listens at now, outside Ray's worker range (10002-19999)."""
    while True:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = int(probe.getsockname()[1])
        if not 10000 <= port < 20000:
            return port


def _ray_command() -> list[str]:
    script = Path(sys.executable).with_name("ray")
    if not script.exists():
        raise RuntimeError(f"no 'ray' command beside {sys.executable}: expected Ray installed")
    return [str(script)]


class _Node:
    """One ``ray start --block`` process group and the lines it printed."""

    def __init__(self, name: str, args: list[str], env: dict[str, str]) -> None:
        self.name = name
        self.lines: list[str] = []
        self.process = subprocess.Popen(
            [*_ray_command(), "start", *args, "--block", "--disable-usage-stats"],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            text=True,
            env=env,
            start_new_session=True,  # its own group: killed as one
        )
        self._ready = threading.Event()
        assert self.process.stdout is not None
        threading.Thread(target=self._read, args=(self.process.stdout,), daemon=True).start()

    def _read(self, out: IO[str]) -> None:
        for line in out:
            self.lines.append(line.rstrip())
            if READY in line:
                self._ready.set()

    def wait_ready(self) -> None:
        deadline = time.monotonic() + START_S
        while not self._ready.wait(0.2):
            if self.process.poll() is not None or time.monotonic() > deadline:
                output = "\n".join(self.lines[-30:])
                raise RuntimeError(
                    f"the Ray {self.name} did not start (exit {self.process.poll()}):\n{output}"
                )

    def kill(self) -> None:
        """SIGKILL to every process of the node at once, as a crashed machine: the ``ray
        start`` group (raylet, agents, the GCS of a head) and its workers, which lead groups
        of their own in the same session."""
        session = self.process.pid
        for pid in [session, *in_session(session)]:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(session, signal.SIGKILL)
        self.process.wait(timeout=HANG_S)


def session_of(pid: int) -> int | None:
    """The session of process ``pid`` (Linux: field 6 of ``/proc/PID/stat``), ``None`` when it
    is gone."""
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[3])
    except (OSError, ValueError, IndexError):
        return None


def in_session(session: int) -> list[int]:
    """The processes of a session (:func:`session_of`)."""
    pids = (int(stat.parent.name) for stat in Path("/proc").glob("[0-9]*/stat"))
    return [pid for pid in pids if session_of(pid) == session]


@contextlib.contextmanager
def holding_token(token: str, home: Path) -> Iterator[None]:
    """This process holds ``token`` in RAY_AUTH_TOKEN, with no token file and no RAY_AUTH_MODE
    (as a user who only exported the token), and ``home`` as HOME. Afterwards the environment
    and Ray's view of it (its mode and its cached token) are as before, so a local Ray started
    later in this process is not given this cluster's token."""
    import ray._raylet

    names = ("RAY_AUTH_MODE", "RAY_AUTH_TOKEN", "RAY_AUTH_TOKEN_PATH", "HOME")
    saved = {name: os.environ.get(name) for name in names}
    os.environ.pop("RAY_AUTH_MODE", None)
    os.environ.pop("RAY_AUTH_TOKEN_PATH", None)
    os.environ.update(HOME=str(home), RAY_AUTH_TOKEN=token)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        ray._raylet.Config.initialize("")
        ray._raylet.AuthenticationTokenLoader.instance().reset_cache()


HEALTH_CHECKS = '{"health_check_period_ms": 500, "health_check_failure_threshold": 3}'
"""The head's health checks of the other nodes (Ray's system config)."""


class TwoNodes:
    """A head and a second node; :attr:`address` joins them, :attr:`token` is the token."""

    def __init__(self) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="zr"))  # short: Ray's socket paths are long
        self.token = secrets.token_hex(32)
        home = self.root / "home"
        home.mkdir()
        self.env = {
            **os.environ,
            "HOME": str(home),  # no token file of the user's
            "RAY_AUTH_MODE": "token",
            "RAY_AUTH_TOKEN": self.token,
            "RAY_USAGE_STATS_ENABLED": "0",
        }
        self.port = free_port()
        self.address = f"127.0.0.1:{self.port}"
        self.head: _Node | None = None
        self.second: _Node | None = None
        self.lost = False
        """The second node was killed (:meth:`ensure_second` starts it again)."""
        try:
            self.head = _Node("head", self._node_args("head", head=True), self.env)
            self.head.wait_ready()
            self.start_second()
        except BaseException:
            self.close()
            raise

    def _node_args(self, name: str, *, head: bool) -> list[str]:
        where = ["--head", "--port", str(self.port)] if head else ["--address", self.address]
        return [
            *where,
            "--node-ip-address",
            "127.0.0.1",
            "--num-cpus",
            "1",
            "--resources",
            f'{{"{name}": 1}}',
            "--temp-dir",
            str(self.root / name),
            *(["--include-dashboard", "false", "--dashboard-port", str(free_port())] * head),
            # a killed node is found dead in about 1.5 s, not Ray's default of about 15 s
            *(["--system-config", HEALTH_CHECKS] * head),
            "--dashboard-agent-listen-port",
            str(free_port()),
            "--dashboard-agent-grpc-port",
            str(free_port()),
            "--metrics-export-port",
            str(free_port()),
            "--runtime-env-agent-port",
            str(free_port()),
        ]

    def start_second(self) -> None:
        """The second node, started (again) and joined to the head."""
        if self.second is not None:
            self.second.kill()
        shutil.rmtree(self.root / "second", ignore_errors=True)
        self.second = _Node("second node", self._node_args("second", head=False), self.env)
        self.second.wait_ready()

    def kill_second(self) -> None:
        """Lose the second node at once, as a crashed machine."""
        assert self.second is not None
        self.second.kill()
        self.lost = True

    def on_second(self, pid: int) -> bool:
        """Whether process ``pid`` is one of the second node's (its raylet, agents, workers)."""
        return self.second is not None and session_of(pid) == self.second.process.pid

    def ensure_second(self) -> None:
        """The second node, started again if it was lost."""
        if self.lost:
            self.start_second()
            self.lost = False

    def pids(self) -> list[int]:
        """The process groups started here (their leaders' ids)."""
        return [node.process.pid for node in (self.head, self.second) if node is not None]

    def close(self) -> None:
        for node in (self.second, self.head):
            if node is not None:
                node.kill()
        shutil.rmtree(self.root, ignore_errors=True)


@contextlib.contextmanager
def joined(nodes: TwoNodes, home: Path) -> Iterator[TwoNodes]:
    """Both of ``nodes`` up (the second started again if a test lost it, and then waited for
    until the head counts just the two running nodes), joined from this process with the
    cluster's token (as a user who exported it: :func:`holding_token`, ``home`` as HOME)."""
    restarted = nodes.lost
    nodes.ensure_second()
    with holding_token(nodes.token, home):
        if restarted:
            both_alive(nodes)
        yield nodes


def both_alive(nodes: TwoNodes) -> None:
    """Wait until the head counts just the two running nodes: a second node killed earlier
    stays alive in its view (and its CPU in the cluster's) until its health checks fail. Needs
    the cluster's token (:func:`holding_token`)."""
    from zerosum.runtime.cluster import RayTaskExecutor

    with RayTaskExecutor(nodes.address) as probe:
        deadline = time.monotonic() + HANG_S
        while sum(node["Alive"] for node in probe._ray.nodes()) != 2:
            assert time.monotonic() < deadline, probe._ray.nodes()
            time.sleep(0.1)  # polling an observable state, not waiting a fixed time

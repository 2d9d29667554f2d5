"""Joining a Ray cluster: its address, its token, its versions, then ``ray.init``.

``ray.init(address=...)`` retries for about 20 s whatever went wrong (nobody listening, a
missing or refused token, another Ray version) and then says only that it failed to connect.
:func:`connect` asks first, in a few seconds at most, and turns each failure into one line that
says what to do:

1. The address is ``host:port`` (or ``ray://host:port``) and something listens there.
2. The cluster's GCS answers a request for the cluster's metadata, at most :data:`ASK_S`
   seconds after it is sent; a cluster with token authentication refuses a request without its
   token.
3. The Ray and Python versions in that metadata are this process's (Ray refuses others).
4. ``ray.init`` joins.

Tokens. Ray 2.59 turned token authentication on by default for clusters started on one
machine and 2.61 for all clusters, but ``ray.init`` with an explicit address sends a token only
when ``RAY_AUTH_MODE=token`` is set. So when ``RAY_AUTH_MODE`` is not set and the cluster asks
for a token, :func:`connect` turns token mode on for this process (as ``ray.init`` does for a
cluster it starts) and sends the token from Ray's own sources, in Ray's order: the
``RAY_AUTH_TOKEN`` variable, the file named by ``RAY_AUTH_TOKEN_PATH``, then
``~/.ray/auth_token`` (``ray get-auth-token`` prints the head's). A cluster without token
authentication is joined without one. ``RAY_AUTH_MODE`` set by the user is obeyed as it is.

A Ray Client address (``ray://``) skips steps 2 and 3: it is not the GCS.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import logging
import os
import signal
import socket
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final

from zerosum.game import ZerosumError
from zerosum.runtime.signals import sigint_held
from zerosum.textfile import TextFileError, read_lines

AUTO: Final = "auto"
"""``--cluster auto``: start a local Ray instance for this process."""
CONNECT_S: Final = 5.0
"""How long a TCP connection to the cluster's address may take."""
ASK_S: Final = 5.0
"""How long the cluster's GCS may take to answer."""
_MODE: Final = "RAY_AUTH_MODE"
_TOKEN: Final = "RAY_AUTH_TOKEN"
_TOKEN_PATH: Final = "RAY_AUTH_TOKEN_PATH"
_METADATA: Final = (b"CLUSTER_METADATA", b"cluster")
"""Where Ray keeps a cluster's versions in its GCS (key, namespace)."""


class ClusterError(ZerosumError, RuntimeError):
    """Ray is missing, or the cluster cannot be joined (the message says why and what to do)."""


def ray_module() -> Any:
    """The ``ray`` module, imported now (it is optional, and slow to import)."""
    try:
        return importlib.import_module("ray")
    except ImportError:
        raise ClusterError(
            "Ray is not installed: expected 'pip install zerosum[ray]' for --cluster"
        ) from None


def check_reachable(address: str) -> None:
    """Fail fast on a malformed address or a ``host:port`` nobody listens at."""
    host, _, port = address.removeprefix("ray://").rpartition(":")
    if not host or not port.isdigit():
        raise ClusterError(
            f"cluster address {address!r} is malformed: expected 'auto', host:port or "
            "ray://host:port"
        )
    try:
        socket.create_connection((host, int(port)), timeout=CONNECT_S).close()
    except OSError as error:
        raise ClusterError(
            f"no Ray cluster answers at {address!r} ({error.strerror or error}): expected "
            "'auto' or the address of a running cluster (start one with "
            "'ray start --head --port PORT', join it with --cluster HOST:PORT)"
        ) from None


def token_source() -> str | None:
    """Where Ray would take this process's token from (in Ray's order), or None. A
    ``RAY_AUTH_TOKEN_PATH`` that cannot be read is an error now (Ray aborts the process)."""
    if os.environ.get(_TOKEN, "").strip():
        return _TOKEN
    path = os.environ.get(_TOKEN_PATH)
    if path:
        try:
            text = "\n".join(line for _, line in read_lines(path, what="token file", max_lines=100))
        except TextFileError as error:
            raise ClusterError(
                f"{_TOKEN_PATH} names {path}, which cannot be read ({error}): expected a file "
                "holding the cluster's token"
            ) from None
        if not text.strip():
            raise ClusterError(
                f"{_TOKEN_PATH} names {path}, which is empty: expected a file holding the "
                "cluster's token"
            )
        return f"{_TOKEN_PATH} ({path})"
    default = Path.home() / ".ray" / "auth_token"
    with contextlib.suppress(OSError):
        if default.read_text(encoding="utf-8").strip():
            return "~/.ray/auth_token"
    return None


def _token_mode(raylet: Any, on: bool) -> None:
    """Token authentication on (or back to unset) for this process from now on: Ray reads its
    mode from the environment, and its token loader caches what it read."""
    if on:
        os.environ[_MODE] = "token"
    else:
        os.environ.pop(_MODE, None)
    raylet.Config.initialize("")
    raylet.AuthenticationTokenLoader.instance().reset_cache()


@contextlib.contextmanager
def _quiet_stderr() -> Iterator[None]:
    """File descriptor 2 to /dev/null: Ray's C++ client logs each refused request there."""
    try:
        saved = os.dup(2)
    except OSError:  # no stderr at all
        yield
        return
    try:
        with open(os.devnull, "wb") as null:
            os.dup2(null.fileno(), 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def _ask(raylet: Any, address: str) -> tuple[str, Any]:
    """One request for the cluster's metadata: ``("ok", metadata)``, ``("refused", error)``
    (a token missing or wrong), ``("no answer", error)`` (not a Ray GCS, or not in time)."""
    box: list[tuple[str, Any]] = []
    errors = importlib.import_module("ray.exceptions")

    def ask() -> None:
        try:
            client = raylet.GcsClient(address=address)
            data = client.internal_kv_get(_METADATA[0], namespace=_METADATA[1], timeout=ASK_S)
            box.append(("ok", json.loads(data.decode("utf-8")) if data else {}))
        except errors.AuthenticationError as error:
            box.append(("refused", error))
        except Exception as error:
            box.append(("no answer", error))

    # A daemon thread: a port that accepts but never answers keeps Ray's client busy for
    # 40 s, and the command must not wait for it.
    thread = threading.Thread(target=ask, name="zerosum-ray-probe", daemon=True)
    with _quiet_stderr():
        thread.start()
        thread.join(ASK_S)
    return box[0] if box else ("no answer", TimeoutError(f"no answer within {ASK_S:g} s"))


def _first_line(error: BaseException) -> str:
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    return lines[0].rstrip(".") if lines else type(error).__name__


def check_cluster(address: str) -> None:
    """Steps 2 and 3 of the module docstring for a GCS address: the cluster answers (with the
    token it asks for, turning token mode on when ``RAY_AUTH_MODE`` is not set) and runs this
    process's Ray and Python versions; else a :class:`ClusterError` saying what to do."""
    ray = ray_module()
    raylet = importlib.import_module("ray._raylet")
    mode = os.environ.get(_MODE, "").strip().lower()
    fetch = "'ray get-auth-token' on the head prints its token"
    missing = (
        f"the Ray cluster at {address!r} requires a token and none was found: expected the "
        f"cluster's token in {_TOKEN}, in the file named by {_TOKEN_PATH}, or in "
        f"~/.ray/auth_token ({fetch})"
    )
    source = token_source()  # a token file that cannot be read: an error now
    if mode == "token" and source is None:  # Ray's client aborts the process without one
        raise ClusterError(missing.replace("requires a token", f"is joined with {_MODE}=token"))
    # Ray's view of the mode and the token as the environment has them now
    raylet.Config.initialize("")
    raylet.AuthenticationTokenLoader.instance().reset_cache()
    answer, detail = _ask(raylet, address)
    if answer == "refused" and not mode and source is not None:
        _token_mode(raylet, True)  # as ray.init does for a cluster it starts
        answer, detail = _ask(raylet, address)
        if answer != "ok":
            _token_mode(raylet, False)
    if answer == "refused":
        if mode == "disabled":
            raise ClusterError(
                f"the Ray cluster at {address!r} requires a token and {_MODE}=disabled here: "
                f"expected {_MODE}=token (or unset) and the cluster's token ({fetch})"
            )
        if source is None:
            raise ClusterError(missing)
        raise ClusterError(
            f"the Ray cluster at {address!r} refused the token from {source}: expected the "
            f"token the cluster was started with ({fetch})"
        )
    if answer == "no answer":
        raise ClusterError(
            f"something listens at {address!r} but no Ray cluster answers "
            f"({_first_line(detail)}): expected the head's address and port ('ray start "
            "--head --port PORT', 6379 by default)"
        )
    theirs = (str(detail.get("ray_version", "?")), str(detail.get("python_version", "?")))
    python = ".".join(str(part) for part in sys.version_info[:3])
    ours = (str(ray.__version__), python)
    # Ray's own rule: the same Ray, and the same Python down to the patch level unless
    # RAY_DEFAULT_PYTHON_VERSION_MATCH_LEVEL says 'minor'.
    level = 2 if os.environ.get("RAY_DEFAULT_PYTHON_VERSION_MATCH_LEVEL") == "minor" else 3
    if theirs[0] != ours[0] or theirs[1].split(".")[:level] != ours[1].split(".")[:level]:
        raise ClusterError(
            f"the Ray cluster at {address!r} runs Ray {theirs[0]} on Python {theirs[1]}, and "
            f"this process Ray {ours[0]} on Python {ours[1]}: expected the same versions "
            f"(install ray=={theirs[0]} on Python {theirs[1]} here, or start the cluster "
            "with this Ray)"
        )


def connect(address: str = AUTO, *, workers: int = 0) -> tuple[Any, bool]:
    """Ray, connected: to a local Ray started here when ``address`` is ``auto`` (with
    ``workers`` CPUs, 0: one per core), else to the cluster at ``address`` after the checks of
    the module docstring. Returns the ``ray`` module and whether this call connected (then the
    caller calls ``ray.shutdown()``, which stops a local Ray and only disconnects from a
    cluster); a process already connected keeps what it has.

    Ctrl-C is held while Ray starts: its head processes inherit the blocked signal, so a
    Ctrl-C at the terminal (sent to the whole foreground process group) reaches only this
    process, which then shuts Ray down in order. One that came meanwhile is delivered after."""
    ray = ray_module()
    if ray.is_initialized():
        return ray, False
    options: dict[str, Any] = {
        "include_dashboard": False,
        "logging_level": "ERROR",
        "log_to_driver": False,
        "configure_logging": False,
    }
    logger = logging.getLogger("ray")
    level = logger.level
    # ray.init makes SIGTERM exit at once; a caller's own handler (match: stop like Ctrl-C)
    # is put back after it.
    terminate = signal.getsignal(signal.SIGTERM)
    owned = False
    try:
        with sigint_held():
            logger.setLevel(logging.ERROR)  # no start-up notices on the terminal
            try:
                if address == AUTO:  # "local": a new Ray, even if one runs on this machine
                    ray.init(address="local", num_cpus=workers or os.cpu_count() or 1, **options)
                else:
                    check_reachable(address)
                    if not address.startswith("ray://"):
                        check_cluster(address)
                    ray.init(address=address, **options)
            except ClusterError:
                raise
            except Exception as error:  # Ray raises many kinds; all mean "no cluster"
                raise ClusterError(
                    f"cannot join the Ray cluster at {address!r} ({_first_line(error)}): "
                    "expected 'auto' or the address of a running cluster (host:port or "
                    "ray://host:port), reachable from this machine"
                ) from None
            owned = True
        return ray, owned
    except BaseException:  # a Ctrl-C held during the start arrives here
        if owned:
            ray.shutdown()
        raise
    finally:
        logger.setLevel(level)
        if callable(terminate) and threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGTERM, terminate)

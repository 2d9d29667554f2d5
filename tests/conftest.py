"""Shared test helpers: the public data folder (``tests/data``, see its README)."""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from ray_nodes import TwoNodes

# The front ends answer with a pure-Python twin while a compiled engine compiles in a child
# process (zerosum.engines.warming); tests compare the compiled engines' own output, so they
# wait for the compile unless a test asks for the background (tests/test_warming.py).
os.environ.setdefault("ZEROSUM_COMPILE", "wait")

DATA = Path(__file__).resolve().parent / "data"

MOST_TEST_PROCESSES = 4
"""The most processes the default set runs on: each loads numba and its compiled engines
(several hundred megabytes), and beyond four the set's longest files bound its time."""


@pytest.fixture(scope="session")
def data_dir() -> Path:
    return DATA


@pytest.fixture(scope="session")
def two_ray_nodes() -> Iterator[TwoNodes]:
    """One real two-node Ray cluster (:class:`ray_nodes.TwoNodes`) for every test file of the
    slow set that needs one: starting it takes 10-60 s on a busy machine. A test may lose its
    second node; :func:`ray_nodes.joined` brings it back for the next. Its tests run last
    (:func:`pytest_collection_modifyitems`), so no other test meets its processes; it is
    killed at the end."""
    pytest.importorskip("ray")
    nodes = TwoNodes()
    try:
        yield nodes
    finally:
        nodes.close()


@pytest.fixture
def without_ray(monkeypatch: pytest.MonkeyPatch) -> None:
    """Ray cannot be imported, as on a machine without it: only Ray's import fails, every other
    module (a game's, loaded by name) imports as usual, whatever ran before in the process."""
    import importlib

    real = importlib.import_module

    def import_module(name: str, package: str | None = None) -> object:
        if name == "ray" or name.startswith("ray."):
            raise ImportError(f"No module named {name!r}")
        return real(name, package)

    monkeypatch.setattr(importlib, "import_module", import_module)


ON_EVERY_CORE = (["not", "slow"], ["slow", "and", "not", "ray"])
"""The selections ``-n auto`` runs on every core: the default set, and the slow set without its
Ray tests (CI runs those next, alone: ``-m 'slow and ray'``)."""


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """How many processes ``-n auto`` (the default, pyproject.toml) runs the tests on: for a
    selection in :data:`ON_EVERY_CORE` one a core, at most :data:`MOST_TEST_PROCESSES`; for any
    other (``-m slow``, ``-m 'slow and ray'``, ``-m ''``) none, and pytest runs as it would
    without xdist: the slow set's cluster tests share one two-node Ray cluster and run last,
    alone (see :func:`pytest_collection_modifyitems`). ``-n 0`` runs any set in this process."""
    if (config.getoption("markexpr") or "").split() not in ON_EVERY_CORE:
        return 0
    return max(1, min(os.cpu_count() or 1, MOST_TEST_PROCESSES))


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The tests on the session's two-node cluster (:func:`two_ray_nodes`) run last, in their
    order: no other test runs beside its nodes (a test that counts Ray's processes, or starts
    a local Ray, would meet them)."""
    items.sort(key=lambda item: "two_ray_nodes" in getattr(item, "fixturenames", ()))


@pytest.fixture(autouse=True)
def sigint_as_python_starts_it() -> Iterator[None]:
    """Every test starts and ends with SIGINT as Python starts: unblocked in the main thread and
    raising KeyboardInterrupt. A test whose code left it blocked or ignored (a worker's set-up,
    an interrupted hold) would otherwise pass that on to every later test and to every process
    they start (a child inherits the blocked mask and the ignored disposition), and their
    Ctrl-C tests would then wait for a signal that never comes."""

    def restore() -> None:
        if hasattr(signal, "pthread_sigmask"):
            signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
        signal.signal(signal.SIGINT, signal.default_int_handler)

    restore()
    yield
    restore()


@pytest.fixture(autouse=True)
def web_jobs_answer_when_they_can(monkeypatch: pytest.MonkeyPatch) -> None:
    """A web search asked to stop at its time limit has ``jobs.GRACE`` (2 s) to answer before
    it is killed and its job ends in an error; a starved child on a loaded machine can miss
    that, and a test asking for a search of a second or two would then fail on the machine's
    schedule. In the tests GRACE is the hang bound (what they check is that the search was
    asked to stop, and what it answered); the tests of the kill itself set it to 0. Only when
    the web app is loaded (its modules are heavy: never imported for this)."""
    jobs = sys.modules.get("zerosum.web.jobs")
    if jobs is not None:
        from waiting import HANG_S

        monkeypatch.setattr(jobs, "GRACE", HANG_S)

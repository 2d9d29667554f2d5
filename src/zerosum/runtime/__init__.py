"""Where work runs: executors, worker processes, the split scheduler and signal handling.

The runtime sits below the engines and the front ends and knows no game:

* :mod:`.executor`: one interface for running independent work units (a distributed solve's
  units, a match's games): :class:`SerialExecutor`, :class:`ProcessExecutor`;
* :mod:`.cluster`: the same interface on Ray (tasks or actors), imported only when asked for;
* :mod:`.pool`: Ray workers that outlive a command (named, detached actors), reused by the
  next one; :mod:`.raybase`: what the Ray backends share (the stop board of a command's units);
* :mod:`.workers`: :func:`worker_init`, the first step of every worker process, and
  :class:`WorkerGroup`, workers answering on pipes with stop flags (the search pools);
* :mod:`.scheduler`: :class:`Split`, the send/fill/wait loop every parallel search runs;
* :mod:`.signals`: Ctrl-C and SIGTERM in a process with workers.

Importing this package imports neither numba nor Ray.
"""

from __future__ import annotations

from zerosum.runtime.executor import (
    Executor,
    ProcessExecutor,
    SerialExecutor,
    WorkerError,
)
from zerosum.runtime.scheduler import Plan, Split, Verdict
from zerosum.runtime.signals import ignore_sigint, sigint_held
from zerosum.runtime.workers import (
    WORKER_IMPORTS,
    Activity,
    WorkerGroup,
    resolve_workers,
    worker_init,
)

__all__ = [
    "WORKER_IMPORTS",
    "Activity",
    "Executor",
    "Plan",
    "ProcessExecutor",
    "SerialExecutor",
    "Split",
    "Verdict",
    "WorkerError",
    "WorkerGroup",
    "ignore_sigint",
    "resolve_workers",
    "sigint_held",
    "worker_init",
]

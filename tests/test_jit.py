"""``zerosum.jit``: the disk cache of compiled functions notices changes in imported modules."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

from zerosum.jit import fingerprint, imported_modules

SOURCES = {
    "pkg": "",
    "pkg.search": "from pkg import (\n    board as b,  # the board\n)\nimport pkg.tables\n",
    "pkg.board": "from pkg.rules import legal\nimport numpy\n",
    "pkg.rules": "def legal(): ...\n",
    "pkg.tables": "WEIGHTS = (1, 2)\n",
    "pkg.other": "X = 1\n",
}


def reader(sources: dict[str, str]):  # type: ignore[no-untyped-def]
    return sources.get


def test_imports_are_followed_through_every_form() -> None:
    found = imported_modules(SOURCES["pkg.search"], "pkg")
    assert {"pkg", "pkg.board", "pkg.tables"} <= found
    assert "numpy" not in imported_modules(SOURCES["pkg.board"], "pkg")


def test_the_fingerprint_changes_with_any_module_imported_directly_or_not() -> None:
    before = fingerprint("pkg.search", reader(SOURCES))
    assert fingerprint("pkg.search", reader(SOURCES)) == before
    for changed in ("pkg.search", "pkg.board", "pkg.rules", "pkg.tables"):
        edited = {**SOURCES, changed: SOURCES[changed] + "# edited\n"}
        assert fingerprint("pkg.search", reader(edited)) != before, changed
    unrelated = {**SOURCES, "pkg.other": "X = 2\n"}
    assert fingerprint("pkg.search", reader(unrelated)) == before


def test_a_cached_function_recompiles_when_only_the_module_it_calls_changed(
    tmp_path: Path,
) -> None:
    package = tmp_path / "jitprobe"
    package.mkdir()
    (package / "__init__.py").write_text("")
    callee = textwrap.dedent(
        """
        from numba import njit

        @njit(cache=True)
        def base():
            return {value}
        """
    )
    (package / "callee.py").write_text(callee.format(value=1))
    (package / "caller.py").write_text(
        textwrap.dedent(
            """
            from jitprobe import callee
            from zerosum.jit import cached_njit

            @cached_njit()
            def total():
                return callee.base() + 10
            """
        )
    )
    src = Path(__file__).resolve().parents[1] / "src"
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(src)])}
    environment.pop("NUMBA_CACHE_DIR", None)  # the cache this test looks for is beside the source

    def run() -> str:
        command = [sys.executable, "-c", "from jitprobe import caller; print(caller.total())"]
        done = subprocess.run(command, env=environment, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        return done.stdout.strip()

    assert run() == "11"
    assert list((package / "__pycache__").glob("caller.total-*.nbi")), "cached on disk"
    assert run() == "11"  # from the cache
    (package / "callee.py").write_text(callee.format(value=2))  # the caller's file is unchanged
    assert run() == "12"


def test_a_function_is_compiled_once_whatever_constants_its_callers_pass() -> None:
    # Plain numba compiles ``pick`` three times here: for the literal 0, the literal 1 and int64.
    import numpy as np
    from numba import njit

    from zerosum.jit import without_literals

    def pick(values: Any, kind: int) -> int:
        return int(values[kind])

    compiled_pick = njit(pick)
    without_literals(compiled_pick)

    def callers(values: Any, kind: int) -> int:
        return compiled_pick(values, 0) + compiled_pick(values, 1) + compiled_pick(values, kind)

    assert njit(callers)(np.array([1, 10, 100]), 2) == 111
    assert len(compiled_pick.overloads) == 1

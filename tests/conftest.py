"""Shared test helpers: the public data folder (``tests/data``, see its README)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

# The front ends answer with a pure-Python twin while a compiled engine compiles in a child
# process (zerosum.engines.warming); tests compare the compiled engines' own output, so they
# wait for the compile unless a test asks for the background (tests/test_warming.py).
os.environ.setdefault("ZEROSUM_COMPILE", "wait")

DATA = Path(__file__).resolve().parent / "data"


@pytest.fixture(scope="session")
def data_dir() -> Path:
    return DATA

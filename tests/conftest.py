"""Shared test helpers: the public data folder and a synthetic random game."""

from __future__ import annotations

from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


@pytest.fixture(scope="session")
def data_dir() -> Path:
    if not DATA.is_dir():
        pytest.fail(f"public test data not found at {DATA}: shared/ must sit beside the repo")
    return DATA

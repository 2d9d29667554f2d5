"""``benchmarks/tune_chess.py tune``: a small fit moves its weights, and ``--freeze`` keeps the
weights it names where they are."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TUNER = ROOT / "benchmarks" / "tune_chess.py"


@pytest.fixture(scope="module")
def labelled(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The first 400 positions of the shipped labelled file (about 16 games)."""
    lines = (ROOT / "benchmarks" / "data" / "chess_tune_labelled.txt").read_text().splitlines()
    path = tmp_path_factory.mktemp("tune") / "labelled.txt"
    path.write_text("\n".join(lines[:400]) + "\n")
    return path


def tune(labelled: Path, out: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    settings = ["--steps", "40", "--rate", "2", "--king-attack-rounds", "0", "--l2", "1e-8"]
    return subprocess.run(
        [sys.executable, str(TUNER), "tune", str(labelled), *settings, "--out", str(out), *extra],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=ROOT,
    )


def test_frozen_weights_stay_and_the_others_move(labelled: Path, tmp_path: Path) -> None:
    run = tune(labelled, tmp_path / "free.json")
    assert run.returncode == 0, run.stderr
    free = json.loads((tmp_path / "free.json").read_text())
    run = tune(labelled, tmp_path / "frozen.json", "--freeze", "SAFE_CHECK", "MATERIAL_MG")
    assert run.returncode == 0, run.stderr
    frozen = json.loads((tmp_path / "frozen.json").read_text())
    names = set(frozen["frozen"])
    assert "SAFE_CHECK_MG[2]" in names and "SAFE_CHECK_EG[5]" in names
    assert "MATERIAL_MG[queen]" in names and "MATERIAL_EG[queen]" not in names
    assert len(names) == 8 + 5
    for name in names:
        assert frozen["weights"][name]["to"] == frozen["weights"][name]["from"], name
    # Unfrozen, the same fit moves some of them, and the frozen fit moves other weights.
    assert any(free["weights"][n]["to"] != free["weights"][n]["from"] for n in names)
    assert any(w["to"] != w["from"] for n, w in frozen["weights"].items() if n not in names)
    assert free["frozen"] == []


def test_a_prefix_that_names_no_weight_is_an_error(labelled: Path, tmp_path: Path) -> None:
    run = tune(labelled, tmp_path / "out.json", "--freeze", "NO_SUCH_WEIGHT")
    assert run.returncode != 0
    assert "--freeze NO_SUCH_WEIGHT names no weight" in run.stderr
    assert not (tmp_path / "out.json").exists()


def test_the_shipped_fourth_fit_applies_to_a_copy_of_the_sources(tmp_path: Path) -> None:
    games = tmp_path / "zerosum" / "games"
    games.mkdir(parents=True)
    for name in ("chess_evaluation.py", "chess_tables.py"):
        (games / name).write_bytes((ROOT / "src" / "zerosum" / "games" / name).read_bytes())
    fit = ROOT / "benchmarks" / "data" / "chess_tune_fit4.json.gz"
    run = subprocess.run(
        [sys.executable, str(TUNER), "apply", str(fit), str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=ROOT,
    )
    assert run.returncode == 0, run.stderr
    text = (games / "chess_evaluation.py").read_text()
    assert "SAFE_CHECK_MG: Final = (0, 0, 14, 5, 17, 6, 0)" in text
    assert "BACKWARD: Final = (7, 11)" in text
    assert "496,526 positions" in (games / "chess_tables.py").read_text()

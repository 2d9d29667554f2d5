"""The notebooks of docs/notebooks run from top to bottom without an error, and draw what they
are there to draw: every built-in game's board, search results, compare tables and explain
trees. They are executed as a reader's Jupyter would, by a ``python3`` kernel (ipykernel in this
environment) through nbclient."""

from __future__ import annotations

import os
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

try:
    import nbclient
    import nbformat
except ImportError:  # CI installs the docs extra: there a missing runner is a failure
    if os.environ.get("CI"):
        pytest.fail("nbclient and nbformat are missing: .ci/run installs '.[docs]'", pytrace=False)
    pytest.skip(
        "the docs extra runs the notebooks: pip install -e '.[docs]'", allow_module_level=True
    )

FOLDER = Path(__file__).resolve().parent.parent / "docs" / "notebooks"
NOTEBOOKS = sorted(FOLDER.glob("*.ipynb"))
TIMEOUT = 600
"""Seconds one cell may take: a bound against a hang only (a busy CI machine starting Ray,
building an endgame class, compiling a search cold takes minutes)."""


def code_cells(notebook: Any) -> list[Any]:
    return [cell for cell in notebook.cells if cell.cell_type == "code"]


@pytest.fixture(scope="module")
def executed(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Every notebook, executed once (in a scratch folder) for the tests below."""
    done = {}
    for path in NOTEBOOKS:
        notebook = nbformat.read(path, as_version=4)
        client = nbclient.NotebookClient(
            notebook,
            kernel_name="python3",
            timeout=TIMEOUT,
            # nbclient's own bounds are for an idle machine: a kernel's start (60 s) and the
            # outputs still on their way once a cell has answered (4 s, after which it goes
            # on without them): both are hang bounds here, the latter raising rather than
            # leaving a cell's output out.
            startup_timeout=TIMEOUT,
            iopub_timeout=TIMEOUT,
            raise_on_iopub_timeout=True,
            resources={"metadata": {"path": str(tmp_path_factory.mktemp(path.stem))}},
        )
        client.execute()  # raises CellExecutionError naming the cell and its traceback
        done[path.stem] = notebook
    return done


def outputs(notebook: Any) -> list[Any]:
    return [output for cell in code_cells(notebook) for output in cell.get("outputs", [])]


def shown(notebook: Any, mime: str) -> list[str]:
    """Every display of ``mime`` in the notebook."""
    return [str(o["data"][mime]) for o in outputs(notebook) if mime in o.get("data", {})]


def shape(cell: Any) -> list[tuple[str, ...]]:
    """What a code cell shows, without the content: each output's kind and formats. Text a cell
    prints comes as one stream output or several, as the kernel happened to flush it (a busy
    machine pauses between prints): consecutive outputs of one stream count once."""
    kinds: list[tuple[str, ...]] = []
    for output in cell.get("outputs", []):
        kind = (output.output_type, output.get("name", ""), *sorted(output.get("data", {})))
        if not (output.output_type == "stream" and kinds and kinds[-1] == kind):
            kinds.append(kind)
    return kinds


def test_a_stream_flushed_in_pieces_has_the_shape_of_one_stream() -> None:
    piece = nbformat.v4.new_output("stream", name="stdout", text="a\n")
    table = nbformat.v4.new_output("display_data", data={"text/html": "<table/>"})
    once = nbformat.v4.new_code_cell(outputs=[piece])
    twice = nbformat.v4.new_code_cell(outputs=[piece, piece])
    apart = nbformat.v4.new_code_cell(outputs=[piece, table, piece])
    assert shape(once) == shape(twice)
    assert shape(apart) == [shape(once)[0], ("display_data", "", "text/html"), shape(once)[0]]


def test_there_are_at_least_five_notebooks_stored_with_their_outputs() -> None:
    """The site shows the stored outputs (``python tools/update_examples.py`` stores them)."""
    assert len(NOTEBOOKS) >= 5
    for path in NOTEBOOKS:
        notebook = nbformat.read(path, as_version=4)
        nbformat.validate(notebook)
        assert notebook.metadata["kernelspec"]["name"] == "python3"
        cells = code_cells(notebook)
        assert all(cell.execution_count for cell in cells), path.name
        assert [cell.execution_count for cell in cells] == list(range(1, len(cells) + 1))
        assert any(cell.outputs for cell in cells), path.name


@pytest.mark.slow  # runs every notebook: a Ray start, an endgame build
@pytest.mark.ray
def test_the_stored_outputs_are_those_a_run_shows_now(executed: dict[str, Any]) -> None:
    """Each cell shows the same kinds of output as when it was stored: a cell that draws, prints
    or returns a table still does, and no other (the figures themselves may differ: times)."""
    for path in NOTEBOOKS:
        stored = code_cells(nbformat.read(path, as_version=4))
        fresh = code_cells(executed[path.stem])
        assert [cell.source for cell in stored] == [cell.source for cell in fresh]
        for number, (old, new) in enumerate(zip(stored, fresh, strict=True), 1):
            assert shape(old) == shape(new), (
                f"{path.name}, cell {number}: the stored outputs are stale; "
                "`python tools/update_examples.py` stores them again"
            )


@pytest.mark.slow  # runs every notebook: a Ray start, an endgame build
@pytest.mark.ray
def test_every_notebook_runs_without_an_error(executed: dict[str, Any]) -> None:
    assert set(executed) == {path.stem for path in NOTEBOOKS}
    for name, notebook in executed.items():
        errors = [o for o in outputs(notebook) if o.output_type == "error"]
        assert not errors, name
        warnings = [o.text for o in outputs(notebook) if o.get("name") == "stderr"]
        assert not warnings, (name, warnings)  # nothing noisy in the rendered pages
        assert all(cell.execution_count for cell in code_cells(notebook)), name


@pytest.mark.slow  # runs every notebook: a Ray start, an endgame build
@pytest.mark.ray
def test_every_built_in_board_is_drawn(executed: dict[str, Any]) -> None:
    svgs = [svg for notebook in executed.values() for svg in shown(notebook, "image/svg+xml")]
    drawn = {ET.fromstring(svg).get("aria-label") for svg in svgs}  # each one well-formed
    labels = {
        "tic-tac-toe board",
        "connect four board",
        "nine men's morris board",
        "six men's morris board",
        "twelve men's morris board",
    }
    assert labels <= drawn
    assert any('class="square light' in svg for svg in svgs)  # python-chess's board


@pytest.mark.slow  # runs every notebook: a Ray start, an endgame build
@pytest.mark.ray
def test_results_tables_and_trees_are_drawn(executed: dict[str, Any]) -> None:
    tictactoe = executed["01-tictactoe-minimax-alphabeta"]
    html = shown(tictactoe, "text/html")
    assert any("Search result" in table and "Root moves" in table for table in html)
    assert any("O to move after X took the centre" in table for table in html)
    trees = [ET.fromstring(svg) for svg in shown(executed["02-alphabeta-trees"], "image/svg+xml")]
    labels = [tree.get("aria-label") for tree in trees]
    assert labels.count("alphabeta search tree") >= 3 and "minimax search tree" in labels
    classes = [element.get("class", "").split() for tree in trees for element in tree.iter()]
    for kind in ("chosen", "cutoff", "pruned", "table"):  # the chosen path, cutoffs, the table
        assert any(kind in words and "node" in words for words in classes), kind

"""The notebooks of ``docs/notebooks`` are stored with their outputs, so that the docs site
shows them without running anything (mkdocs-jupyter renders what is stored).

:func:`execute` runs one notebook from top to bottom, as ``tests/test_notebooks.py`` does, in
a scratch folder, and :func:`store` writes it back with its outputs and without what changes at
every run for no reader's benefit (run timestamps, kernel versions). The figures a notebook
prints (times, and node counts of parallel searches) are those of the run that stored them;
``python tools/update_examples.py`` reruns every notebook.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import nbclient
import nbformat

FOLDER = Path(__file__).resolve().parent.parent / "docs" / "notebooks"
TIMEOUT = 240
"""Seconds one cell may take (a busy machine starting Ray, building an endgame class)."""


def notebooks(folder: Path = FOLDER) -> list[Path]:
    return sorted(folder.glob("*.ipynb"))


def execute(path: Path) -> Any:
    """The notebook at ``path``, executed by a ``python3`` kernel in a scratch folder; raises
    nbclient's ``CellExecutionError`` (naming the cell) if a cell fails."""
    notebook = nbformat.read(path, as_version=4)
    with tempfile.TemporaryDirectory(prefix=f"{path.stem}-") as folder:
        client = nbclient.NotebookClient(
            notebook,
            kernel_name="python3",
            timeout=TIMEOUT,
            record_timing=False,
            resources={"metadata": {"path": folder}},
        )
        client.execute()
    return notebook


def store(path: Path, notebook: Any) -> None:
    """Writes ``notebook`` to ``path`` with its outputs, keeping the stored metadata."""
    stored = nbformat.read(path, as_version=4)
    notebook.metadata = stored.metadata  # the kernel's version and the like change every run
    for cell in notebook.cells:
        cell.metadata.pop("execution", None)
    nbformat.validate(notebook)
    nbformat.write(notebook, path)


def update(paths: list[Path], *, log: bool = True) -> None:
    """Reruns and stores every notebook of ``paths``."""
    import sys

    for path in paths:
        if log:
            print(f"running {path.name}", file=sys.stderr, flush=True)
        store(path, execute(path))

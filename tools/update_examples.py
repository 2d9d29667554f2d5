"""Regenerates every example the docs show from the program: the console blocks of the README
and of ``docs/`` (``tools/console_examples.py``) and the stored outputs of the notebooks in
``docs/notebooks`` (``tools/notebook_outputs.py``).

    python tools/update_examples.py            # rerun everything, rewrite what changed
    python tools/update_examples.py --check    # rerun, rewrite nothing; exit 1 on a difference
    python tools/update_examples.py README.md  # only these pages (no notebooks)

Run it with the project's interpreter (``.venv/bin/python``): the examples run
``python -m zerosum`` with the interpreter that runs this script.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import console_examples  # tools/ is no package: found through the line above


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("pages", nargs="*", type=Path, help="Markdown pages (default: all)")
    parser.add_argument("--check", action="store_true", help="report differences, change nothing")
    parser.add_argument("--force", action="store_true", help="rewrite every console output")
    parser.add_argument("--fast", action="store_true", help="leave out the blocks marked slow")
    parser.add_argument("--no-notebooks", action="store_true", help="leave the notebooks alone")
    args = parser.parse_args(argv)

    pages = [page.resolve() for page in args.pages] or console_examples.pages()
    blocks = [block for page in pages for block in console_examples.parse(page)]
    blocks = [block for block in blocks if not (args.fast and block.slow)]
    if args.check:
        failed = 0
        for block in blocks:
            if block.skip is not None:
                print(f"skipped {block.id}: {block.skip}")
                continue
            for difference in console_examples.differences(block):
                print(difference, end="\n\n")
                failed += 1
        print(f"{len(blocks)} blocks, {failed} example(s) differ")
        return 1 if failed else 0
    console_examples.update(blocks, force=args.force)
    if not args.pages and not args.no_notebooks:
        import notebook_outputs

        notebook_outputs.update(notebook_outputs.notebooks())
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""MkDocs hooks: what the site draws and renders from the repository when it builds.

- The performance page's plots, drawn from the figures recorded in ``benchmarks/measured/``
  (``benchmarks.plots``), so they cannot drift from the tables.
- The release notes' "Unreleased" section, rendered by towncrier from the fragments in
  ``changes/`` (``towncrier build --draft``), so what is merged shows before it is released.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parent.parent
UNRELEASED = "<!-- unreleased changes -->"


def on_files(files: Files, config: Any, **kwargs: Any) -> Files:
    sys.path.insert(0, str(ROOT))
    try:
        from benchmarks import plots
    finally:
        sys.path.remove(str(ROOT))
    for name, content in plots.figures().items():
        files.append(File.generated(config, f"performance/{name}", content=content))
    return files


def _unreleased() -> str:
    done = subprocess.run(
        [sys.executable, "-m", "towncrier", "build", "--draft", "--version", "Unreleased"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    text = done.stdout
    if "No significant changes" in text or not text.strip():
        return "Nothing yet."
    # towncrier's draft starts with its own notice and the version's heading: keep the sections.
    _, _, sections = text.partition("## Unreleased")
    sections = sections.split("\n", 1)[1] if "\n" in sections else sections
    return sections.strip()


_RUST_BLOCK = re.compile(r"^```(rust|ignore \{\.rust\})\n(.*?)^```$", re.M | re.S)


def _without_hidden_lines(block: re.Match[str]) -> str:
    """A Rust block as the reader sees it: rustdoc's hidden lines (``# ...``, the set-up the
    doc-test compiles) left out, and the block highlighted as Rust."""
    shown = [line for line in block[2].split("\n") if line != "#" and not line.startswith("# ")]
    return "```rust\n" + "\n".join(shown) + "```"


def on_page_markdown(markdown: str, page: Any, **kwargs: Any) -> str:
    if UNRELEASED in markdown:
        markdown = markdown.replace(UNRELEASED, _unreleased())
    return _RUST_BLOCK.sub(_without_hidden_lines, markdown)

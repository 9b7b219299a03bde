"""What the repair commands (``repair_order``, ``repair_complex``) share: a chunk file replaced
whole, and the report of what was found and done."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

__all__ = ["render", "replace_file"]


def replace_file(path: Path, data: bytes) -> None:
    """``path`` holding ``data``: written beside it, then renamed over it (a reader sees the
    old chunk or the new one, never part of one)."""
    temporary = path.with_name(path.name + ".repairing")
    temporary.write_bytes(data)
    temporary.replace(path)


def render(
    candidates: Sequence[Any],
    *,
    write: bool,
    rewritten: dict[Path, int],
    nothing: str,
    heading: Callable[[Any], str],
    findings: Callable[[Any], list[tuple[list[Path], str]]],
    done: str,
    dry_run: str,
) -> str:
    """What was found and done, one block per array: ``heading(candidate)``, then for each
    ``(chunks, what)`` of ``findings(candidate)`` with chunks, their count and ``what``, then
    how many were rewritten (``done``); ``nothing`` without candidates, ``dry_run`` last
    without ``write``."""
    if not candidates:
        return nothing
    lines = []
    for c in candidates:
        if c.repaired and c.path not in rewritten:
            lines.append(f"{c.path}: {heading(c)} already repaired")
            continue
        lines.append(f"{c.path}: {heading(c)}")
        lines += [f"  {len(chunks)} {what}" for chunks, what in findings(c) if chunks]
        if c.path in rewritten:
            lines.append(f"  {done}: {rewritten[c.path]} chunk(s)")
    if not write:
        lines.append(dry_run)
    return "\n".join(lines)

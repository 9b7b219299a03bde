"""Every code block of the docs site (``docs/``) and of the top README runs here.

- ``python`` blocks run as they are, each on its own in an empty folder; an ``#>`` comment
  after a ``print`` is the output it must print (pytest-examples checks it).
- ``console`` blocks: each ``$ command`` runs in a shell (in that folder, with ``.venv/bin``
  first on ``PATH``) and must exit 0 and print the lines shown after it. A line ``...`` stands
  for any lines, ``...`` inside a line for any text.
- Install commands (``pip install``, ``uv add``, ``cargo add``) cannot run here (no network):
  each package and extra they name must be one this repository builds.
- ``rust`` blocks compile and run as doc-tests of ``crates/zarr-codecs-docs`` (cargo test).

A block marked ``data-test="skip"`` does not run: only for what no test machine has (a GPU, a
cluster's scheduler); the page says so beside it.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from pytest_examples import CodeExample, EvalExample, find_examples

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
PAGES = [DOCS, ROOT / "README.md"]
INSTALLERS = ("pip install", "uv add", "uv pip install", "cargo add")


def _python_examples() -> list[CodeExample]:
    return [
        example
        for example in find_examples(*PAGES)
        if example.prefix_settings().get("data-test") != "skip"
    ]


@pytest.mark.parametrize("example", _python_examples(), ids=str)
def test_python_block(
    example: CodeExample,
    eval_example: EvalExample,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    eval_example.set_config(line_length=100, target_version="py310")
    eval_example.run_print_check(example)


@dataclass(frozen=True)
class Command:
    """One ``$ command`` of a console block and the output shown after it."""

    page: Path
    line: int
    text: str
    expected: tuple[str, ...]

    def __str__(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"


_FENCE = re.compile(
    r"^(?P<indent> *)```(?P<info>[^\n]*)\n(?P<body>.*?)^(?P=indent)```", re.M | re.S
)


def _console_blocks() -> Iterator[tuple[Path, int, str, str]]:
    pages = [*sorted(DOCS.rglob("*.md")), ROOT / "README.md"]
    for page in pages:
        text = page.read_text(encoding="utf-8")
        for match in _FENCE.finditer(text):
            info = match["info"].strip()
            if info.split(" ", 1)[0] not in {"console", "sh", "shell", "bash"}:
                continue
            line = text[: match.start()].count("\n") + 2
            body = "\n".join(
                row[len(match["indent"]) :] for row in match["body"].rstrip("\n").split("\n")
            )
            yield page, line, info, body


def _commands() -> list[Command]:
    found: list[Command] = []
    for page, line, info, body in _console_blocks():
        if not info.startswith("console") or 'data-test="skip"' in info:
            continue
        rows = body.split("\n")
        starts = [i for i, row in enumerate(rows) if row.startswith("$ ")]
        for index, start in enumerate(starts):
            end = starts[index + 1] if index + 1 < len(starts) else len(rows)
            found.append(Command(page, line + start, rows[start][2:], tuple(rows[start + 1 : end])))
    return found


def _matches(expected: tuple[str, ...], actual: list[str]) -> bool:
    """``expected`` against ``actual`` lines: ``...`` alone is any lines, inside one any text."""
    if not expected:
        return True
    head, rest = expected[0], expected[1:]
    if head == "...":
        return any(_matches(rest, actual[skip:]) for skip in range(len(actual) + 1))
    if not actual:
        return False
    pattern = ".*".join(re.escape(part) for part in head.rstrip().split("..."))
    return bool(re.fullmatch(pattern, actual[0].rstrip())) and _matches(rest, actual[1:])


@pytest.mark.parametrize(
    "command", [c for c in _commands() if not c.text.startswith(INSTALLERS)], ids=str
)
def test_console_command(command: Command, tmp_path: Path) -> None:
    environment = dict(os.environ)
    environment["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{environment['PATH']}"
    environment["COLUMNS"] = "100"
    environment["NO_COLOR"] = "1"
    done = subprocess.run(
        command.text,
        shell=True,
        cwd=tmp_path,
        env=environment,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    output = (
        (done.stdout + done.stderr).rstrip("\n").split("\n") if (done.stdout + done.stderr) else []
    )
    assert done.returncode == 0, (
        f"`{command.text}` exited {done.returncode}:\n{done.stdout}{done.stderr}"
    )
    expected = tuple(row for row in command.expected)
    assert _matches(expected, output), (
        f"`{command.text}` printed:\n"
        + "\n".join(output)
        + "\n\nthe page shows:\n"
        + "\n".join(expected)
    )


def _distributions() -> dict[str, set[str]]:
    """Every Python distribution this repository builds, with its extras."""
    found: dict[str, set[str]] = {}
    for manifest in [
        *ROOT.glob("packages/*/pyproject.toml"),
        *ROOT.glob("python/*/pyproject.toml"),
        *ROOT.glob("api/*/pyproject.toml"),
    ]:
        project = tomllib.loads(manifest.read_text())["project"]
        found[project["name"]] = set(project.get("optional-dependencies", {}))
    return found


def _crates() -> set[str]:
    found = set()
    for manifest in ROOT.glob("crates/*/Cargo.toml"):
        package = tomllib.loads(manifest.read_text())["package"]
        if package.get("publish", True) is not False:
            found.add(package["name"])
    return found


def _install_commands() -> list[Command]:
    found = []
    for page, line, _info, body in _console_blocks():
        for offset, row in enumerate(body.split("\n")):
            text = row.removeprefix("$ ").strip()
            if text.startswith(INSTALLERS):
                found.append(Command(page, line + offset, text, ()))
    return found


@pytest.mark.parametrize("command", _install_commands(), ids=str)
def test_install_command_names_our_packages(command: Command) -> None:
    words = [w for w in shlex.split(command.text) if not w.startswith("-")]
    installer = 2 if words[0] in {"pip", "cargo"} or words[:2] == ["uv", "add"] else 3
    names = words[installer:]
    assert names, f"{command}: installs nothing"
    if words[0] == "cargo":
        unknown = [name for name in names if name.split("@")[0] not in _crates()]
        assert not unknown, f"{command}: not crates of ours: {unknown}"
        return
    distributions = _distributions()
    for name in names:
        match = re.fullmatch(r"([A-Za-z0-9_.-]+)(?:\[([a-z0-9,_-]+)\])?(?:[<>=!~].*)?", name)
        assert match, f"{command}: cannot read {name!r}"
        package, extras = match[1], match[2]
        if package not in distributions:
            # The outside packages a page may install beside ours.
            assert package in {"zarr", "numcodecs", "dask", "distributed", "xarray"}, (
                f"{command}: {package} is not a distribution of this repository"
            )
            continue
        for extra in (extras or "").split(","):
            assert not extra or extra in distributions[package], (
                f"{command}: {package} has no extra {extra!r}"
            )


def test_console_blocks_found() -> None:
    """The collection above is not empty by mistake (a renamed folder would pass silently)."""
    assert len(_commands()) >= 5
    assert len(_python_examples()) >= 10

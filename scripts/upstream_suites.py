"""What ``scripts/numcodecs-suite`` and ``scripts/zarr-suite`` share: the sdist of a release
of a PyPI project (checked against the index's sha256, kept in ``.cache/``), whose tests they
run, and the pytest run itself, in the unpacked folder with a plugin of ``scripts/``."""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import urllib.request
from collections.abc import Callable, Iterator
from importlib.metadata import version
from pathlib import Path

SCRIPTS = Path(__file__).resolve().parent
CACHE = SCRIPTS.parent / ".cache"


def sdist(project: str, release: str) -> bytes:
    """The sdist of ``project`` ``release``, from the cache or PyPI (sha256 checked)."""
    name = f"{project}-{release}.tar.gz"
    cached = CACHE / name
    request = urllib.request.Request(
        f"https://pypi.org/simple/{project}/",
        headers={"Accept": "application/vnd.pypi.simple.v1+json"},
    )
    with urllib.request.urlopen(request, timeout=60) as response:
        files = {f["filename"]: f for f in json.load(response)["files"]}
    if name not in files:
        raise SystemExit(f"PyPI has no {name}")
    expected = files[name]["hashes"]["sha256"]
    if cached.exists() and hashlib.sha256(cached.read_bytes()).hexdigest() == expected:
        return cached.read_bytes()
    with urllib.request.urlopen(files[name]["url"], timeout=300) as response:
        data: bytes = response.read()
    if hashlib.sha256(data).hexdigest() != expected:
        raise SystemExit(f"{name}: sha256 does not match PyPI's")
    CACHE.mkdir(exist_ok=True)
    cached.write_bytes(data)
    return data


@contextlib.contextmanager
def unpacked(
    project: str, unpack: Callable[[bytes, str, Path], None]
) -> Iterator[tuple[str, Path]]:
    """The installed release of ``project`` and a scratch folder (removed after) into which
    ``unpack(sdist, release, folder)`` put its tests."""
    release = version(project)
    data = sdist(project, release)
    with tempfile.TemporaryDirectory(prefix=f"{project}-suite-") as scratch:
        work = Path(scratch)
        unpack(data, release, work)
        yield release, work


def quick_flag(argv: list[str]) -> tuple[bool, list[str]]:
    """Whether ``--quick`` is among ``argv``, and the other arguments."""
    return "--quick" in argv, [arg for arg in argv if arg != "--quick"]


def extract_tests(
    data: bytes, top: str, into: Path, also: tuple[str, ...] = ()
) -> dict[str, bytes]:
    """The sdist's ``tests/`` folder (``data``, a .tar.gz whose files are under ``top``) written
    into ``into``; the bytes of the files ``also`` names (paths below ``top``)."""
    found: dict[str, bytes] = {}
    with tarfile.open(fileobj=io.BytesIO(data)) as archive:
        for member in archive.getmembers():
            name = member.name.removeprefix(f"{top}/")
            wanted = member.isfile() and (name.startswith("tests/") or name in also)
            source = archive.extractfile(member) if wanted else None
            if source is None:
                continue
            if name in also:
                found[name] = source.read()
            else:
                target = into / name
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(source.read())
    return found


def run_pytest(work: Path, plugin: str, arguments: list[str], title: str) -> int:
    """pytest in ``work`` (the unpacked tests) with ``plugin`` (a module of ``scripts/``) and
    ``arguments``, after printing ``title`` and the command; pytest's exit status."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(SCRIPTS), str(work)])
    command = [sys.executable, "-m", "pytest", "-p", plugin, "-p", "no:cacheprovider"]
    command += arguments
    print(title)
    print(" ".join(command), flush=True)
    return subprocess.run(command, cwd=work, env=env, check=False).returncode

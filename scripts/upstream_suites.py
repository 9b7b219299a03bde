"""The sdist of a release of a PyPI project, checked against the index's sha256 and kept in
``.cache/`` for the next run: where ``scripts/numcodecs-suite`` and ``scripts/zarr-suite``
get the test suites they run."""

from __future__ import annotations

import hashlib
import json
import urllib.request
from pathlib import Path

CACHE = Path(__file__).resolve().parents[1] / ".cache"


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

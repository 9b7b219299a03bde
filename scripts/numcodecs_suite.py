"""numcodecs' own test modules for gzip, blosc, zstd, lz4, bz2, lzma, shuffle,
its checksums (crc32, adler32,
crc32c, jenkins_lookup3, fletcher32) and fixedscaleoffset, run against our classes.

Fetches the sdist of the numcodecs version installed (from PyPI, checked against the index's
sha256; kept in ``.cache/`` for the next run), copies its test modules and their fixtures into
a scratch folder and runs them with ``scripts/numcodecs_plugin.py``, which points numcodecs'
class names at ours. Exit status: pytest's. Extra arguments go to pytest.
"""

from __future__ import annotations

import io
import sys
import tarfile
from pathlib import Path

from upstream_suites import run_pytest, unpacked

MODULES = (
    "test_gzip.py",
    "test_zlib.py",
    "test_blosc.py",
    "test_zstd.py",
    "test_checksum32.py",
    "test_jenkins.py",
    "test_fletcher32.py",
    "test_lz4.py",
    "test_bz2.py",
    "test_lzma.py",
    "test_shuffle.py",
    "test_fixedscaleoffset.py",
    "test_delta.py",
    "test_bitround.py",
    "test_quantize.py",
    "test_astype.py",
    "test_packbits.py",
    "test_vlen_utf8.py",
    "test_vlen_bytes.py",
    "test_vlen_array.py",
    "test_base64.py",
    "test_pickles.py",
    "test_categorize.py",
    "test_json.py",
    "test_msgpacks.py",
    "test_pcodec.py",
    "test_zfpy.py",
)
FIXTURES = (
    "gzip",
    "zlib",
    "blosc",
    "zstd",
    "crc32",
    "adler32",
    "crc32c",
    "fixedscaleoffset",
    "lz4",
    "bz2",
    "lzma",
    "delta",
    "quantize",
    "astype",
    "packbits",
    "vlen-utf8",
    "vlen-bytes",
    "vlen-array",
    "base64",
    "pickle",
    "categorize",
    "json2",
    "msgpack2",
    "pcodec",
    "zfpy",
)


def unpack(data: bytes, release: str, into: Path) -> None:
    """numcodecs' ``tests/`` modules this suite runs (with ``common.py``) and their fixtures."""
    top = f"numcodecs-{release}"
    wanted = [f"{top}/tests/{m}" for m in (*MODULES, "common.py", "__init__.py")]
    prefixes = [f"{top}/fixture/{f}/" for f in FIXTURES]
    with tarfile.open(fileobj=io.BytesIO(data)) as archive:
        for member in archive.getmembers():
            if not member.isfile():
                continue
            if member.name in wanted or any(member.name.startswith(p) for p in prefixes):
                target = into / member.name.removeprefix(f"{top}/")
                target.parent.mkdir(parents=True, exist_ok=True)
                source = archive.extractfile(member)
                assert source is not None
                target.write_bytes(source.read())
    (into / "tests" / "__init__.py").touch()
    # No configuration from this repository or numcodecs' pyproject: a plain pytest run.
    (into / "pytest.ini").write_text("[pytest]\n")


def main(argv: list[str]) -> int:
    with unpacked("numcodecs", unpack) as (release, work):
        arguments = ["-rs", "-q", *(f"tests/{m}" for m in MODULES), *argv]
        title = f"numcodecs {release}'s tests for our codecs' ids, on ours:"
        return run_pytest(work, "numcodecs_plugin", arguments, title)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

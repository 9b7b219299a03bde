"""scripts/build_wheels.py's x86-64-v3 builds: the CPU features its flags enable are the ones
the extension checks before the package imports that build, and the extension is taken out of
its wheel under the name the package imports."""

from __future__ import annotations

import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))

import build_wheels  # noqa: E402

pcodec = pytest.importorskip("zarr_codec_pcodec._pcodec")


def test_the_flags_enable_what_the_extension_checks() -> None:
    module, features = build_wheels.X86_64_V3_BUILDS["pcodec"]
    assert module == "_pcodec"
    assert list(features) == pcodec.X86_64_V3_FEATURES
    flags = build_wheels.x86_64_v3_rustflags("pcodec")
    assert "-C target-feature=+avx2,+bmi1,+bmi2,+lzcnt" in flags


def test_the_extension_is_placed_under_its_x86_64_v3_name(tmp_path: Path) -> None:
    wheel = tmp_path / "zarr_codec_pcodec-0.1.0-cp312-abi3-linux_x86_64.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        archive.writestr("zarr_codec_pcodec/__init__.py", "")
        archive.writestr("zarr_codec_pcodec/_pcodec.abi3.so", b"\x7fELF built for x86-64-v3")
    placed = build_wheels.place_x86_64_v3("pcodec", wheel)
    try:
        assert placed.name == "_pcodec_x86_64_v3.abi3.so"
        assert placed.parent == ROOT / "packages/pcodec/python/zarr_codec_pcodec"
        assert placed.read_bytes() == b"\x7fELF built for x86-64-v3"
    finally:
        placed.unlink()


def test_a_wheel_without_the_extension_is_refused(tmp_path: Path) -> None:
    wheel = tmp_path / "zarr_codec_pcodec-0.1.0-cp312-abi3-linux_x86_64.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        archive.writestr("zarr_codec_pcodec/__init__.py", "")
    with pytest.raises(build_wheels.Failed, match="expected one zarr_codec_pcodec/_pcodec"):
        build_wheels.place_x86_64_v3("pcodec", wheel)

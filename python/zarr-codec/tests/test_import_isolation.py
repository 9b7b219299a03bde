"""zarr_codec sits upstream of zarr-python and numcodecs: importing it imports neither."""

from __future__ import annotations

import subprocess
import sys


def test_importing_zarr_codec_imports_neither_zarr_nor_numcodecs() -> None:
    code = (
        "import sys, zarr_codec, zarr_codec.testing, zarr_codec.zarr_python, "
        "zarr_codec.numcodecs\n"
        "assert 'zarr' not in sys.modules and 'numcodecs' not in sys.modules, "
        "sorted(m for m in sys.modules if m.startswith(('zarr.', 'numcodecs')))\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)

"""``zarr_codec_scale_offset.migrate`` where the ``migrate`` extra is not installed: the wheel
alone imports it, and a migration says what to install instead of a bare ``ModuleNotFoundError``
(zarr-python and zarr-codec-cast-value are not requirements of this wheel)."""

from __future__ import annotations

import re
import sys
import tomllib
from pathlib import Path

import pytest


@pytest.mark.parametrize("missing", ["zarr", "zarr_codec_cast_value"])
def test_a_migration_without_the_extra_names_what_to_install(
    missing: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in list(sys.modules):
        if name == missing or name.startswith(f"{missing}."):
            monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, missing, None)  # what an import finds when not installed
    from zarr_codec_scale_offset import migrate

    with pytest.raises(ImportError, match=r"zarr-codec-scale-offset\[migrate\]") as raised:
        migrate.migrate_fixedscaleoffset(tmp_path)
    assert missing in str(raised.value)
    assert raised.value.__cause__ is not None


def test_the_extra_is_declared() -> None:
    """The extra the message names exists, with both packages the migration imports."""
    pyproject = tomllib.loads((Path(__file__).parents[1] / "pyproject.toml").read_text())
    extra = pyproject["project"]["optional-dependencies"]["migrate"]
    names = {re.split(r"[=<>\[ ]", requirement)[0] for requirement in extra}
    assert names == {"zarr", "zarr-codec-cast-value"}, extra

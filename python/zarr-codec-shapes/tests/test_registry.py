"""The registry: entry points found by importlib.metadata, and run-time registration."""

from __future__ import annotations

import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest
import zarr_codec_shapes.registry as registry
from zarr_codec_shapes import (
    ConfigurationError,
    UnknownCodecError,
    available_codecs,
    get_codec,
    get_codec_class,
    register_codec,
    unregister_codec,
)


@pytest.fixture
def fake_distribution(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A real installed distribution (dist-info on sys.path) with two entry points."""
    (tmp_path / "plugin_codec_mod.py").write_text(
        textwrap.dedent("""
        from example_codecs import XorCrc

        class PluginCodec(XorCrc):
            name = "test.plugin"
            codec_id = "test_plugin"
    """)
    )
    info = tmp_path / "plugin_codec-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: plugin-codec\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(
        "[zarr_codec_shapes.codecs]\n"
        "test.plugin = plugin_codec_mod:PluginCodec\n"
        "test.broken = plugin_codec_mod:DoesNotExist\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(registry, "_entry_points_loaded", False)
    yield tmp_path
    unregister_codec("test.plugin")
    registry._broken.clear()
    sys.modules.pop("plugin_codec_mod", None)


def test_entry_points_are_loaded(fake_distribution: Path) -> None:
    cls = get_codec_class("test.plugin")
    assert cls.__name__ == "PluginCodec"
    assert get_codec_class("test_plugin", zarr_format=2) is cls
    codec = get_codec({"name": "test.plugin", "configuration": {"key": 4}})
    assert codec == cls(key=4)
    assert get_codec({"id": "test_plugin", "key": 4}) == codec  # the form is inferred
    assert "test.plugin" in available_codecs()


def test_a_broken_entry_point_only_breaks_its_own_name(fake_distribution: Path) -> None:
    assert get_codec_class("test.plugin").__name__ == "PluginCodec"
    with pytest.raises(UnknownCodecError, match=r"failed to load.*DoesNotExist"):
        get_codec_class("test.broken")


def test_run_time_registration() -> None:
    from example_codecs import XorCrc

    register_codec(XorCrc)
    try:
        assert get_codec({"name": "test.xor_crc"}) == XorCrc()
        assert get_codec({"id": "test_xor_crc", "key": 2}, zarr_format=2) == XorCrc(2)
        with pytest.raises(ConfigurationError):
            get_codec({"name": "test.xor_crc"}, zarr_format=2)
        with pytest.raises(ConfigurationError):
            get_codec({"name": "test.xor_crc", "configuration": {"key": 256}})
    finally:
        unregister_codec("test.xor_crc")
    with pytest.raises(UnknownCodecError):
        get_codec({"name": "test.xor_crc"})


def test_unknown_codec() -> None:
    with pytest.raises(UnknownCodecError, match="no codec named 'nope'"):
        get_codec({"name": "nope"})
    with pytest.raises(ConfigurationError):
        register_codec(object)  # type: ignore[arg-type]

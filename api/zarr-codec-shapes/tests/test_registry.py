"""The registry: every provider collected from entry points, then one chosen per name."""

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
from zarr_codec_shapes.registry import (
    CodecConflictError,
    conflicts,
    list_codecs,
    select_codec,
    set_precedence,
)

_MODULE = """
from example_codecs import XorCrc

class PluginCodec(XorCrc):
    name = "test.plugin"
    codec_id = "test_plugin"

class DuplicateA(XorCrc):
    name = "test.dup"
    codec_id = "test_dup"

class DuplicateB(XorCrc):
    name = "test.dup"
    codec_id = "test_dup"

class ReferencePlugin(XorCrc):
    name = "test.plugin"
    codec_id = "test_plugin"

class Reference(XorCrc):
    name = "test.ref"
    codec_id = "test_ref"
"""


def _distribution(
    root: Path, name: str, entry_points: str, group: str = "zarr_codec_shapes.codecs"
) -> None:
    info = root / f"{name.replace('-', '_')}-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[{group}]\n{entry_points}")


@pytest.fixture
def fake_distributions(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Real installed distributions (dist-info on sys.path): one with a codec and a broken
    entry point, two that both provide ``test.dup``."""
    (tmp_path / "plugin_codec_mod.py").write_text(textwrap.dedent(_MODULE))
    _distribution(
        tmp_path,
        "plugin-codec",
        "test.plugin = plugin_codec_mod:PluginCodec\ntest.broken = plugin_codec_mod:DoesNotExist\n",
    )
    _distribution(tmp_path, "dup-a", "test.dup = plugin_codec_mod:DuplicateA\n")
    _distribution(tmp_path, "dup-b", "test.dup = plugin_codec_mod:DuplicateB\n")
    # A reference implementation of test.plugin and the only one of test.ref: fallbacks.
    _distribution(
        tmp_path,
        "reference",
        "test.plugin = plugin_codec_mod:ReferencePlugin\ntest.ref = plugin_codec_mod:Reference\n",
        group="zarr_codec_shapes.fallback_codecs",
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(registry, "_discovered", None)
    monkeypatch.delenv(registry.SELECT_VARIABLE, raising=False)
    monkeypatch.delenv(registry.PRECEDENCE_VARIABLE, raising=False)
    yield tmp_path
    select_codec("test.dup", None)
    set_precedence([])
    registry._discovered = None  # the next test collects without these distributions
    sys.modules.pop("plugin_codec_mod", None)


def test_entry_points_are_loaded(fake_distributions: Path) -> None:
    cls = get_codec_class("test.plugin")
    assert cls.__name__ == "PluginCodec"
    assert get_codec_class("test_plugin", zarr_format=2) is cls
    codec = get_codec({"name": "test.plugin", "configuration": {"key": 4}})
    assert codec == cls(key=4)
    assert get_codec({"id": "test_plugin", "key": 4}) == codec  # the form is inferred
    assert "test.plugin" in available_codecs()


def test_a_fallback_serves_only_names_nothing_else_provides(fake_distributions: Path) -> None:
    assert get_codec_class("test.plugin").__name__ == "PluginCodec"
    assert get_codec_class("test.ref").__name__ == "Reference"
    assert get_codec_class("test_ref", zarr_format=2).__name__ == "Reference"
    assert sorted(list_codecs()["test.plugin"]) == [
        "plugin-codec: plugin_codec_mod:PluginCodec",
        "reference: plugin_codec_mod:ReferencePlugin (fallback)",
    ]
    assert "test.plugin" not in conflicts()
    select_codec("test.plugin", "reference")  # a fallback can still be chosen
    try:
        assert get_codec_class("test.plugin").__name__ == "ReferencePlugin"
    finally:
        select_codec("test.plugin", None)


def test_a_broken_entry_point_only_breaks_its_own_name(fake_distributions: Path) -> None:
    assert get_codec_class("test.plugin").__name__ == "PluginCodec"
    with pytest.raises(UnknownCodecError, match=r"plugin-codec.*failed to load.*DoesNotExist"):
        get_codec_class("test.broken")
    assert "test.broken" not in available_codecs() and "test.plugin" in available_codecs()


def test_every_provider_is_listed_with_its_origin(fake_distributions: Path) -> None:
    listed = list_codecs()
    assert sorted(listed["test.dup"]) == [
        "dup-a: plugin_codec_mod:DuplicateA",
        "dup-b: plugin_codec_mod:DuplicateB",
    ]
    assert listed["test.broken"] == ["plugin-codec: plugin_codec_mod:DoesNotExist"]
    assert set(conflicts()) == {"test.dup"}


def test_competing_providers_are_an_error_naming_them_until_one_is_chosen(
    fake_distributions: Path,
) -> None:
    for call in (
        lambda: get_codec_class("test.dup"),
        lambda: get_codec({"name": "test.dup"}),
        lambda: get_codec({"id": "test_dup"}),  # through its v2 id too
    ):
        with pytest.raises(CodecConflictError, match=r"dup-a.*dup-b|dup-b.*dup-a") as caught:
            call()
        assert "select_codec" in str(caught.value)
    assert "test.dup" not in available_codecs()
    assert get_codec_class("test.plugin").__name__ == "PluginCodec"  # others unaffected

    select_codec("test.dup", "dup-b")
    assert get_codec_class("test.dup").__name__ == "DuplicateB"
    assert type(get_codec({"id": "test_dup"})).__name__ == "DuplicateB"
    assert conflicts() == {}
    select_codec("test.dup", "plugin_codec_mod:DuplicateA")  # or by entry point value
    assert get_codec_class("test.dup").__name__ == "DuplicateA"
    select_codec("test.dup", "not-installed")
    with pytest.raises(ConfigurationError, match="matches none"):
        get_codec_class("test.dup")


def test_a_precedence_list_or_the_environment_chooses(
    fake_distributions: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    set_precedence(["unrelated", "dup-a"])
    assert get_codec_class("test.dup").__name__ == "DuplicateA"
    set_precedence([])
    assert "test.dup" in conflicts()
    monkeypatch.setenv(registry.PRECEDENCE_VARIABLE, "dup-b")
    assert get_codec_class("test.dup").__name__ == "DuplicateB"
    assert conflicts() == {}  # the kept resolution follows the environment
    assert available_codecs()["test.dup"].__name__ == "DuplicateB"
    monkeypatch.setenv(registry.SELECT_VARIABLE, "test.dup=dup-a, other=x")
    assert get_codec_class("test.dup").__name__ == "DuplicateA"  # a selection comes first


def test_run_time_registration_comes_before_every_provider(fake_distributions: Path) -> None:
    from example_codecs import XorCrc

    class Mine(XorCrc):
        name = "test.dup"

    register_codec(Mine)
    try:
        assert get_codec_class("test.dup") is Mine
        assert list_codecs()["test.dup"][0].startswith("run time: ")
    finally:
        unregister_codec("test.dup")
    with pytest.raises(CodecConflictError):
        get_codec_class("test.dup")


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

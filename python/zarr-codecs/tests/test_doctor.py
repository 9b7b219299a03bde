"""``zarr-codecs doctor``: what it reports of this (development) installation, and that it
finds what is wrong: a codec whose round trip is not exact, a wheel for another platform."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest
from zarr_codecs import cli, doctor


def test_every_distribution_and_codec_is_checked_here() -> None:
    installed = doctor.collect()
    assert [i.distribution for i in installed] == list(doctor.DISTRIBUTIONS)
    assert all(i.version == "0.1.0" for i in installed)
    # uv sync installs the workspace editable, each with the tags of its (local) wheel.
    runtime = next(i for i in installed if i.distribution == "zarr-codec-runtime")
    assert runtime.source == "editable (development build)"
    assert runtime.tags and runtime.fits is True
    kernels = doctor.check_kernels()
    assert [k.name for k in kernels] == [c.name for c in doctor.CHECKS]
    assert all(k.compiled and k.exact for k in kernels), kernels
    assert doctor.healthy(installed, kernels)


def test_every_wheel_of_the_bundle_and_every_codec_it_installs_is_checked() -> None:
    """A codec wheel added to the bundle is one the doctor lists, and each codec install()
    replaces (but numcodecs' fixedscaleoffset, which scale_offset's probe covers) is probed."""
    import importlib.metadata
    import re

    import zarr_codecs

    required = {
        re.split(r"[=<>!~ ;\[]", r, maxsplit=1)[0]
        for r in importlib.metadata.requires("zarr-codecs") or []
        if "extra ==" not in r
    }
    ours = {r for r in required if r.startswith("zarr-codec")}
    assert ours and ours <= set(doctor.DISTRIBUTIONS)
    assert {b.distribution for b in zarr_codecs.BINDINGS} <= set(doctor.DISTRIBUTIONS)
    probed = {codec["name"] for c in doctor.CHECKS for codec in c.codecs} - {"bytes"}
    installed = {b.name for b in zarr_codecs.BINDINGS} - {"numcodecs.fixedscaleoffset"}
    assert installed <= probed, installed - probed


def test_the_probes_hold_distinct_values() -> None:
    # A swapped, shifted or zeroed byte must change the values: no two neighbours share a byte.
    values = doctor._distinct_uint32().view(np.uint8).reshape(-1, 4)
    assert (values[1:] != values[:-1]).all()
    assert len(np.unique(doctor._halves())) == len(doctor._halves())


def _third() -> np.ndarray[Any, Any]:
    return np.full(8, 1 / 3)  # float32 cannot hold it: the round trip changes it


def test_a_round_trip_that_changes_values_is_a_problem(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    lossy = doctor.CodecCheck(
        "cast_value",
        "zarr-codec-cast-value",
        [{"name": "cast_value", "configuration": {"data_type": "float32"}}, doctor._BYTES],
        "float64",
        _third,
    )
    monkeypatch.setattr(doctor, "CHECKS", (lossy,))
    [kernel] = doctor.check_kernels()
    assert kernel.compiled and not kernel.exact and "WRONG" in kernel.detail
    assert cli.main(["doctor"]) == cli.PROBLEMS
    assert "problems found" in capsys.readouterr().out


def test_a_failing_codec_is_reported_not_raised(monkeypatch: pytest.MonkeyPatch) -> None:
    broken = doctor.CodecCheck("nope", "-", [{"name": "no-such-codec"}], "uint8", _third)
    monkeypatch.setattr(doctor, "CHECKS", (broken,))
    [kernel] = doctor.check_kernels()
    assert not kernel.compiled and kernel.detail.startswith("failed: ")


def test_a_wheel_for_another_platform_does_not_fit() -> None:
    tags = doctor._expand("cp312-abi3-manylinux2014_x86_64.manylinux_2_17_x86_64")
    assert tags == ["cp312-abi3-manylinux2014_x86_64", "cp312-abi3-manylinux_2_17_x86_64"]
    supported = doctor._supported_tags()
    assert supported is not None
    assert "cp312-abi3-win_amd64" not in supported
    assert "py3-none-any" in supported


def test_json_report(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["doctor", "--json"]) == cli.OK
    report = json.loads(capsys.readouterr().out)
    assert report["healthy"] is True
    assert {d["distribution"] for d in report["distributions"]} == set(doctor.DISTRIBUTIONS)

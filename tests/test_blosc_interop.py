"""zarr-codec-blosc against numcodecs' ``Blosc`` (c-blosc 1.21.7.dev), python-blosc2 and
zarr-python 3.4's built-in ``BloscCodec``.

* Chunks: every chunk numcodecs writes (each compressor x shuffle 0/1/2/-1 x item size 1/2/4/8
  x blocksize 0/4096, on the four benchmark datasets) decodes with ours bit-exactly, and ours
  decode with numcodecs and ``blosc2.decompress``. Our c-blosc is 1.21.6 (blosc-src, with
  zstd 1.5.6 and lz4 1.10.0, the releases numcodecs bundles): every chunk is byte-identical to
  numcodecs' (single-threaded), which is asserted, so that a change on either side is noticed.
* Zarr v3: arrays written by zarr's built-in blosc read through ours (``codecs.blosc`` in
  ``zarr.config``) and vice versa; the metadata records the resolved typesize/shuffle.
* Zarr v2: the same through numcodecs' registry (``zarr_codec_blosc.numcodecs.register()``).
* Installing the wheel changes nothing by default: zarr's config still names its built-in.
"""

from __future__ import annotations

import json
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

zarr = pytest.importorskip("zarr")
numcodecs = pytest.importorskip("numcodecs")

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # `pytest` (unlike `python -m pytest`) does not add the root
    sys.path.insert(0, str(ROOT))

from zarr_codec_blosc import COMPRESSORS, Blosc, _blosc  # noqa: E402
from zarr_codec_blosc import numcodecs as blosc_numcodecs  # noqa: E402
from zarr_codec_blosc.zarr_python import BloscCodec  # noqa: E402
from zarr_codec_shapes import UnsupportedError  # noqa: E402
from zarr_codecs_bench import datasets  # noqa: E402

blosc2 = pytest.importorskip("blosc2")

SIZE = 256 * 1024
DATASETS = list(datasets.DATASETS)
CNAMES: list[str] = list(numcodecs.blosc.list_compressors())
SHUFFLES = [0, 1, 2, -1]
TYPESIZES = [1, 2, 4, 8]
BLOCKSIZES = [0, 4096]
V2_SHUFFLE: dict[int, str | None] = {0: "noshuffle", 1: "shuffle", 2: "bitshuffle", -1: None}

OURS = "zarr_codec_blosc.zarr_python.BloscCodec"
BUILTIN = "zarr.codecs.blosc.BloscCodec"


def expected_identical(cname: str, blocksize: int) -> bool:
    """Where c-blosc 1.21.6 here and numcodecs' 1.21.7.dev write the same bytes: everywhere.

    With libzstd 1.5.7 linked in, zstd frames with automatic (256 KiB) blocks differed on some
    data; since the workspace pins libzstd 1.5.6, numcodecs' own release, they agree too.
    """
    return True


@pytest.fixture(scope="module")
def views() -> dict[tuple[str, int], np.ndarray[Any, Any]]:
    """Each dataset viewed as unsigned integers of 1, 2, 4 and 8 bytes."""
    arrays = {name: datasets.load(name, size_bytes=SIZE) for name in DATASETS}
    return {(n, t): a.reshape(-1).view(f"<u{t}") for n, a in arrays.items() for t in TYPESIZES}


@pytest.fixture(scope="module")
def arrays() -> dict[str, np.ndarray[Any, Any]]:
    return {name: datasets.load(name, size_bytes=SIZE) for name in DATASETS}


@pytest.fixture
def single_threaded(monkeypatch: pytest.MonkeyPatch) -> None:
    """numcodecs compresses blocks on several threads in the main thread by default, and then
    writes them in completion order: its output is not reproducible. zarr-python switches the
    threads off (``numcodecs.blosc.use_threads = False``) when it imports its blosc codec."""
    monkeypatch.setattr(numcodecs.blosc, "use_threads", False)


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """Counts calls into our codec, to prove which implementation zarr used."""
    counts = {"encode": 0, "decode": 0, "decode_into": 0}
    for method in counts:
        original = getattr(Blosc, method)

        def spy(self: Blosc, *args: Any, _name: str = method, _orig: Any = original) -> Any:
            counts[_name] += 1
            return _orig(self, *args)

        monkeypatch.setattr(Blosc, method, spy)
    return counts


# -- chunks ----------------------------------------------------------------------------------


@pytest.mark.usefixtures("single_threaded")
@pytest.mark.parametrize("shuffle", SHUFFLES)
@pytest.mark.parametrize("cname", CNAMES)
def test_chunks_both_ways(
    views: dict[tuple[str, int], np.ndarray[Any, Any]], cname: str, shuffle: int
) -> None:
    for typesize in TYPESIZES:
        for blocksize in BLOCKSIZES:
            theirs_codec = numcodecs.Blosc(cname, 5, shuffle, blocksize)
            for name in DATASETS:
                view = views[name, typesize]
                raw = view.tobytes()
                case = f"{cname} shuffle={shuffle} typesize={typesize} blocksize={blocksize} {name}"
                theirs = bytes(theirs_codec.encode(view))
                if cname not in COMPRESSORS:  # numcodecs has a compressor this build lacks
                    with pytest.raises(UnsupportedError):
                        Blosc().decode(theirs)
                    continue
                # numcodecs -> ours
                assert Blosc().decode(theirs) == raw, case
                out = np.empty_like(view)
                assert Blosc().decode_into(theirs, out) == len(raw) and out.tobytes() == raw
                # ours (configured from numcodecs' own JSON) -> numcodecs, blosc2
                ours_codec = Blosc.from_json(theirs_codec.get_config(), 2)
                ours = ours_codec.encode(view)
                assert bytes(numcodecs.Blosc().decode(ours)) == raw, case
                assert blosc2.decompress(ours) == raw, case
                assert blosc2.decompress(theirs) == raw, case
                # the same parameters reach c-blosc: headers equal but for cbytes
                assert ours[:12] == theirs[:12], case
                if expected_identical(cname, blocksize):
                    assert ours == theirs, f"{case}: bytes differ from numcodecs"
                else:
                    assert ours != theirs, f"{case}: now byte-identical: update the expectation"


def test_numcodecs_multithreaded_chunks(views: dict[tuple[str, int], np.ndarray[Any, Any]]) -> None:
    """numcodecs on 4 threads may lay blocks out in another order; we still read them."""
    old_threads = numcodecs.blosc.set_nthreads(4)
    old_use = numcodecs.blosc.use_threads
    numcodecs.blosc.use_threads = True
    try:
        for cname in [c for c in CNAMES if c in COMPRESSORS]:
            view = views["float32_field", 4]
            for blocksize in (4096, 8192):
                theirs = bytes(numcodecs.Blosc(cname, 5, 1, blocksize).encode(view))
                assert Blosc().decode(theirs) == view.tobytes()
    finally:
        numcodecs.blosc.use_threads = old_use
        numcodecs.blosc.set_nthreads(old_threads)


@pytest.mark.usefixtures("single_threaded")
def test_empty_chunks() -> None:
    """Both write b"" as a 16-byte header; numcodecs cannot read any such frame back (c-blosc
    returns 0 bytes, which numcodecs takes for an error), we can."""
    for shuffle in SHUFFLES:
        theirs_codec = numcodecs.Blosc("lz4", 5, shuffle)
        theirs = bytes(theirs_codec.encode(b""))
        ours = Blosc.from_json(theirs_codec.get_config(), 2).encode(b"")
        assert ours == theirs and len(ours) == 16
        assert Blosc().decode(theirs) == b""
        assert blosc2.decompress(ours) == b""
        back: bytes | str
        try:
            back = bytes(numcodecs.Blosc().decode(ours))
        except RuntimeError as err:
            back = str(err)
        assert back in (b"", "error during blosc decompression: 0")


@pytest.mark.usefixtures("single_threaded")
def test_v2_json_matches_numcodecs() -> None:
    for cname in [c for c in CNAMES if c in COMPRESSORS]:
        for shuffle in SHUFFLES:
            for clevel, blocksize in ((0, 0), (5, 4096), (9, 1 << 20)):
                theirs = numcodecs.Blosc(cname, clevel, shuffle, blocksize).get_config()
                ours = blosc_numcodecs.Blosc(
                    cname=cname, clevel=clevel, shuffle=shuffle, blocksize=blocksize
                ).get_config()
                assert ours == theirs == Blosc.from_json(theirs, 2).to_json(2)
    assert blosc_numcodecs.Blosc().get_config() == numcodecs.Blosc().get_config()


_interop_settings = settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


@pytest.mark.usefixtures("single_threaded")
@_interop_settings
@given(
    data=st.binary(max_size=3000).map(lambda b: b * 3),
    cname=st.sampled_from([c for c in CNAMES if c in COMPRESSORS]),
    clevel=st.integers(0, 9),
    shuffle=st.sampled_from(SHUFFLES),
    itemsize=st.sampled_from([1, 2, 4, 8]),
    blocksize=st.sampled_from([0, 1, 128, 1000, 4096]),
)
def test_random_chunks_both_ways(
    data: bytes, cname: str, clevel: int, shuffle: int, itemsize: int, blocksize: int
) -> None:
    array = np.frombuffer(data[: len(data) // itemsize * itemsize], f"<u{itemsize}")
    theirs_codec = numcodecs.Blosc(cname, clevel, shuffle, blocksize)
    ours_codec = Blosc.from_json(theirs_codec.get_config(), 2)
    theirs = bytes(theirs_codec.encode(array))
    ours = ours_codec.encode(array)
    assert Blosc().decode(theirs) == array.tobytes()
    if array.size:  # numcodecs cannot decode empty frames (test_empty_chunks)
        assert bytes(numcodecs.Blosc().decode(ours)) == array.tobytes()
    assert ours[:12] == theirs[:12]


# -- zarr v3 ---------------------------------------------------------------------------------

V3_CONFIGS: dict[str, dict[str, Any]] = {
    "defaults": {},
    "lz4 bitshuffle, typesize unset": {"cname": "lz4", "clevel": 9, "shuffle": "bitshuffle"},
    "blosclz noshuffle": {"cname": "blosclz", "clevel": 1, "shuffle": "noshuffle"},
    "zlib all set": {
        "cname": "zlib",
        "clevel": 3,
        "shuffle": "shuffle",
        "typesize": 2,
        "blocksize": 4096,
    },
}


def _chunks_for(shape: tuple[int, ...]) -> tuple[int, ...]:
    return (shape[0] // 4, shape[1] // 2)


def _chunk_files(root: Path, shape: tuple[int, ...], v3: bool = True) -> list[Path]:
    chunks = _chunks_for(shape)
    rows, cols = shape[0] // chunks[0], shape[1] // chunks[1]
    if v3:
        return [root / "c" / str(i) / str(j) for i in range(rows) for j in range(cols)]
    return [root / f"{i}.{j}" for i in range(rows) for j in range(cols)]


def _write(path: Path, data: np.ndarray[Any, Any], codec: Any, zarr_format: int = 3) -> Any:
    arr = zarr.create_array(
        zarr.storage.LocalStore(path),
        shape=data.shape,
        chunks=_chunks_for(data.shape),
        dtype=data.dtype,
        compressors=[codec] if zarr_format == 3 else codec,
        zarr_format=zarr_format,
    )
    arr[:] = data
    return arr


def _blosc_json(path: Path) -> dict[str, Any]:
    meta = json.loads((path / "zarr.json").read_text())
    codec: dict[str, Any] = meta["codecs"][-1]
    return codec


@pytest.mark.parametrize("config", list(V3_CONFIGS))
@pytest.mark.parametrize("name", DATASETS)
def test_v3_both_ways(
    tmp_path: Path,
    arrays: dict[str, np.ndarray[Any, Any]],
    calls: dict[str, int],
    name: str,
    config: str,
) -> None:
    data, kwargs = arrays[name], V3_CONFIGS[config]
    theirs_path, ours_path = tmp_path / "builtin.zarr", tmp_path / "ours.zarr"
    with zarr.config.set({"codecs.blosc": BUILTIN}):
        _write(theirs_path, data, zarr.codecs.BloscCodec(**kwargs))
    assert sum(calls.values()) == 0, "zarr's built-in wrote it"
    with zarr.config.set({"codecs.blosc": OURS}):
        _write(ours_path, data, BloscCodec(**kwargs))
    assert calls["encode"] == 8

    # The metadata records the resolved typesize and shuffle, the same for both.
    theirs_json, ours_json = _blosc_json(theirs_path), _blosc_json(ours_path)
    assert ours_json == theirs_json
    resolved = ours_json["configuration"]
    itemsize = data.dtype.itemsize
    assert resolved["typesize"] == kwargs.get("typesize", itemsize)
    auto = "bitshuffle" if itemsize == 1 else "shuffle"
    assert resolved["shuffle"] == kwargs.get("shuffle", auto)

    # Chunks: ours are Blosc(resolved).encode of the chunk bytes, and numcodecs' bytes where
    # the two c-blosc builds agree (these chunks are 32 KiB: zstd agrees on them too).
    codec = Blosc.from_json(ours_json, 3)
    chunks = _chunks_for(data.shape)
    for index, (ours_file, theirs_file) in enumerate(
        zip(_chunk_files(ours_path, data.shape), _chunk_files(theirs_path, data.shape), strict=True)
    ):
        i, j = divmod(index, data.shape[1] // chunks[1])
        block = data[i * chunks[0] : (i + 1) * chunks[0], j * chunks[1] : (j + 1) * chunks[1]]
        ours_bytes = ours_file.read_bytes()
        assert ours_bytes == codec.encode(np.ascontiguousarray(block).tobytes())
        assert ours_bytes == theirs_file.read_bytes(), ours_file

    calls.update(encode=0, decode=0, decode_into=0)
    with zarr.config.set({"codecs.blosc": OURS}):
        reopened = zarr.open_array(zarr.storage.LocalStore(theirs_path), mode="r")
        assert type(reopened.compressors[0]) is BloscCodec
        assert reopened.compressors[0].codec == codec
        values = reopened[:]
    assert calls["decode"] == 8, "our codec decoded every chunk"
    assert values.dtype == data.dtype and values.tobytes() == data.tobytes()

    calls.update(decode=0)
    with zarr.config.set({"codecs.blosc": BUILTIN}):
        reopened = zarr.open_array(zarr.storage.LocalStore(ours_path), mode="r")
        assert type(reopened.compressors[0]) is zarr.codecs.BloscCodec
        values = reopened[:]
    assert sum(calls.values()) == 0, "zarr's built-in read it"
    assert values.dtype == data.dtype and values.tobytes() == data.tobytes()


def test_v3_partial_chunks_fill_value_and_sharding(tmp_path: Path, calls: dict[str, int]) -> None:
    """Edge chunks, unwritten chunks and a sharded array, both ways."""
    data = np.arange(37 * 23, dtype=">i8").reshape(37, 23)  # a big-endian input
    for writer, reader in ((OURS, BUILTIN), (BUILTIN, OURS)):
        path = tmp_path / f"{writer.split('.')[0]}.zarr"
        with zarr.config.set({"codecs.blosc": writer}):
            arr = zarr.create_array(
                zarr.storage.LocalStore(path),
                shape=(50, 23),
                chunks=(8, 5),
                shards=(16, 10),
                dtype="int64",
                fill_value=-7,
                compressors=[zarr.registry.get_codec_class("blosc")(cname="lz4", clevel=5)],
            )
            arr[:37] = data
        meta = json.loads((path / "zarr.json").read_text())
        inner = meta["codecs"][0]["configuration"]["codecs"][-1]
        assert inner["configuration"]["typesize"] == 8
        assert inner["configuration"]["shuffle"] == "shuffle"
        with zarr.config.set({"codecs.blosc": reader}):
            values = zarr.open_array(zarr.storage.LocalStore(path), mode="r")[:]
        assert (values[:37] == data).all() and (values[37:] == -7).all()
    assert calls["encode"] > 0 and calls["decode"] > 0


@pytest.mark.parametrize(("typesize", "dtype"), [(4, "uint8"), (1, "float32")])
def test_v3_typesize_set_shuffle_unset_metadata(tmp_path: Path, typesize: int, dtype: str) -> None:
    data = np.arange(1024).astype(dtype).reshape(32, 32)
    with zarr.config.set({"codecs.blosc": BUILTIN}):
        _write(tmp_path / "builtin.zarr", data, zarr.codecs.BloscCodec(typesize=typesize))
    with zarr.config.set({"codecs.blosc": OURS}):
        _write(tmp_path / "ours.zarr", data, BloscCodec(typesize=typesize))
    assert _blosc_json(tmp_path / "ours.zarr") == _blosc_json(tmp_path / "builtin.zarr")


def test_v3_builtin_array_with_300_byte_items_read_by_ours(tmp_path: Path) -> None:
    data = np.array([b"x" * 300, b"y" * 300, b"z" * 299], dtype="S300")
    path = tmp_path / "a.zarr"
    with zarr.config.set({"codecs.blosc": BUILTIN}), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # zarr warns that this data type is not in the spec
        arr = zarr.create_array(
            zarr.storage.LocalStore(path),
            shape=data.shape,
            chunks=(2,),
            dtype=data.dtype,
            compressors=[zarr.codecs.BloscCodec(cname="lz4")],
        )
        arr[:] = data
    assert _blosc_json(path)["configuration"]["typesize"] == 300
    chunk = (path / "c" / "0").read_bytes()
    assert _blosc.frame_info(chunk)["typesize"] == 1
    assert Blosc().decode(chunk) == data[:2].tobytes()  # the chunk itself is fine
    with zarr.config.set({"codecs.blosc": OURS}), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        values = zarr.open_array(zarr.storage.LocalStore(path), mode="r")[:]
    assert (values == data).all()


# -- zarr v2 through numcodecs ---------------------------------------------------------------

V2_CASES = [("lz4", 5, 1, 0), ("zstd", 3, -1, 0), ("blosclz", 9, 2, 4096), ("zlib", 1, 0, 0)]


@pytest.fixture
def registered() -> Iterator[None]:
    blosc_numcodecs.register()
    try:
        yield
    finally:
        blosc_numcodecs.unregister()
    assert type(numcodecs.get_codec({"id": "blosc"})) is numcodecs.Blosc


@pytest.mark.parametrize("case", V2_CASES, ids=lambda c: "-".join(map(str, c)))
@pytest.mark.parametrize("name", ["float64_field", "uint8_image"])
def test_v2_both_ways(
    tmp_path: Path,
    arrays: dict[str, np.ndarray[Any, Any]],
    calls: dict[str, int],
    name: str,
    case: tuple[str, int, int, int],
) -> None:
    data = arrays[name]
    cname, clevel, shuffle, blocksize = case
    config = {"id": "blosc", "cname": cname, "clevel": clevel, "shuffle": shuffle}
    config["blocksize"] = blocksize
    theirs_path, ours_path = tmp_path / "numcodecs.zarr", tmp_path / "ours.zarr"
    _write(theirs_path, data, numcodecs.Blosc(cname, clevel, shuffle, blocksize), zarr_format=2)
    assert sum(calls.values()) == 0
    assert json.loads((theirs_path / ".zarray").read_text())["compressor"] == config

    blosc_numcodecs.register()
    try:
        compressor = numcodecs.get_codec(dict(config))
        assert type(compressor) is blosc_numcodecs.Blosc
        _write(ours_path, data, compressor, zarr_format=2)
        reopened = zarr.open_array(zarr.storage.LocalStore(theirs_path), mode="r")
        assert type(reopened.metadata.compressor) is blosc_numcodecs.Blosc
        values = reopened[:]
    finally:
        blosc_numcodecs.unregister()
    assert calls["encode"] == 8
    assert calls["decode"] + calls["decode_into"] == 8
    assert values.dtype == data.dtype and values.tobytes() == data.tobytes()
    assert json.loads((ours_path / ".zarray").read_text())["compressor"] == config
    # zarr runs numcodecs in worker threads, where it does not start its own: same bytes
    for ours_file, theirs_file in zip(
        _chunk_files(ours_path, data.shape, v3=False),
        _chunk_files(theirs_path, data.shape, v3=False),
        strict=True,
    ):
        assert ours_file.read_bytes() == theirs_file.read_bytes(), ours_file

    calls.update(encode=0, decode=0, decode_into=0)
    reopened = zarr.open_array(zarr.storage.LocalStore(ours_path), mode="r")
    assert type(reopened.metadata.compressor) is numcodecs.Blosc
    values = reopened[:]
    assert sum(calls.values()) == 0
    assert values.dtype == data.dtype and values.tobytes() == data.tobytes()


def test_register_and_unregister_are_reversible(registered: None) -> None:
    assert type(numcodecs.get_codec({"id": "blosc", "cname": "zstd"})) is blosc_numcodecs.Blosc
    blosc_numcodecs.register()  # twice is harmless
    blosc_numcodecs.unregister()
    assert type(numcodecs.get_codec({"id": "blosc"})) is numcodecs.Blosc
    blosc_numcodecs.unregister()  # and so is unregistering twice
    assert type(numcodecs.get_codec({"id": "blosc"})) is numcodecs.Blosc


def test_numcodecs_adapter_round_trips_numcodecs_config(registered: None) -> None:
    for shuffle in SHUFFLES:
        theirs = numcodecs.Blosc("zstd", 7, shuffle, 256).get_config()
        ours = numcodecs.get_codec(dict(theirs))
        assert type(ours) is blosc_numcodecs.Blosc
        assert ours.get_config() == theirs
        array = np.arange(5000, dtype="<i4")
        assert bytes(numcodecs.Blosc().decode(ours.encode(array))) == array.tobytes()
        out = np.empty_like(array)
        ours.decode(
            numcodecs.Blosc(**{k: v for k, v in theirs.items() if k != "id"}).encode(array), out=out
        )
        assert (out == array).all()


# -- installing the wheel changes nothing by default -----------------------------------------


def test_zarr_default_config_still_picks_the_builtin() -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        selected = zarr.registry.get_codec_class("blosc")
        selected_again = zarr.registry.get_codec_class("blosc", reload_config=True)
    assert selected is selected_again is zarr.codecs.BloscCodec
    assert zarr.config.get("codecs.blosc") == BUILTIN
    assert not [w for w in caught if "blosc" in str(w.message)], [str(w.message) for w in caught]
    from zarr.registry import _codec_registries

    assert set(_codec_registries["blosc"]) == {BUILTIN, OURS}
    with zarr.config.set({"codecs.blosc": OURS}):
        assert zarr.registry.get_codec_class("blosc") is BloscCodec


def test_zarr_default_config_reads_and_writes_with_the_builtin(
    tmp_path: Path, calls: dict[str, int]
) -> None:
    data = np.arange(1000, dtype="float32").reshape(10, 100)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # any warning (e.g. "not configured") fails the test
        for zarr_format, compressor in (
            (3, {"name": "blosc", "configuration": {"cname": "lz4", "clevel": 5}}),
            (2, {"id": "blosc", "cname": "lz4", "clevel": 5, "shuffle": -1, "blocksize": 0}),
        ):
            path = tmp_path / f"v{zarr_format}.zarr"
            arr = zarr.create_array(
                zarr.storage.LocalStore(path),
                shape=data.shape,
                chunks=(5, 50),
                dtype="float32",
                zarr_format=zarr_format,
                compressors=[compressor] if zarr_format == 3 else compressor,
            )
            arr[:] = data
            reopened = zarr.open_array(zarr.storage.LocalStore(path), mode="r")
            assert (reopened[:] == data).all()
        assert type(reopened.metadata.compressor) is numcodecs.Blosc
    assert sum(calls.values()) == 0
    assert type(numcodecs.get_codec({"id": "blosc"})) is numcodecs.Blosc


def test_without_a_config_entry_zarr_warns_and_selects_ours() -> None:
    """zarr 3.4 with two implementations and no ``codecs.blosc`` entry (see the gzip test)."""
    with (
        zarr.config.set({"codecs.blosc": None}),
        pytest.warns(UserWarning, match="Codec 'blosc' not configured in config"),
    ):
        selected = zarr.registry.get_codec_class("blosc")
    assert selected is BloscCodec


# -- adapter classes -------------------------------------------------------------------------


def test_zarr_adapter_class() -> None:
    from zarr.abc.codec import BytesBytesCodec

    assert BytesBytesCodec in BloscCodec.__mro__
    builtin = zarr.codecs.BloscCodec(cname="lz4", clevel=3, shuffle="shuffle", typesize=4)
    codec = BloscCodec(cname="lz4", clevel=3, shuffle="shuffle", typesize=4)
    assert codec.to_dict() == builtin.to_dict()
    assert BloscCodec.from_dict(builtin.to_dict()) == codec
    with pytest.raises(ValueError, match="clevel"):
        BloscCodec(clevel=10)


def test_plain_copy_frames_decode_whatever_compressor_they_name() -> None:
    """A frame stored as it is (clevel 0: the memcpy flag) needs no compressor: one naming
    snappy, which neither build includes, decodes to its bytes with ours as with numcodecs'."""
    data = np.arange(5000, dtype="<u4").tobytes()
    frame = bytearray(Blosc("lz4", 0, "noshuffle", 4).encode(data))
    assert frame[2] & 0x02  # the memcpy flag
    frame[2] = (frame[2] & 0x1F) | (2 << 5)  # compressor code 2: snappy
    assert bytes(numcodecs.Blosc().decode(bytes(frame))) == data
    assert Blosc().decode(bytes(frame)) == data
    assert Blosc(threads=4).decode(bytes(frame)) == data

"""Our pipeline on the stores users keep big arrays in, against real servers on 127.0.0.1.

Servers (``zarr_codecs_bench.loopback``, started and stopped by the fixtures): moto's S3 server,
a plain HTTP server over a directory, and a proxy in front of each that logs every request and
injects faults. Stores: ``zarr.storage.ObjectStore`` over obstore's S3, HTTP, local and memory
stores; ``FsspecStore`` over s3fs, fsspec's HTTP and ``memory://``; ``ZipStore``; icechunk's
in-memory and local repositories.

For each writable store and layout (``[bytes, zstd]``, sharded, blosc, Zarr v2), the same
writes (whole array, then a region cutting chunks) through zarr-python's own pipeline and ours
leave identical stored bytes; reads (whole array, one chunk, 4 x 4 chunks, one element) give
the values bit for bit; ``usage()`` shows the runtime ran. HTTP stores are read-only: arrays
written to the served directory are read through them. Sharded reads are counted at the proxy:
one request per run of adjacent inner chunks, after the index. Bad cases: a missing chunk
reads as the fill value, a truncated chunk, a server error, a body cut short and a server that
stops answering give errors (never a hang), and a failed write leaves no chunk that is neither
old nor new.
"""

from __future__ import annotations

import contextlib
import json
import struct
import time
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

import numpy as np
import pytest

zarr = pytest.importorskip("zarr")
zarr_codecs = pytest.importorskip("zarr_codecs")
obstore_store = pytest.importorskip("obstore.store")
obstore_exceptions = pytest.importorskip("obstore.exceptions")
loopback = pytest.importorskip("zarr_codecs_bench.loopback")
pytest.importorskip("moto")

from zarr.core.buffer import default_buffer_prototype  # noqa: E402
from zarr.core.sync import sync  # noqa: E402
from zarr.storage import FsspecStore, LocalStore, ObjectStore, ZipStore  # noqa: E402

SHAPE, CHUNKS, SHARDS = (40, 50), (8, 10), (16, 20)
#: (name, selection): what each read takes.
READS = [
    ("whole", (slice(None), slice(None))),
    ("one chunk", (slice(8, 16), slice(10, 20))),
    ("4x4 chunks", (slice(0, 32), slice(10, 50))),
    ("one element", (13, 17)),
]
#: The region the second write covers: it cuts chunks (and shards) at every edge.
REGION = (slice(5, 29), slice(3, 44))

LAYOUTS: dict[str, dict[str, Any]] = {
    "[bytes, zstd]": {},
    "sharded": {"shards": SHARDS},
    "blosc": {"compressors": {"name": "blosc", "configuration": {"cname": "lz4", "clevel": 5}}},
    "v2 zstd": {"zarr_format": 2, "compressors": {"id": "zstd", "level": 1}},
}
_METADATA = {"zarr.json", ".zarray", ".zattrs", ".zgroup"}
DEFAULT = "zarr.core.codec_pipeline.BatchedCodecPipeline"


def _values(seed: int) -> np.ndarray[Any, Any]:
    """float32 with distinct bytes in every element (a random first byte, then the next ones)."""
    rng = np.random.default_rng(seed)
    first = rng.integers(0, 250, (int(np.prod(SHAPE)), 1))
    raw = ((first + np.arange(4)) % 256).astype(np.uint8)
    return raw.reshape(-1).view("<f4").reshape(SHAPE).copy()


def _bits(values: Any) -> np.ndarray[Any, Any]:
    return np.asarray(values).view(np.uint32)


@contextlib.contextmanager
def _zarr_own() -> Iterator[None]:
    with zarr.config.set({"codec_pipeline.path": DEFAULT}):
        yield


@contextlib.contextmanager
def _ours() -> Iterator[None]:
    with zarr_codecs.install(pipeline=True):
        yield


def _stored(store: Any, prefix: str) -> dict[str, bytes]:
    """Every key under ``prefix`` (relative to it) with its stored bytes."""

    async def collect() -> dict[str, bytes]:
        found = {}
        async for key in store.list_prefix(prefix + "/"):
            data = await store.get(key, default_buffer_prototype())
            found[key[len(prefix) + 1 :]] = data.to_bytes()
        return found

    return sync(collect())


# -- servers ------------------------------------------------------------------------------


@dataclass
class Servers:
    s3: Any  # loopback.S3Server
    s3_proxy: Any  # loopback.Proxy in front of it
    http_root: Path
    http_proxy: Any  # loopback.Proxy in front of the HTTP server


@pytest.fixture(scope="module")
def servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Servers]:
    root = tmp_path_factory.mktemp("served")
    with (
        loopback.S3Server() as s3,
        loopback.Proxy(s3.url) as s3_proxy,
        loopback.HttpServer(root) as http,
        loopback.Proxy(http.url) as http_proxy,
    ):
        yield Servers(s3, s3_proxy, root, http_proxy)


@pytest.fixture(autouse=True)
def _no_faults(servers: Servers) -> Iterator[None]:
    yield
    servers.s3_proxy.fault = servers.http_proxy.fault = None


_RETRY = {"max_retries": 1, "retry_timeout": timedelta(seconds=2)}
_CLIENT = {"allow_http": True, "timeout": "2s", "connect_timeout": "2s"}


def _obstore_s3(url: str, prefix: str) -> Any:
    return loopback.obstore_s3(url, prefix, client_options=_CLIENT, retry_config=_RETRY)


def _s3fs_store(url: str, prefix: str) -> Any:
    options = {
        "endpoint_url": url,
        "key": "testing",
        "secret": "testing",
        "client_kwargs": {"region_name": loopback.REGION},
        "config_kwargs": {"retries": {"max_attempts": 1}, "read_timeout": 2},
        "skip_instance_cache": True,
    }
    return FsspecStore.from_url(f"s3://{loopback.BUCKET}/{prefix}", storage_options=options)


@dataclass
class Kind:
    """A kind of store: ``make(servers, tmp_path)`` gives a writable store (a read-only one
    where ``served`` is set: then arrays are written to the served directory and read through
    it); ``reopen`` turns a written store into the one reads go through."""

    name: str
    make: Callable[[Servers, Path], Any]
    served: bool = False
    rewrites: bool = True  # whether a chunk may be written twice
    v2: bool = True  # whether the store keeps Zarr v2 arrays (icechunk: v3 only)
    reopen: Callable[[Any], Any] | None = None


def _unique(servers: Servers, tmp: Path) -> str:
    return f"{tmp.name}-{time.monotonic_ns()}"


def _icechunk(storage: Callable[[Path], Any]) -> Callable[[Servers, Path], Any]:
    def make(servers: Servers, tmp: Path) -> Any:
        icechunk = pytest.importorskip("icechunk")
        repository = icechunk.Repository.create(storage(tmp))
        return repository.writable_session("main").store

    return make


def _zip(servers: Servers, tmp: Path) -> Any:
    return ZipStore(tmp / "array.zip", mode="w")


def _zip_reopen(store: Any) -> Any:
    store.close()
    return ZipStore(store.path, mode="r")


def _in_memory_icechunk(tmp: Path) -> Any:
    import icechunk

    return icechunk.in_memory_storage()


def _local_icechunk(tmp: Path) -> Any:
    import icechunk

    return icechunk.local_filesystem_storage(str(tmp / "repository"))


KINDS = [
    Kind(
        "obstore S3",
        lambda s, t: ObjectStore(_obstore_s3(s.s3_proxy.url, _unique(s, t))),
    ),
    Kind("s3fs", lambda s, t: _s3fs_store(s.s3_proxy.url, _unique(s, t))),
    Kind("obstore local", lambda s, t: ObjectStore(obstore_store.LocalStore(t))),
    Kind("obstore memory", lambda s, t: ObjectStore(obstore_store.MemoryStore())),
    Kind("fsspec memory", lambda s, t: FsspecStore.from_url(f"memory://{_unique(s, t)}")),
    Kind("zip", _zip, rewrites=False, reopen=_zip_reopen),
    Kind("icechunk memory", _icechunk(_in_memory_icechunk), v2=False),
    Kind("icechunk local", _icechunk(_local_icechunk), v2=False),
    Kind(
        "obstore HTTP",
        lambda s, t: ObjectStore(
            obstore_store.HTTPStore.from_url(
                f"{s.http_proxy.url}/{t.name}", client_options=_CLIENT, retry_config=_RETRY
            ),
            read_only=True,
        ),
        served=True,
    ),
    Kind(
        "fsspec HTTP",
        lambda s, t: FsspecStore.from_url(f"{s.http_proxy.url}/{t.name}", read_only=True),
        served=True,
    ),
]


_REMOTE_NAMES = {"obstore S3", "s3fs", "obstore HTTP", "fsspec HTTP"}


def _create(store: Any, path: str, layout: str) -> Any:
    with warnings.catch_warnings():  # zarr warns that v2 arrays' codecs lack a v3 spec
        warnings.simplefilter("ignore")
        return zarr.create_array(
            store, name=path, shape=SHAPE, chunks=CHUNKS, dtype="<f4", fill_value=1.5,
            **LAYOUTS[layout],
        )  # fmt: skip


def _write(array: Any, rewrites: bool) -> np.ndarray[Any, Any]:
    """The writes every store gets; returns the values they leave."""
    expected = _values(1)
    array[...] = expected
    if rewrites:
        second = _values(2)
        array[REGION] = second[REGION]
        expected[REGION] = second[REGION]
    return expected


def _read_all(array: Any, expected: np.ndarray[Any, Any]) -> None:
    for name, selection in READS:
        found = array[selection]
        assert np.array_equal(_bits(found), _bits(expected[selection])), name


@pytest.mark.parametrize("layout", list(LAYOUTS))
@pytest.mark.parametrize("kind", KINDS, ids=[k.name for k in KINDS])
def test_writes_and_reads_match_zarr_python(
    kind: Kind, layout: str, servers: Servers, tmp_path: Path
) -> None:
    if layout.startswith("v2") and not kind.v2:
        pytest.skip(f"{kind.name} keeps Zarr v3 arrays only")
    if kind.served:
        return _read_served(kind, layout, servers, tmp_path)
    store = kind.make(servers, tmp_path)
    with _zarr_own():
        expected = _write(_create(store, "theirs", layout), kind.rewrites)
    with _ours():
        zarr_codecs.reset_usage()
        values = _write(_create(store, "ours", layout), kind.rewrites)
        assert np.array_equal(_bits(values), _bits(expected))
        written = zarr_codecs.usage()
    store = store if kind.reopen is None else kind.reopen(store)
    theirs, ours = _stored(store, "theirs"), _stored(store, "ours")
    assert sorted(ours) == sorted(theirs)
    for key, data in theirs.items():
        if key.rpartition("/")[2] in _METADATA:  # the same document; ours may order keys otherwise
            assert json.loads(ours[key]) == json.loads(data), key
        else:
            assert ours[key] == data, key
    assert written["runtime_written"] > 0 and written["zarr_written"] == 0, written
    with _ours():
        zarr_codecs.reset_usage()
        _read_all(zarr.open_array(store, path="ours", mode="r"), expected)
        read = zarr_codecs.usage()
    assert read["runtime_read"] > 0 and read["zarr_read"] == 0, read
    with _zarr_own():
        _read_all(zarr.open_array(store, path="ours", mode="r"), expected)


def _read_served(kind: Kind, layout: str, servers: Servers, tmp_path: Path) -> None:
    """An array written to the served directory by zarr-python's own pipeline, read over HTTP
    with ours."""
    served = servers.http_root / tmp_path.name
    with _zarr_own():
        expected = _write(_create(LocalStore(served), "theirs", layout), rewrites=True)
    store = kind.make(servers, tmp_path)
    with _ours():
        zarr_codecs.reset_usage()
        _read_all(zarr.open_array(store, path="theirs", mode="r"), expected)
        read = zarr_codecs.usage()
    assert read["runtime_read"] > 0 and read["zarr_read"] == 0, read


@pytest.fixture
def streamed(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every read of ours takes the path of large reads: chunks decoded in groups as they
    arrive (the arrays here are small enough to be read in one go otherwise)."""
    from zarr_codecs import _selections

    monkeypatch.setattr(_selections, "INLINE_BYTES", 0)


_STREAMED_KINDS = [k for k in KINDS if k.name in {*_REMOTE_NAMES, "icechunk memory", "zip"}]


@pytest.mark.usefixtures("streamed")
@pytest.mark.parametrize("layout", ["[bytes, zstd]", "sharded", "v2 zstd"])
@pytest.mark.parametrize("kind", _STREAMED_KINDS, ids=[k.name for k in _STREAMED_KINDS])
def test_reads_decoded_as_chunks_arrive(
    kind: Kind, layout: str, servers: Servers, tmp_path: Path
) -> None:
    if layout.startswith("v2") and not kind.v2:
        pytest.skip(f"{kind.name} keeps Zarr v3 arrays only")
    if kind.served:
        return _read_served(kind, layout, servers, tmp_path)
    store = kind.make(servers, tmp_path)
    with _zarr_own():
        expected = _write(_create(store, "theirs", layout), kind.rewrites)
    store = store if kind.reopen is None else kind.reopen(store)
    with _ours():
        zarr_codecs.reset_usage()
        _read_all(zarr.open_array(store, path="theirs", mode="r"), expected)
        read = zarr_codecs.usage()
    assert read["runtime_read"] > 0 and read["zarr_read"] == 0, read


@pytest.mark.parametrize("setting", [None, 3, 200])
def test_requests_in_flight_follow_the_fetch_limit(
    setting: int | None, servers: Servers, tmp_path: Path
) -> None:
    """A whole read keeps up to ``codec_pipeline.fetch_concurrency`` requests in flight (64 by
    default; zarr-python's own pipeline keeps ``async.concurrency``, 10)."""
    from zarr_codecs import _fetching

    store, expected = _s3_array(servers, tmp_path)
    chunks = (SHAPE[0] // CHUNKS[0]) * (SHAPE[1] // CHUNKS[1])  # 25, all in one read
    servers.s3_proxy.latency = 0.2  # long enough for every request to be sent meanwhile
    try:
        with _ours(), zarr.config.set({"codec_pipeline.fetch_concurrency": setting}):
            array = zarr.open_array(store, path="a", mode="r")
            servers.s3_proxy.clear()
            assert np.array_equal(_bits(array[...]), _bits(expected))
            assert _fetching.limit() == (setting or _fetching.DEFAULT_LIMIT)
    finally:
        servers.s3_proxy.latency = 0.0
    assert servers.s3_proxy.peak == min(chunks, setting or _fetching.DEFAULT_LIMIT)


# -- sharded reads: requests counted at the server ----------------------------------------


def _shard_index(data: bytes, inner: int) -> list[tuple[int, int]]:
    """(offset, length) of each inner chunk, from a shard's index at its end (little-endian
    uint64 pairs, then a crc32c)."""
    index = data[-(16 * inner + 4) : -4]
    return [struct.unpack_from("<QQ", index, 16 * n) for n in range(inner)]


def _runs(spans: list[tuple[int, int]]) -> int:
    """How many runs of byte-adjacent spans ``spans`` make."""
    runs, end = 0, None
    for offset, length in sorted(spans):
        if offset != end:
            runs += 1
        end = offset + length
    return runs


SHARDED_KINDS = [k for k in KINDS if k.name in _REMOTE_NAMES]
#: The range of the request that finds out, once per client, whether a store honours
#: If-Match (asked on a condition no version meets).
_PROBE = "bytes=0-0"


def _sharded_written(
    kind: Kind, servers: Servers, tmp_path: Path
) -> tuple[Any, Any, Any, np.ndarray[Any, Any]]:
    """A sharded array "a" written by zarr-python's own pipeline where ``kind`` reads it (for
    HTTP, into the served directory): the store written through, the store to read, the proxy
    its requests pass and the values."""
    served = servers.http_root / tmp_path.name
    writable = LocalStore(served) if kind.served else kind.make(servers, tmp_path)
    with _zarr_own():
        expected = _write(_create(writable, "a", "sharded"), rewrites=False)
    store = kind.make(servers, tmp_path) if kind.served else writable
    proxy = servers.http_proxy if kind.served else servers.s3_proxy
    return writable, store, proxy, expected


@pytest.mark.parametrize("kind", SHARDED_KINDS, ids=[k.name for k in SHARDED_KINDS])
def test_sharded_reads_fetch_each_run_of_inner_chunks_once(
    kind: Kind, servers: Servers, tmp_path: Path
) -> None:
    writable, store, proxy, expected = _sharded_written(kind, servers, tmp_path)
    shard = _stored(writable, "a")["c/0/1"]
    per_shard = (SHARDS[0] // CHUNKS[0]) * (SHARDS[1] // CHUNKS[1])
    spans = _shard_index(shard, per_shard)
    # (selection inside shard 0/1, the inner chunks it needs, row-major within the shard)
    cases = [
        ((slice(0, 16), slice(20, 40)), None),  # the whole shard: one request, no index
        ((slice(2, 5), slice(23, 27)), [0]),
        ((slice(2, 14), slice(23, 27)), [0, 2]),
        ((slice(9, 14), slice(21, 38)), [2, 3]),
    ]
    with _ours():
        array = zarr.open_array(store, path="a", mode="r")
        for selection, needed in cases:
            proxy.clear()
            assert np.array_equal(_bits(array[selection]), _bits(expected[selection]))
            gets = [
                r for r in proxy.log()
                if r.method == "GET" and r.path.endswith("/a/c/0/1") and r.range != _PROBE
            ]  # fmt: skip
            if needed is None:
                assert len(gets) == 1 and gets[0].range is None, gets
            else:
                runs = _runs([spans[n] for n in needed])
                assert 1 <= len(gets) <= 1 + runs, (selection, runs, gets)


@pytest.mark.parametrize("kind", SHARDED_KINDS, ids=[k.name for k in SHARDED_KINDS])
def test_shard_indexes_are_kept_until_the_shard_changes(
    kind: Kind, servers: Servers, tmp_path: Path
) -> None:
    """Part of a shard read again costs one round trip: the index read the first time is
    kept. On S3 the inner chunks are asked for on condition that the shard is unchanged
    (If-Match, which moto honours): no index request. On HTTP (a web server's ETag may
    outlive a rewrite) they are asked beside the shard's current index, and used only if it
    equals the kept one: an index request every time (that both go in one round trip, and
    stores that ignore If-Match: the runtime's Rust tests). A shard rewritten since is read
    afresh: the new values."""
    writable, store, proxy, expected = _sharded_written(kind, servers, tmp_path)
    part = (slice(2, 5), slice(23, 27))  # inside shard 0/1

    def index_requests() -> int:
        gets = [r for r in proxy.log() if r.method == "GET" and r.path.endswith("/a/c/0/1")]
        return sum(1 for r in gets if r.range is not None and r.range.startswith("bytes=-"))

    with _ours():
        array = zarr.open_array(store, path="a", mode="r")
        proxy.clear()
        counts = []
        for _ in range(3):  # the client finds out once whether the store honours If-Match
            before = index_requests()
            assert np.array_equal(_bits(array[part]), _bits(expected[part]))
            counts.append(index_requests() - before)
        trusted = not kind.served
        assert counts == ([1, 0, 0] if trusted else [1, 1, 1]), counts
        probes = [r for r in proxy.log() if r.range == _PROBE]
        assert len(probes) <= (1 if trusted else 0), probes
        ranges = [r for r in proxy.log() if r.range is not None and r.range.startswith("bytes=")]
        inner = [r for r in ranges if not r.range.startswith("bytes=-") and r.range != _PROBE]
        assert len(inner) == 3, inner  # one range per read: the inner chunk needed
    with _zarr_own():
        newer = _values(3)
        zarr.open_array(writable, path="a", mode="r+")[0:16, 20:40] = newer[0:16, 20:40]
    with _ours():
        proxy.clear()
        assert np.array_equal(_bits(array[part]), _bits(newer[part]))
        assert index_requests() == 1
        assert zarr_codecs.usage()["zarr_read"] == 0


#: Shards of 1 MiB of float32, large enough for their index to be fetched apart.
_LARGE_SHAPE, _LARGE_SHARDS, _LARGE_CHUNKS = (1024, 1024), (512, 512), (128, 128)


@pytest.mark.parametrize("location", ["end", "start"])
@pytest.mark.parametrize("kind", SHARDED_KINDS, ids=[k.name for k in SHARDED_KINDS])
def test_large_shards_are_decoded_as_their_bodies_stream_in(
    kind: Kind, location: str, servers: Servers, tmp_path: Path
) -> None:
    """Whole shards of 1 MiB: with the index at the end, each is one GET of its body and one
    of its index alone (a suffix range) sent beside it, so its inner chunks decode as the
    body streams in; with the index at the start, the body alone. Values bit for bit, an
    inner chunk of fill values (not stored) among them."""
    from zarr.codecs import BytesCodec, ShardingCodec, ZstdCodec

    rng = np.random.default_rng(7)
    first = rng.integers(0, 250, (int(np.prod(_LARGE_SHAPE)), 1))
    raw = ((first + np.arange(4)) % 256).astype(np.uint8)
    expected = raw.reshape(-1).view("<f4").reshape(_LARGE_SHAPE).copy()
    expected[:128, :128] = 1.5  # the fill value: that inner chunk is not stored
    served = servers.http_root / tmp_path.name
    writable = LocalStore(served) if kind.served else kind.make(servers, tmp_path)
    serializer = ShardingCodec(
        chunk_shape=_LARGE_CHUNKS, codecs=[BytesCodec(), ZstdCodec()], index_location=location
    )
    with _zarr_own():
        zarr.create_array(
            writable, name="big", shape=_LARGE_SHAPE, chunks=_LARGE_SHARDS, dtype="<f4",
            fill_value=1.5, serializer=serializer, compressors=None,
        )[...] = expected  # fmt: skip
    store = kind.make(servers, tmp_path) if kind.served else writable
    proxy = servers.http_proxy if kind.served else servers.s3_proxy
    with _ours():
        array = zarr.open_array(store, path="big", mode="r")
        zarr_codecs.reset_usage()
        proxy.clear()
        assert np.array_equal(_bits(array[...]), _bits(expected))
        assert zarr_codecs.usage()["remote_read"] == 4
    gets = [r for r in proxy.log() if r.method == "GET" and "/big/c/" in r.path]
    by_shard: dict[str, list[str | None]] = {}
    for request in gets:
        by_shard.setdefault(request.path, []).append(request.range)
    assert len(by_shard) == 4, gets
    for ranges in by_shard.values():
        if location == "end":
            assert sorted(ranges, key=str) == [None, f"bytes=-{16 * 16 + 4}"], ranges
        else:
            assert ranges == [None], ranges


# -- bad cases ------------------------------------------------------------------------------


def _s3_array(servers: Servers, tmp_path: Path, layout: str = "[bytes, zstd]") -> Any:
    store = ObjectStore(_obstore_s3(servers.s3_proxy.url, _unique(servers, tmp_path)))
    with _zarr_own():
        expected = _write(_create(store, "a", layout), rewrites=False)
    return store, expected


@pytest.mark.parametrize("pipeline", [_zarr_own, _ours], ids=["zarr", "ours"])
def test_a_missing_chunk_reads_as_the_fill_value(
    pipeline: Any, servers: Servers, tmp_path: Path
) -> None:
    store, expected = _s3_array(servers, tmp_path)
    sync(store.delete("a/c/1/2"))
    expected[8:16, 20:30] = 1.5
    with pipeline():
        _read_all(zarr.open_array(store, path="a", mode="r"), expected)


@pytest.mark.parametrize("streaming", [False, True], ids=["inline", "streamed"])
def test_a_truncated_chunk_is_a_codec_error(
    streaming: bool, servers: Servers, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    from zarr_codec_shapes.errors import CodecError

    if streaming:
        request.getfixturevalue("streamed")
    store, _ = _s3_array(servers, tmp_path)
    whole = sync(store.get("a/c/1/2", default_buffer_prototype())).to_bytes()
    sync(store.set("a/c/1/2", default_buffer_prototype().buffer.from_bytes(whole[:-7])))
    with _ours():
        array = zarr.open_array(store, path="a", mode="r")
        with pytest.raises(CodecError):
            array[...]
        assert array[0:8, 0:10].shape == (8, 10)  # other chunks still read


@pytest.mark.parametrize("streaming", [False, True], ids=["inline", "streamed"])
@pytest.mark.parametrize("fault", ["error", "truncate", "hang"])
def test_a_failing_server_gives_zarr_pythons_error_not_a_hang(
    fault: str, streaming: bool, servers: Servers, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    """A server error, a body cut short, or a server that stops answering (the client's
    timeout is 2 s) while one chunk is fetched: the store's own error, as zarr-python's own
    pipeline raises it, and soon; the other fetches are cancelled."""
    if streaming:
        request.getfixturevalue("streamed")
    store, _ = _s3_array(servers, tmp_path)
    raised = _errors_of_both(servers, store, fault, "/a/c/2/3", (slice(None), slice(None)))
    assert "c/2/3" in str(raised["_ours"]) or fault == "truncate", raised


def _errors_of_both(
    servers: Servers, store: Any, fault: str, path: str, selection: Any
) -> dict[str, BaseException]:
    """The error each pipeline raises reading ``selection`` while the server answers requests
    for ``path`` with ``fault``: of the same type, and soon."""
    servers.s3_proxy.fault = lambda r: fault if r.path.endswith(path) else None
    raised = {}
    for pipeline in (_zarr_own, _ours):
        started = time.monotonic()
        with pipeline():
            array = zarr.open_array(store, path="a", mode="r")
            with pytest.raises(obstore_exceptions.BaseError) as error:
                array[selection]
        assert time.monotonic() - started < 30
        raised[pipeline.__name__] = error.value
    assert type(raised["_ours"]) is type(raised["_zarr_own"]), raised
    return raised


@pytest.mark.parametrize("fault", ["error", "truncate", "hang"])
@pytest.mark.parametrize(
    "selection",
    [(slice(None), slice(None)), (slice(18, 22), slice(22, 26))],
    ids=["whole shards", "part of a shard"],
)
def test_a_failing_server_mid_shard_gives_zarr_pythons_error(
    fault: str, selection: Any, servers: Servers, tmp_path: Path
) -> None:
    """The same faults on a shard's requests (the whole body; or its index, then its inner
    chunks' ranges): the store's own error, as zarr-python's pipeline raises it, and soon."""
    store, _ = _s3_array(servers, tmp_path, "sharded")
    _errors_of_both(servers, store, fault, "/a/c/1/1", selection)


def test_a_failed_write_leaves_each_chunk_old_or_new(servers: Servers, tmp_path: Path) -> None:
    store, old = _s3_array(servers, tmp_path)
    new = _values(7)
    servers.s3_proxy.fault = lambda r: (
        "error" if r.method == "PUT" and r.path.endswith("/a/c/2/3") else None
    )
    with _ours():
        array = zarr.open_array(store, path="a", mode="r+")
        with pytest.raises(obstore_exceptions.BaseError, match="c/2/3"):
            array[...] = new
    servers.s3_proxy.fault = None
    with _ours():
        found = zarr.open_array(store, path="a", mode="r")[...]
    for i in range(0, SHAPE[0], CHUNKS[0]):
        for j in range(0, SHAPE[1], CHUNKS[1]):
            block = (slice(i, i + CHUNKS[0]), slice(j, j + CHUNKS[1]))
            got = _bits(found[block])
            assert np.array_equal(got, _bits(old[block])) or np.array_equal(got, _bits(new[block]))
    assert np.array_equal(_bits(found[16:24, 30:40]), _bits(old[16:24, 30:40]))


# -- reads by the runtime's own client (zarr_codecs._remote_stores) ---------------------------

_TAKEN = [k for k in KINDS if k.name in _REMOTE_NAMES]
_NOT_TAKEN = [k for k in KINDS if k.name not in _REMOTE_NAMES]


def _written(kind: Kind, layout: str, servers: Servers, tmp_path: Path) -> tuple[Any, Any]:
    """(store to read, values) of an array "a" written by zarr-python's own pipeline."""
    if kind.served:
        with _zarr_own():
            expected = _write(
                _create(LocalStore(servers.http_root / tmp_path.name), "a", layout), True
            )
        return kind.make(servers, tmp_path), expected
    store = kind.make(servers, tmp_path)
    with _zarr_own():
        expected = _write(_create(store, "a", layout), kind.rewrites)
    return (store if kind.reopen is None else kind.reopen(store)), expected


@pytest.mark.parametrize("layout", list(LAYOUTS))
@pytest.mark.parametrize("kind", _TAKEN, ids=[k.name for k in _TAKEN])
def test_object_stores_are_read_by_the_runtimes_client(
    kind: Kind, layout: str, servers: Servers, tmp_path: Path
) -> None:
    """obstore's S3 and HTTP stores, s3fs with its credentials given and fsspec's HTTP: each
    whole selection is fetched and decoded by the runtime (one GET per chunk, or per whole
    shard; for part of a shard, its index and then the inner chunks needed, by byte ranges),
    bit for bit zarr-python's values."""
    store, expected = _written(kind, layout, servers, tmp_path)
    proxy = servers.http_proxy if kind.served else servers.s3_proxy
    with _ours():
        array = zarr.open_array(store, path="a", mode="r")
        for name, selection in READS:
            zarr_codecs.reset_usage()
            proxy.clear()
            found = array[selection]
            assert np.array_equal(_bits(found), _bits(expected[selection])), name
            used = zarr_codecs.usage()
            gets = [r for r in proxy.log() if r.method == "GET" and "/a/" in r.path]
            assert used["remote_read"] == used["runtime_read"] > 0, (name, used)
            assert used["zarr_read"] == 0, (name, used)
            # Each chunk, and each shard of which all within the array is read, is one GET;
            # part of a shard is its index (kept from an earlier read on S3), then the inner
            # chunks needed, by byte ranges.
            by_object: dict[str, list[str | None]] = {}
            for request in gets:
                by_object.setdefault(request.path, []).append(request.range)
            assert len(by_object) == used["remote_read"], (name, gets)
            for ranges in by_object.values():
                whole = ranges == [None]
                assert whole or None not in ranges, (name, ranges)
                assert whole or layout == "sharded", (name, ranges)


@pytest.mark.parametrize("kind", _NOT_TAKEN, ids=[k.name for k in _NOT_TAKEN])
def test_other_stores_are_read_through_their_own_api(
    kind: Kind, servers: Servers, tmp_path: Path
) -> None:
    store, expected = _written(kind, "[bytes, zstd]", servers, tmp_path)
    with _ours():
        zarr_codecs.reset_usage()
        _read_all(zarr.open_array(store, path="a", mode="r"), expected)
        used = zarr_codecs.usage()
    assert used["remote_read"] == 0 and used["runtime_read"] > 0, used


def test_s3fs_without_its_credentials_given_is_read_through_s3fs(servers: Servers) -> None:
    """Credentials from botocore's chain (a profile, an instance role), settings the runtime's
    client would read otherwise, or a switch turned off: the store's own reads."""
    from zarr_codecs._remote_stores import remote_of

    url = servers.s3_proxy.url
    plain = {"endpoint_url": url, "key": "testing", "secret": "testing"}
    assert remote_of(FsspecStore.from_url("s3://zarr/p", storage_options=plain)) is not None
    others = [
        {"endpoint_url": url},  # botocore's chain
        {**plain, "profile": "default"},
        {**plain, "requester_pays": True},
        {**plain, "s3_additional_kwargs": {"SSECustomerAlgorithm": "AES256"}},
        {**plain, "client_kwargs": {"verify": False}},
        {"key": "testing", "secret": "testing"},  # AWS itself, its region unknown
    ]
    for options in others:
        store = FsspecStore.from_url("s3://zarr/p", storage_options=options)
        assert remote_of(store) is None, options
    with zarr.config.set({"codec_pipeline.remote_reads": False}):
        store = FsspecStore.from_url("s3://zarr/q", storage_options=plain)
        assert remote_of(store) is None


def test_a_missing_object_is_the_fill_value_in_the_runtimes_client(
    servers: Servers, tmp_path: Path
) -> None:
    store, expected = _s3_array(servers, tmp_path)
    sync(store.delete("a/c/1/2"))
    expected[8:16, 20:30] = 1.5
    with _ours():
        zarr_codecs.reset_usage()
        _read_all(zarr.open_array(store, path="a", mode="r"), expected)
        assert zarr_codecs.usage()["remote_read"] > 0


def test_a_failed_request_hands_the_array_to_its_stores_client(
    servers: Servers, tmp_path: Path
) -> None:
    """A server error on one chunk: the store's own client reads the array from then on (its
    retries, its errors), so a passing fault costs one retried read, not a wrong answer."""
    store, expected = _s3_array(servers, tmp_path)
    failures = iter([True, True])  # the request and the client's one retry
    servers.s3_proxy.fault = lambda r: (
        "error" if r.path.endswith("/a/c/2/3") and next(failures, False) else None
    )
    with _ours():
        array = zarr.open_array(store, path="a", mode="r")
        zarr_codecs.reset_usage()
        assert np.array_equal(_bits(array[...]), _bits(expected))
        assert zarr_codecs.usage()["remote_read"] == 0
        zarr_codecs.reset_usage()
        assert np.array_equal(_bits(array[...]), _bits(expected))
        assert zarr_codecs.usage()["remote_read"] == 0


def test_a_forked_child_reads_with_a_client_of_its_own(servers: Servers, tmp_path: Path) -> None:
    """The runtime's client and threads are made again in a child process (dask's and
    multiprocessing's fork): the parent's would never answer there."""
    import multiprocessing

    store, expected = _s3_array(servers, tmp_path)
    with _ours():
        array = zarr.open_array(store, path="a", mode="r")
        assert np.array_equal(_bits(array[...]), _bits(expected))  # the parent's client, made
        context = multiprocessing.get_context("fork")
        with warnings.catch_warnings():  # Python warns of forking a process with threads
            warnings.simplefilter("ignore", DeprecationWarning)
            _FORKED[:] = [array]  # the very objects, their client included, in the child
            with context.Pool(1) as pool:
                found = pool.apply_async(_read_in_child).get(timeout=60)
            _FORKED.clear()
    assert np.array_equal(_bits(found[0]), _bits(expected))
    assert found[1] > 0


_FORKED: list[Any] = []


def _read_in_child() -> tuple[np.ndarray[Any, Any], int]:
    zarr_codecs.reset_usage()
    return _FORKED[0][...], zarr_codecs.usage()["remote_read"]


def test_unknown_remote_settings_are_refused() -> None:
    from zarr_codec_runtime import Remote
    from zarr_codec_shapes.errors import UnsupportedError

    with pytest.raises(UnsupportedError, match="no_such_setting"):
        Remote.s3([("bucket", "b"), ("no_such_setting", "1")])
    with pytest.raises(UnsupportedError, match="no_such_setting"):
        Remote.http("http://127.0.0.1:1", [("no_such_setting", "1")])


@pytest.mark.parametrize("kind", _TAKEN, ids=lambda k: k.name)
def test_keys_with_spaces_and_non_ascii_name_the_same_objects(
    kind: Kind, servers: Servers, tmp_path: Path
) -> None:
    """The runtime's client names each object as the store's own client does, whatever the
    characters of the array's path."""
    path = "odd name ü+%/a"
    served = servers.http_root / tmp_path.name
    writable = LocalStore(served) if kind.served else kind.make(servers, tmp_path)
    with _zarr_own():
        expected = _write(_create(writable, path, "[bytes, zstd]"), rewrites=False)
    store = kind.make(servers, tmp_path) if kind.served else writable
    with _ours():
        zarr_codecs.reset_usage()
        found = zarr.open_array(store, path=path, mode="r")[...]
        used = zarr_codecs.usage()
    assert np.array_equal(_bits(found), _bits(expected))
    assert used["remote_read"] > 0, used


def test_remote_get_reads_one_object_or_none(servers: Servers, tmp_path: Path) -> None:
    from zarr_codecs._remote_stores import remote_of

    store, _ = _s3_array(servers, tmp_path)
    remote, prefix = remote_of(store)
    stored = sync(store.get("a/c/1/2", default_buffer_prototype()))
    assert remote.get(prefix + "a/c/1/2") == stored.to_bytes()
    assert remote.get(prefix + "a/c/9/9") is None
    servers.s3_proxy.fault = lambda r: "error"
    with pytest.raises(OSError, match="c/1/2"):
        remote.get(prefix + "a/c/1/2")


def test_stores_with_the_same_settings_share_one_client(servers: Servers) -> None:
    """zarr's stores are not hashable: the client (and its connections) is found by the
    store's settings, so each array opened on them reuses it."""
    from zarr_codecs._remote_stores import remote_of

    url = servers.s3_proxy.url
    first = remote_of(ObjectStore(_obstore_s3(url, "p")))
    again = remote_of(ObjectStore(_obstore_s3(url, "p")))
    under_another_prefix = remote_of(ObjectStore(_obstore_s3(url, "q")))
    other_settings = remote_of(ObjectStore(loopback.obstore_s3(url, "p")))  # no timeouts
    assert first is not None and again is not None
    assert under_another_prefix is not None and other_settings is not None
    assert first[0] is again[0] and first[1] == again[1] == "p/"
    assert under_another_prefix[0] is first[0] and under_another_prefix[1] == "q/"
    assert other_settings[0] is not first[0]

"""Object stores whose chunks the runtime fetches itself (``zarr_codec_runtime.Remote``).

A read from object storage waits a round trip per request. Through zarr-python's store API
each chunk costs Python: a coroutine, the client's future handed back to the event loop, a
``Buffer``. Where a store's settings can be given to the runtime's own client (object_store,
the Rust library obstore wraps), a whole read is one call: every chunk's request in flight at
once, each chunk decoded as it arrives, the GIL released, no Python per chunk.

Taken (a plain store of exactly these types, nothing set that the runtime's client would read
differently):

- ``zarr.storage.ObjectStore`` over obstore's ``S3Store`` (its ``config``, ``client_options``
  and ``prefix``; not with a ``credential_provider`` or a ``retry_config``, which are Python
  objects) and ``HTTPStore`` (its ``url`` and ``client_options``);
- ``FsspecStore`` over s3fs with its credentials given (``key`` and ``secret``, or ``anon``),
  its endpoint and region from its options, and none of what botocore would add (a session,
  ``s3_additional_kwargs``, versions, requester pays, other client or config settings);
- ``FsspecStore`` over fsspec's HTTP file system without client settings (headers, auth).

Anything else (credentials from a profile or an instance role through botocore, icechunk, a
``ZipStore``) is read through zarr-python's store API as before. Reads only: writes go through
the store's own client. ``codec_pipeline.remote_reads`` set to ``False`` turns this off.
"""

from __future__ import annotations

import datetime
import functools
import os
from typing import Any, Literal

from zarr.core.config import config

__all__ = ["remote_of"]


def remote_of(store: Any) -> tuple[Any, str] | None:
    """``(Remote, prefix)`` for a store the runtime reads itself (``prefix`` comes before
    each of the store's keys in the runtime's client), or ``None``. One client per distinct
    settings, shared by every store object and array with them (zarr's stores are not
    hashable, and each client keeps its own connections)."""
    if config.get("codec_pipeline.remote_reads", True) is False:
        return None
    import zarr_codec_runtime
    from zarr.storage import FsspecStore, ObjectStore

    if not hasattr(zarr_codec_runtime, "Remote"):  # a runtime built without the remote feature
        return None
    try:
        if type(store) is ObjectStore:
            return _obstore(store.store)
        if type(store) is FsspecStore:
            return _fsspec(store)
    except (ValueError, TypeError, NotImplementedError):
        return None  # a setting the runtime's client does not know: the store's own reads
    return None


#: How ``Remote`` takes a retry setting: (max_retries, retry_timeout, init_backoff,
#: max_backoff, base), seconds.
Retry = tuple[int, float, float, float, float]


def _s3(options: list[tuple[str, str]], from_env: bool = False, retry: Retry | None = None) -> Any:
    return _client("s3", tuple(options), from_env, retry)


def _http(url: str, options: list[tuple[str, str]], retry: Retry | None = None) -> Any:
    return _client("http", url, tuple(options), retry)


@functools.lru_cache(maxsize=64)
def _client(kind: str, *settings: Any) -> Any:
    """``Remote.s3`` or ``Remote.http``, made once per distinct settings."""
    from zarr_codec_runtime import Remote

    if kind == "s3":
        options, from_env, retry = settings
        return Remote.s3(list(options), from_env=from_env, retry=retry)
    url, options, retry = settings
    return Remote.http(url, list(options), retry=retry)


def _obstore(inner: Any) -> tuple[Any, str] | None:
    name = type(inner).__name__
    if type(inner).__module__.split(".")[0] != "obstore" or name not in ("S3Store", "HTTPStore"):
        return None
    options = _options(inner.client_options)
    retry = _retry(inner.retry_config)
    if options is None or retry is False:
        return None
    if name == "S3Store":
        if inner.credential_provider is not None:  # a Python callable
            return None
        settings = _options(inner.config)
        if settings is None:
            return None
        prefix = str(inner.prefix or "")
        every = sorted({**settings, **options}.items())
        return _s3(every, from_env=True, retry=retry), _joined(prefix)
    return _http(str(inner.url), sorted(options.items()), retry=retry), ""


#: object_store's retry settings where obstore's ``retry_config`` leaves one out.
_RETRY_DEFAULTS = {"max_retries": 10, "retry_timeout": 180.0}
_BACKOFF_DEFAULTS = {"init_backoff": 0.1, "max_backoff": 15.0, "base": 2.0}


def _retry(config: Any) -> Retry | Literal[False] | None:
    """obstore's ``retry_config`` as ``Remote`` takes it (``None``: the defaults), or
    ``False`` where it has a setting ``Remote`` does not know."""
    if config is None:
        return None
    given = dict(config)
    backoff = dict(given.pop("backoff", None) or {})
    if set(given) - set(_RETRY_DEFAULTS) or set(backoff) - set(_BACKOFF_DEFAULTS):
        return False
    retry, waits = {**_RETRY_DEFAULTS, **given}, {**_BACKOFF_DEFAULTS, **backoff}
    try:
        return (
            int(retry["max_retries"]),
            _seconds(retry["retry_timeout"]),
            _seconds(waits["init_backoff"]),
            _seconds(waits["max_backoff"]),
            float(waits["base"]),
        )
    except (TypeError, ValueError):
        return False


def _seconds(value: Any) -> float:
    if isinstance(value, datetime.timedelta):
        return value.total_seconds()
    return float(value)


def _fsspec(store: Any) -> tuple[Any, str] | None:
    fs = getattr(store.fs, "sync_fs", store.fs)
    kind = f"{type(fs).__module__}.{type(fs).__name__}"
    path = store.path
    if not isinstance(path, str):
        return None
    if kind == "s3fs.core.S3FileSystem":
        return _s3fs(fs, path)
    if kind == "fsspec.implementations.http.HTTPFileSystem":
        given = getattr(fs, "storage_options", None)
        if not isinstance(given, dict) or set(given) - _NEUTRAL:
            return None  # headers, auth, a session, encoding
        if not path.startswith(("http://", "https://")):
            return None
        options = [("allow_http", "true")] if path.startswith("http://") else []
        return _http(path.rstrip("/"), options), ""
    return None


#: s3fs's and fsspec's settings that change nothing of how an object is read.
_NEUTRAL = {
    "asynchronous",
    "loop",
    "skip_instance_cache",
    "use_listings_cache",
    "listings_expiry_time",
}
#: s3fs's settings the runtime's client takes (as read by :func:`_s3fs`).
_S3FS = {"key", "secret", "token", "anon", "endpoint_url", "client_kwargs", "config_kwargs"}


def _s3fs(fs: Any, path: str) -> tuple[Any, str] | None:
    """s3fs's settings, where each has an object_store twin."""
    given = getattr(fs, "storage_options", None)
    if not isinstance(given, dict) or set(given) - _NEUTRAL - _S3FS:
        return None  # a session, a profile, versions, requester pays, extra request arguments
    client = dict(given.get("client_kwargs") or {})
    botocore = dict(given.get("config_kwargs") or {})
    if set(client) - {"region_name", "endpoint_url"} or set(botocore) - _BOTOCORE:
        return None
    retries = dict(botocore.get("retries") or {})
    if set(retries) - {"max_attempts", "total_max_attempts", "mode"}:
        return None
    bucket, _, prefix = path.partition("/")
    if not bucket:
        return None
    settings = {"bucket": bucket}
    if fs.anon:
        settings["skip_signature"] = "true"
    elif fs.key and fs.secret:
        settings.update(access_key_id=fs.key, secret_access_key=fs.secret)
        if fs.token:
            settings["token"] = fs.token
    else:
        return None  # botocore's credential chain (a profile, an instance role): s3fs's reads
    endpoint = client.get("endpoint_url") or given.get("endpoint_url")
    if endpoint:
        settings["endpoint"] = str(endpoint)
        if str(endpoint).startswith("http://"):
            settings["allow_http"] = "true"
    region = client.get("region_name") or os.environ.get("AWS_REGION")
    region = region or os.environ.get("AWS_DEFAULT_REGION")
    if region:
        settings["region"] = str(region)
    elif not endpoint:
        return None  # AWS itself, the bucket's region unknown: s3fs finds it
    for setting, name in (("read_timeout", "timeout"), ("connect_timeout", "connect_timeout")):
        if setting in botocore:
            settings[name] = f"{float(botocore[setting])}s"
    retry = None
    attempts = retries.get("total_max_attempts", retries.get("max_attempts"))
    if attempts is not None:  # botocore counts the first request among its attempts
        retry = (max(0, int(attempts) - 1), *_RETRY_TAIL)
    return _s3(sorted(settings.items()), retry=retry), _joined(prefix)


#: botocore's settings with an object_store twin (``max_pool_connections``: none needed).
_BOTOCORE = {"max_pool_connections", "retries", "read_timeout", "connect_timeout"}
#: The rest of a retry setting made from botocore's attempts: object_store's defaults.
_RETRY_TAIL = (180.0, 0.1, 15.0, 2.0)


def _options(options: Any) -> dict[str, str] | None:
    """``options`` (obstore's settings) as strings, as object_store parses them; ``None`` for
    a value of another kind."""
    found: dict[str, str] = {}
    for name, value in dict(options or {}).items():
        if isinstance(value, bool):
            found[str(name)] = "true" if value else "false"
        elif isinstance(value, (str, int, float)):
            found[str(name)] = str(value)
        elif isinstance(value, datetime.timedelta):
            found[str(name)] = f"{value.total_seconds()}s"
        else:
            return None
    return found


def _joined(prefix: str) -> str:
    """A store's prefix as it comes before a key."""
    prefix = prefix.strip("/")
    return f"{prefix}/" if prefix else ""

"""Object storage on 127.0.0.1, for the store tests and ``benchmarks.stores``.

- :class:`S3Server`: moto's S3 server (an implementation we did not write), one bucket made.
- :class:`HttpServer`: plain HTTP over a directory: ``GET`` and ``HEAD`` with byte ranges
  (``Range: bytes=a-b`` and suffixes), as a static file server or a CDN answers, optionally
  after a fixed latency.
- :class:`Proxy`: a reverse proxy in front of either that waits a fixed time before passing each
  request on (the latency of a remote object store), logs every request (method, path, byte
  range) and can be told to fail chosen ones (a server error, a body cut short, a hang).

Each runs in a thread of its own with its own event loop (``start``/``stop``, or a ``with``
block), so tests can read the proxy's log directly. ``python -m zarr_codecs_bench.loopback s3``
(or ``http DIR [--latency S]``, or ``proxy URL [--latency S]``) runs one in a process of its
own (what the benchmark does, so that the servers' Python never competes with the timed process
for its interpreter lock) and prints its URL on the first line of its output.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import hashlib
import logging
import os
import re
import signal
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Self

__all__ = [
    "Fault",
    "HttpServer",
    "Proxy",
    "Request",
    "S3Server",
    "obstore_s3",
    "serve",
    "spawn",
]

#: The bucket :class:`S3Server` makes.
BUCKET = "zarr"
#: The credentials any client of :class:`S3Server` may use (moto checks none).
CREDENTIALS = {"aws_access_key_id": "testing", "aws_secret_access_key": "testing"}
REGION = "us-east-1"


@dataclass(frozen=True)
class Request:
    """One request the proxy passed on: its method, its path (without the query) and its
    ``Range`` header (``None`` without one)."""

    method: str
    path: str
    range: str | None


#: What the proxy does instead of passing a request on: answer 500, send half the body under
#: the whole body's length and close the connection, or never answer.
Fault = Literal["error", "truncate", "hang"]


class _Threaded:
    """A server run by an event loop in a thread of its own."""

    def __init__(self) -> None:
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._runner: Any = None
        self.port = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def _app(self) -> Any:  # the aiohttp application
        raise NotImplementedError

    def start(self) -> Self:
        from aiohttp import web

        started = threading.Event()
        failure: list[BaseException] = []

        async def serve() -> None:
            # Requests still open (a hanging fault) are cut off at once when the server stops.
            self._runner = web.AppRunner(await self._app(), access_log=None, shutdown_timeout=0.1)
            await self._runner.setup()
            site = web.TCPSite(self._runner, "127.0.0.1", 0, backlog=1024)
            await site.start()
            self.port = self._runner.addresses[0][1]

        def run() -> None:
            loop = asyncio.new_event_loop()
            asyncio.set_event_loop(loop)
            self._loop = loop
            try:
                loop.run_until_complete(serve())
            except BaseException as error:  # reported by start()
                failure.append(error)
                started.set()
                return
            started.set()
            loop.run_forever()
            loop.run_until_complete(self._runner.cleanup())
            left = asyncio.all_tasks(loop)  # requests still held (a hanging fault)
            for task in left:
                task.cancel()
            loop.run_until_complete(asyncio.gather(*left, return_exceptions=True))
            loop.close()

        self._thread = threading.Thread(target=run, name=type(self).__name__, daemon=True)
        self._thread.start()
        started.wait()
        if failure:
            raise failure[0]
        return self

    def stop(self) -> None:
        if self._loop is not None and self._thread is not None:
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(timeout=10)
        self._loop = self._thread = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


_RANGE = re.compile(r"bytes=(\d*)-(\d*)$")


class HttpServer(_Threaded):
    """``GET`` and ``HEAD`` of the files under ``root``, with single byte ranges (RFC 9110:
    ``a-b``, ``a-`` and ``-n``; 206 with ``Content-Range``, 416 past the end), a strong
    ``ETag`` and ``If-Match`` (412 where it names another); 404 for anything else, as a static
    web server answers. Each request is answered after ``latency`` seconds (a remote server's
    round trip, without a proxy's own costs)."""

    def __init__(self, root: str | os.PathLike[str], latency: float = 0.0) -> None:
        super().__init__()
        self.root = Path(root).resolve()
        self.latency = latency

    def _file(self, path: str) -> Path | None:
        target = (self.root / path.lstrip("/")).resolve()
        if not target.is_relative_to(self.root) or not target.is_file():
            return None
        return target

    async def _app(self) -> Any:
        from aiohttp import web

        async def handle(request: web.Request) -> web.StreamResponse:
            if self.latency:
                await asyncio.sleep(self.latency)
            target = self._file(request.path)
            if target is None:
                return web.Response(status=404)
            data = await asyncio.to_thread(target.read_bytes)
            size = len(data)
            etag = f'"{hashlib.sha256(data).hexdigest()[:32]}"'
            wanted = request.headers.get("If-Match")
            named = [] if wanted is None else [tag.strip() for tag in wanted.split(",")]
            if wanted is not None and "*" not in named and etag not in named:
                return web.Response(status=412)
            headers = {"Accept-Ranges": "bytes", "ETag": etag}
            status = 200
            spec = request.headers.get("Range")
            if spec is not None:
                match = _RANGE.match(spec.strip())
                if match is None or match.groups() == ("", ""):
                    return web.Response(status=416, headers={"Content-Range": f"bytes */{size}"})
                first, last = match.groups()
                if first == "":  # the last n bytes
                    start, stop = max(0, size - int(last)), size
                else:
                    start = int(first)
                    stop = size if last == "" else min(size, int(last) + 1)
                if start >= size or start >= stop:
                    return web.Response(status=416, headers={"Content-Range": f"bytes */{size}"})
                headers["Content-Range"] = f"bytes {start}-{stop - 1}/{size}"
                data, status = data[start:stop], 206
            if request.method == "HEAD":
                headers["Content-Length"] = str(len(data))
                return web.Response(status=status, headers=headers)
            return web.Response(body=data, status=status, headers=headers)

        app = web.Application()
        app.router.add_route("GET", "/{tail:.*}", handle)
        app.router.add_route("HEAD", "/{tail:.*}", handle)
        return app


class Proxy(_Threaded):
    """A reverse proxy to ``upstream`` that waits ``latency`` seconds before passing each request
    on, logs each (:attr:`requests`), and answers with a :data:`Fault` where ``fault`` (given
    each request) says so. Request and response bodies pass whole; the ``Host`` header is kept,
    so signed S3 requests stay valid."""

    def __init__(
        self,
        upstream: str,
        latency: float = 0.0,
        fault: Callable[[Request], Fault | None] | None = None,
    ) -> None:
        super().__init__()
        self.upstream = upstream.rstrip("/")
        self.latency = latency
        self.fault = fault
        self.requests: list[Request] = []
        self.in_flight = 0
        #: The most requests in flight at once since :meth:`clear`.
        self.peak = 0
        self._lock = threading.Lock()

    def clear(self) -> None:
        """Forget the requests logged so far, and the peak of requests in flight."""
        with self._lock:
            self.requests.clear()
            self.peak = self.in_flight

    def log(self) -> list[Request]:
        """The requests logged so far, in order of arrival."""
        with self._lock:
            return list(self.requests)

    async def _app(self) -> Any:
        import aiohttp
        from aiohttp import web

        session: aiohttp.ClientSession | None = None
        hop_by_hop = {"connection", "keep-alive", "transfer-encoding", "content-length"}

        async def handle(request: web.Request) -> web.StreamResponse:
            nonlocal session
            if session is None:
                connector = aiohttp.TCPConnector(limit=0, force_close=False)
                session = aiohttp.ClientSession(connector=connector, auto_decompress=False)
            seen = Request(request.method, request.path, request.headers.get("Range"))
            with self._lock:
                self.requests.append(seen)
                self.in_flight += 1
                self.peak = max(self.peak, self.in_flight)
            try:
                return await forward(session, request, seen)
            finally:
                with self._lock:
                    self.in_flight -= 1

        async def forward(
            session: aiohttp.ClientSession, request: web.Request, seen: Request
        ) -> web.StreamResponse:
            body = await request.read()
            if self.latency:
                await asyncio.sleep(self.latency)
            fault = self.fault(seen) if self.fault is not None else None
            if fault == "error":
                return web.Response(status=500, text="injected server error")
            if fault == "hang":  # until the client gives up (or a minute passes)
                await asyncio.sleep(60)
            headers = {k: v for k, v in request.headers.items() if k.lower() not in hop_by_hop}
            async with session.request(
                request.method,
                self.upstream + request.path_qs,
                headers=headers,
                data=body if body else None,
                allow_redirects=False,
            ) as answer:
                data = await answer.read()
                out = {k: v for k, v in answer.headers.items() if k.lower() not in hop_by_hop}
            if request.method == "HEAD" and "Content-Length" in answer.headers:
                out["Content-Length"] = answer.headers["Content-Length"]  # the object's size
            if fault == "truncate" and len(data) > 1:
                response = web.StreamResponse(status=answer.status, headers=out)
                response.content_length = len(data)
                await response.prepare(request)
                await response.write(data[: len(data) // 2])
                request.transport.close()  # type: ignore[union-attr]
                return response
            return web.Response(body=data, status=answer.status, headers=out)

        async def close_session(app: web.Application) -> None:
            if session is not None:
                await session.close()

        app = web.Application(client_max_size=1 << 31)
        app.router.add_route("*", "/{tail:.*}", handle)
        app.on_cleanup.append(close_session)
        return app


class S3Server:
    """moto's S3 server on 127.0.0.1 with the bucket :data:`BUCKET` made (in memory)."""

    def __init__(self) -> None:
        self._server: Any = None
        self.port = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> Self:
        from moto.server import ThreadedMotoServer

        logging.getLogger("werkzeug").setLevel(logging.WARNING)  # a line per request otherwise
        with contextlib.redirect_stdout(sys.stderr):  # moto prints a line on start
            self._server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
            self._server.start()
        self.port = self._server.get_host_and_port()[1]
        create_bucket(self.url)
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.stop()
        self._server = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def create_bucket(endpoint: str, bucket: str = BUCKET) -> None:
    """Make ``bucket`` on the S3 server at ``endpoint`` (with boto3, moto's own client)."""
    import boto3  # type: ignore[import-untyped]

    client = boto3.client("s3", endpoint_url=endpoint, region_name=REGION, **CREDENTIALS)
    with contextlib.suppress(client.exceptions.BucketAlreadyOwnedByYou):
        client.create_bucket(Bucket=bucket)


@contextlib.contextmanager
def spawn(*args: str) -> Iterator[str]:
    """``python -m zarr_codecs_bench.loopback ARGS`` in a process of its own: its URL, for the
    ``with`` block; the process is ended after it."""
    with serve([sys.executable, "-m", __name__, *args]) as url:
        yield url


@contextlib.contextmanager
def serve(command: list[str]) -> Iterator[str]:
    """A server ``command`` that prints its URL on its first line: that URL, for the ``with``
    block; the process is ended after it."""
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True)
    try:
        assert process.stdout is not None
        url = process.stdout.readline().strip()
        if not url.startswith("http://"):
            raise RuntimeError(f"{command} did not start: {url!r}")
        yield url
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def obstore_s3(url: str, prefix: str, **options: Any) -> Any:
    """obstore's ``S3Store`` of :data:`BUCKET` at the server ``url`` under ``prefix``, with the
    test credentials; ``options`` go to ``S3Store`` (``client_options`` gets ``allow_http``)."""
    from obstore.store import S3Store

    client: Any = {"allow_http": True, **options.pop("client_options", {})}
    return S3Store(
        BUCKET,
        prefix=prefix,
        endpoint=url,
        region=REGION,
        aws_access_key_id=CREDENTIALS["aws_access_key_id"],
        aws_secret_access_key=CREDENTIALS["aws_secret_access_key"],
        client_options=client,
        **options,
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    kinds = parser.add_subparsers(dest="kind", required=True)
    kinds.add_parser("s3", help="moto's S3 server with the bucket 'zarr'")
    http = kinds.add_parser("http", help="GET and HEAD of a directory's files")
    http.add_argument("root")
    http.add_argument("--latency", type=float, default=0.0, help="seconds per request")
    proxy = kinds.add_parser("proxy", help="a reverse proxy adding latency")
    proxy.add_argument("upstream")
    proxy.add_argument("--latency", type=float, default=0.0, help="seconds per request")
    args = parser.parse_args(argv)
    server: S3Server | _Threaded
    if args.kind == "s3":
        server = S3Server()
    elif args.kind == "http":
        server = HttpServer(args.root, args.latency)
    else:
        server = Proxy(args.upstream, args.latency)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    with server:
        print(server.url, flush=True)
        while not stop.wait(1.0):
            pass


if __name__ == "__main__":
    main()

//! `--http`: the files under ROOT over plain HTTP, as `zarr_codecs_bench.loopback`'s aiohttp
//! server serves them (GET and HEAD, a strong ETag and `If-Match` on it (412 otherwise),
//! single byte ranges `a-b`, `a-` and `-n` answered 206 with `Content-Range`, 416 past the
//! end, 404 for anything else), without Python's CPU per request on the benchmark's cores.

use std::io::{Read, Seek, SeekFrom};
use std::path::{Component, Path, PathBuf};
use std::time::UNIX_EPOCH;

use bytes::Bytes;
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::header::{
    HeaderValue, ACCEPT_RANGES, CONTENT_LENGTH, CONTENT_RANGE, ETAG, IF_MATCH, RANGE,
};
use hyper::{Method, Request, Response, StatusCode};

/// A path of the request as a file under `root`, or `None` (a `..`, an absolute part).
fn file_of(root: &Path, path: &str) -> Option<PathBuf> {
    let relative = Path::new(path.trim_start_matches('/'));
    let plain = relative
        .components()
        .all(|part| matches!(part, Component::Normal(_)));
    (plain && !path.is_empty()).then(|| root.join(relative))
}

/// A single byte range of RFC 9110 within `size` bytes: `Ok(None)` for none asked, `Err(())`
/// for one that cannot be served (416).
fn byte_range(header: Option<&HeaderValue>, size: u64) -> Result<Option<(u64, u64)>, ()> {
    let Some(header) = header else {
        return Ok(None);
    };
    let spec = header
        .to_str()
        .map_err(|_| ())?
        .strip_prefix("bytes=")
        .ok_or(())?;
    let (first, last) = spec.split_once('-').ok_or(())?;
    let (start, stop) = if first.is_empty() {
        let length: u64 = last.parse().map_err(|_| ())?;
        (size.saturating_sub(length), size)
    } else {
        let start: u64 = first.parse().map_err(|_| ())?;
        let stop = if last.is_empty() {
            size
        } else {
            last.parse::<u64>().map_err(|_| ())? + 1
        };
        (start, stop.min(size))
    };
    if start >= stop {
        return Err(());
    }
    Ok(Some((start, stop)))
}

/// `length` bytes of `path` from `start`, in one read.
pub fn read_part(path: &Path, start: u64, length: usize) -> std::io::Result<Vec<u8>> {
    let mut file = std::fs::File::open(path)?;
    file.seek(SeekFrom::Start(start))?;
    let mut bytes = vec![0; length];
    file.read_exact(&mut bytes)?;
    Ok(bytes)
}

fn status(code: StatusCode) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(Bytes::new()));
    *response.status_mut() = code;
    response
}

/// The answer to one request.
pub async fn answer(root: &Path, request: Request<Incoming>) -> Response<Full<Bytes>> {
    let head = request.method() == Method::HEAD;
    if !head && request.method() != Method::GET {
        return status(StatusCode::METHOD_NOT_ALLOWED);
    }
    let Some(path) = file_of(root, request.uri().path()) else {
        return status(StatusCode::NOT_FOUND);
    };
    let range = request.headers().get(RANGE).cloned();
    let wanted = request.headers().get(IF_MATCH).cloned();
    let read = tokio::task::spawn_blocking(move || -> std::io::Result<_> {
        let metadata = std::fs::metadata(&path)?;
        if !metadata.is_file() {
            return Err(std::io::ErrorKind::NotFound.into());
        }
        let size = metadata.len();
        let modified = metadata
            .modified()?
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default();
        let range = byte_range(range.as_ref(), size);
        let bytes = match (head, range) {
            (false, Ok(wanted)) => {
                let (start, stop) = wanted.unwrap_or((0, size));
                let length = usize::try_from(stop - start).map_err(std::io::Error::other)?;
                Some(Bytes::from(read_part(&path, start, length)?))
            }
            _ => None,
        };
        Ok((size, modified.as_nanos(), range, bytes))
    });
    let Ok(Ok((size, modified, range, bytes))) = read.await else {
        return status(StatusCode::NOT_FOUND);
    };
    let etag = format!("\"{size:x}-{modified:x}\"");
    if let Some(wanted) = wanted.as_ref().and_then(|wanted| wanted.to_str().ok()) {
        let named: Vec<&str> = wanted.split(',').map(str::trim).collect();
        if !named.contains(&"*") && !named.contains(&etag.as_str()) {
            return status(StatusCode::PRECONDITION_FAILED);
        }
    }
    let Ok(range) = range else {
        let mut response = status(StatusCode::RANGE_NOT_SATISFIABLE);
        if let Ok(value) = HeaderValue::from_str(&format!("bytes */{size}")) {
            response.headers_mut().insert(CONTENT_RANGE, value);
        }
        return response;
    };
    let (start, stop) = range.unwrap_or((0, size));
    let mut response = Response::new(Full::new(bytes.unwrap_or_default()));
    let headers = response.headers_mut();
    headers.insert(ACCEPT_RANGES, HeaderValue::from_static("bytes"));
    headers.insert(CONTENT_LENGTH, HeaderValue::from(stop - start));
    if let Ok(value) = HeaderValue::from_str(&etag) {
        headers.insert(ETAG, value);
    }
    if range.is_some() {
        if let Ok(value) = HeaderValue::from_str(&format!("bytes {start}-{}/{size}", stop - 1)) {
            headers.insert(CONTENT_RANGE, value);
        }
        *response.status_mut() = StatusCode::PARTIAL_CONTENT;
    }
    response
}

//! An S3 server for `python -m benchmarks.stores`: s3s-fs's file system (the buckets are the
//! directories under ROOT) served by s3s on 127.0.0.1, each request answered after a fixed
//! latency, the round trip of a remote object store.
//!
//! s3s-fs's own binary leaves Nagle's algorithm on, so a response sent in two small writes waits
//! for the client's delayed ACK (stalls of about 40 ms on loopback); here every connection has
//! TCP_NODELAY. Usage: `zarr-codecs-bench-s3-server [--http] ROOT [LATENCY_MS]`; it prints its URL
//! on the first line and serves until killed. Credentials: `testing` / `testing`. With `--http`,
//! the files under ROOT over plain HTTP instead (files.rs).
//!
//! GETs: s3s-fs streams an object in 4 KiB reads through tokio's file API, each a hop to its
//! blocking pool (64 hops for a 256 KiB chunk, 4096 for 16 MiB), which on the benchmark's two
//! cores costs more CPU than the clients it serves. A remote S3 spends none of the client's CPU,
//! so here each GET's bytes are read in one blocking call and sent as one body (s3s-fs still
//! answers everything else: headers, ETag, ranges, errors).

mod files;
mod whole_reads;

use std::future::Future;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use hyper::body::Incoming;
use hyper::service::Service;
use hyper::{Request, Response};
use hyper_util::rt::{TokioExecutor, TokioIo};
use hyper_util::server::conn::auto::Builder;
use s3s::auth::SimpleAuth;
use s3s::service::S3ServiceBuilder;
use tokio::net::TcpListener;

type Error = Box<dyn std::error::Error + Send + Sync>;

const USAGE: &str = "usage: zarr-codecs-bench-s3-server [--http] ROOT [LATENCY_MS]";

#[tokio::main]
async fn main() -> Result<(), Error> {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let http = args.first().is_some_and(|first| first == "--http");
    if http {
        args.remove(0);
    }
    let root = args.first().ok_or(USAGE)?.clone();
    let latency_ms: f64 = args
        .get(1)
        .map(|text| text.parse())
        .transpose()?
        .unwrap_or(0.0);
    let latency = Duration::from_secs_f64(latency_ms.max(0.0) / 1000.0);

    let listener = TcpListener::bind("127.0.0.1:0").await?;
    if http {
        let root = Arc::new(Path::new(&root).canonicalize()?);
        println!("http://{}", listener.local_addr()?);
        return serve(listener, latency, move |request| {
            let root = Arc::clone(&root);
            async move { Ok::<_, Error>(files::answer(&root, request).await) }
        })
        .await;
    }
    let files = s3s_fs::FileSystem::new(&root).map_err(|error| format!("{root}: {error:?}"))?;
    let mut builder = S3ServiceBuilder::new(whole_reads::WholeReads::new(files, &root)?);
    builder.set_auth(SimpleAuth::from_single("testing", "testing"));
    let service = builder.build();
    println!("http://{}", listener.local_addr()?);
    serve(listener, latency, move |request| {
        let service = service.clone();
        async move { Service::call(&service, request).await }
    })
    .await
}

/// Every connection of `listener` (TCP_NODELAY set) served by `answer`, each request after
/// `latency`, until the process is killed.
async fn serve<F, Fut, B, E>(
    listener: TcpListener,
    latency: Duration,
    answer: F,
) -> Result<(), Error>
where
    F: Fn(Request<Incoming>) -> Fut + Clone + Send + Sync + 'static,
    Fut: Future<Output = Result<Response<B>, E>> + Send + 'static,
    B: hyper::body::Body + Send + 'static,
    B::Data: Send,
    B::Error: Into<Error>,
    E: Into<Error>,
{
    let connections = Builder::new(TokioExecutor::new());
    loop {
        let (socket, _) = listener.accept().await?;
        socket.set_nodelay(true)?;
        let answer = answer.clone();
        let delayed = hyper::service::service_fn(move |request: Request<Incoming>| {
            let answer = answer.clone();
            async move {
                tokio::time::sleep(latency).await;
                answer(request).await
            }
        });
        let connection = connections
            .serve_connection(TokioIo::new(socket), delayed)
            .into_owned();
        tokio::spawn(async move {
            // A connection the client drops ends here; the server goes on.
            let _ = connection.await;
        });
    }
}

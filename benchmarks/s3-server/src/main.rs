//! An S3 server for `python -m benchmarks.stores`: s3s-fs's file system (the buckets are the
//! directories under ROOT) served by s3s on 127.0.0.1, each request answered after a fixed
//! latency, the round trip of a remote object store.
//!
//! s3s-fs's own binary leaves Nagle's algorithm on, so a response sent in two small writes waits
//! for the client's delayed ACK (stalls of about 40 ms on loopback); here every connection has
//! TCP_NODELAY. Usage: `zarr-codecs-bench-s3-server ROOT [LATENCY_MS]`; it prints its URL on the
//! first line and serves until killed. Credentials: `testing` / `testing`.

use std::time::Duration;

use hyper::body::Incoming;
use hyper::service::Service;
use hyper::Request;
use hyper_util::rt::{TokioExecutor, TokioIo};
use hyper_util::server::conn::auto::Builder;
use s3s::auth::SimpleAuth;
use s3s::service::S3ServiceBuilder;
use tokio::net::TcpListener;

type Error = Box<dyn std::error::Error + Send + Sync>;

#[tokio::main]
async fn main() -> Result<(), Error> {
    let mut args = std::env::args().skip(1);
    let root = args.next().ok_or("usage: zarr-codecs-bench-s3-server ROOT [LATENCY_MS]")?;
    let latency_ms: f64 = args.next().map(|text| text.parse()).transpose()?.unwrap_or(0.0);
    let latency = Duration::from_secs_f64(latency_ms.max(0.0) / 1000.0);

    let files = s3s_fs::FileSystem::new(&root).map_err(|error| format!("{root}: {error:?}"))?;
    let mut builder = S3ServiceBuilder::new(files);
    builder.set_auth(SimpleAuth::from_single("testing", "testing"));
    let service = builder.build();

    let listener = TcpListener::bind("127.0.0.1:0").await?;
    println!("http://{}", listener.local_addr()?);
    let connections = Builder::new(TokioExecutor::new());
    loop {
        let (socket, _) = listener.accept().await?;
        socket.set_nodelay(true)?;
        let service = service.clone();
        let delayed = hyper::service::service_fn(move |request: Request<Incoming>| {
            let service = service.clone();
            async move {
                tokio::time::sleep(latency).await;
                Service::call(&service, request).await
            }
        });
        let connection = connections.serve_connection(TokioIo::new(socket), delayed).into_owned();
        tokio::spawn(async move {
            // A connection the client drops ends here; the server goes on.
            let _ = connection.await;
        });
    }
}

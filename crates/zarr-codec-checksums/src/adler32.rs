//! numcodecs' `adler32`: zlib's Adler-32, by `simd-adler32`.

use crate::located::{Located, Sum};

/// The codec's id in Zarr v2 metadata.
pub const ADLER32_ID: &str = "adler32";
/// The codec's name in Zarr v3 metadata (zarr-python's numcodecs namespace).
pub const ADLER32_NAME: &str = "numcodecs.adler32";

/// The Adler-32 of `data`, as `zlib.adler32` computes it (starting from 1).
pub fn adler32(data: &[u8]) -> u32 {
    let mut hash = simd_adler32::Adler32::new();
    hash.write(data);
    hash.finish()
}

/// Adler-32, the marker of [`Adler32`].
#[derive(Debug)]
pub enum Adler32Sum {}

impl Sum for Adler32Sum {
    const ID: &'static str = ADLER32_ID;
    const NAME: &'static str = ADLER32_NAME;

    fn sum(data: &[u8]) -> u32 {
        adler32(data)
    }
}

/// numcodecs' `Adler32(location=None)`: the Adler-32 at the start (default) or the end.
pub type Adler32 = Located<Adler32Sum>;

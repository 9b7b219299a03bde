//! numcodecs' `crc32`: zlib's CRC-32 (ISO-HDLC), by `crc-fast`.

use crate::located::{Located, Sum};

/// The codec's id in Zarr v2 metadata.
pub const CRC32_ID: &str = "crc32";
/// The codec's name in Zarr v3 metadata (zarr-python's numcodecs namespace).
pub const CRC32_NAME: &str = "numcodecs.crc32";

/// The CRC-32 of `data`, as `zlib.crc32` computes it.
pub fn crc32(data: &[u8]) -> u32 {
    crc_fast::crc32_iso_hdlc(data)
}

/// CRC-32, the marker of [`Crc32`].
#[derive(Debug)]
pub enum Crc32Sum {}

impl Sum for Crc32Sum {
    const ID: &'static str = CRC32_ID;
    const NAME: &'static str = CRC32_NAME;

    fn sum(data: &[u8]) -> u32 {
        crc32(data)
    }
}

/// numcodecs' `CRC32(location=None)`: the CRC-32 at the start (default) or the end.
pub type Crc32 = Located<Crc32Sum>;

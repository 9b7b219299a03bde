//! The Zarr `blosc` codec on c-blosc 1.x: a bytes-to-bytes codec.
//!
//! Use it from Rust alone, no Python involved: `cargo add zarr-codec-blosc` (the examples in
//! `examples/` run with `cargo run --example <name> -p zarr-codec-blosc`).
//!
//! - Spec (v3): <https://zarr-specs.readthedocs.io/en/latest/v3/codecs/blosc/>; v2 metadata is
//!   numcodecs' `{"id": "blosc", "cname", "clevel", "shuffle": 0|1|2|-1, "blocksize"}`.
//! - Writes the c-blosc 1.x frame format, which numcodecs and every Zarr reader decode (frames
//!   from c-blosc2's own format are refused with an error that says so).
//! - Every frame is validated ([`frame_info`]) before any allocation or call into C: a lying
//!   header is a [`zarr_codec_shapes::CodecError`], never an over-read or a huge allocation.
//! - Only c-blosc's context functions are used: no global state, safe from many threads and
//!   after `fork`; the internal thread count is a per-call setting (default 1).
//! - With one thread, shuffles are this crate's AVX2 kernels (chosen at run time; c-blosc as
//!   `blosc-src` builds it has only SSE2 ones): encoding shuffles blocks here and lets c-blosc
//!   compress them, giving byte for byte the frame c-blosc would (`preshuffle`); decoding is
//!   a Rust frame decoder that calls the block decompressors directly (`decoder`).
//!
//! ```
//! use zarr_codec_blosc::{Blosc, Compressor, Shuffle};
//! use zarr_codec_shapes::{BytesToBytesCodec, ChunkSpec, DataType};
//!
//! let codec = Blosc::new(Compressor::Zstd, 5, Some(Shuffle::Shuffle), Some(4), 0)?;
//! let data: Vec<u8> = (0..10_000u32).flat_map(|i| (i / 3).to_le_bytes()).collect();
//! // The chunk the bytes come from (the traits' one call shape; the free functions need none).
//! let spec = ChunkSpec::with_default_fill_value(vec![data.len() / 4], DataType::UInt32)?;
//! let encoded = codec.encode(&data, &spec)?;
//! assert!(encoded.len() < data.len() / 4);
//! assert_eq!(codec.decode(&encoded, &spec)?, data);
//! # Ok::<(), zarr_codec_shapes::CodecError>(())
//! ```

mod decoder;
mod ffi;
mod header;
mod preshuffle;
mod shuffle;

use std::ffi::{CStr, c_int};
use std::mem::MaybeUninit;

use serde::{Deserialize, Serialize};
use zarr_codec_shapes::codec::as_uninit_mut;
use zarr_codec_shapes::json::{
    ZarrFormat, parse_v2_config, parse_v3_config, to_v2_json, to_v3_json,
};
use zarr_codec_shapes::{
    ChunkSpec, Codec, CodecError, CodecFromJson, RecommendedConcurrency, Result, UninitBytesCodec,
};

/// The block size c-blosc chooses when asked to (blocksize 0) is about this, for planning.
const AUTOMATIC_BLOCK: usize = 256 * 1024;

pub use ffi::version;
pub use header::{FrameInfo, HEADER_LEN, validate as frame_info};

/// The codec's name in Zarr v3 metadata and its id in Zarr v2 metadata.
pub const NAME: &str = "blosc";

/// The compressor c-blosc runs inside each block.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Compressor {
    /// c-blosc's own LZ77 codec.
    #[serde(rename = "blosclz")]
    BloscLz,
    /// LZ4.
    Lz4,
    /// LZ4 high-compression (LZ4's format).
    Lz4Hc,
    /// Snappy (only if c-blosc was built with it; this build is not).
    Snappy,
    /// zlib.
    Zlib,
    /// Zstandard.
    Zstd,
}

impl Compressor {
    /// The name used in metadata.
    pub fn name(self) -> &'static str {
        self.c_name().to_str().unwrap_or("?")
    }

    fn c_name(self) -> &'static CStr {
        match self {
            Self::BloscLz => c"blosclz",
            Self::Lz4 => c"lz4",
            Self::Lz4Hc => c"lz4hc",
            Self::Snappy => c"snappy",
            Self::Zlib => c"zlib",
            Self::Zstd => c"zstd",
        }
    }

    /// Whether this build of c-blosc includes the compressor.
    pub fn is_available(self) -> bool {
        ffi::has_compressor(self.c_name())
    }

    fn format_available(format: &str) -> bool {
        match format {
            "blosclz" => Self::BloscLz.is_available(),
            "lz4" => Self::Lz4.is_available(),
            "snappy" => Self::Snappy.is_available(),
            "zlib" => Self::Zlib.is_available(),
            "zstd" => Self::Zstd.is_available(),
            _ => false,
        }
    }
}

/// The shuffle filter applied before compression.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Shuffle {
    /// No shuffle.
    NoShuffle,
    /// Byte-wise shuffle over `typesize`-byte elements.
    Shuffle,
    /// Bit-wise shuffle.
    BitShuffle,
}

impl Shuffle {
    /// numcodecs' "auto" (-1): bit-shuffle single bytes, byte-shuffle wider elements.
    pub fn auto(typesize: usize) -> Self {
        if typesize == 1 {
            Self::BitShuffle
        } else {
            Self::Shuffle
        }
    }

    fn from_v2(code: i64) -> Result<Option<Self>> {
        match code {
            -1 => Ok(None),
            0 => Ok(Some(Self::NoShuffle)),
            1 => Ok(Some(Self::Shuffle)),
            2 => Ok(Some(Self::BitShuffle)),
            _ => Err(CodecError::configuration(format!(
                "blosc: shuffle must be -1, 0, 1 or 2 in v2 metadata, got {code}"
            ))),
        }
    }

    fn to_v2(shuffle: Option<Self>) -> i64 {
        match shuffle {
            None => -1,
            Some(Self::NoShuffle) => 0,
            Some(Self::Shuffle) => 1,
            Some(Self::BitShuffle) => 2,
        }
    }
}

/// Everything one compression call needs, resolved.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Params {
    /// Block compressor.
    pub cname: Compressor,
    /// Compression level 0-9.
    pub clevel: u8,
    /// Shuffle filter.
    pub shuffle: Shuffle,
    /// Element size for the shuffle, 1-255.
    pub typesize: usize,
    /// Block size in bytes, 0 for c-blosc's choice.
    pub blocksize: usize,
    /// c-blosc's internal threads for this call.
    pub threads: c_int,
}

impl Params {
    /// The element size c-blosc works with: elements over 255 bytes are single bytes to it.
    pub(crate) fn c_typesize(&self) -> usize {
        if self.typesize > header::MAX_TYPESIZE {
            1
        } else {
            self.typesize
        }
    }
}

/// The largest typesize metadata may state (`i32::MAX`, a C int in c-blosc and numcodecs).
const MAX_TYPESIZE_METADATA: usize = 0x7fff_ffff;

/// The blosc codec. `shuffle` and `typesize` may be left unset and resolved later from the
/// array's element size ([`Blosc::evolve`]), as zarr-python does; v3 metadata needs both.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Blosc {
    cname: Compressor,
    clevel: u8,
    shuffle: Option<Shuffle>,
    typesize: Option<usize>,
    blocksize: usize,
    /// c-blosc's internal threads for one chunk (not metadata: 1 unless a caller asks).
    threads: c_int,
}

impl Blosc {
    /// A codec; configuration errors for a level above 9, a typesize outside 1-255 or a
    /// compressor this build lacks.
    pub fn new(
        cname: Compressor,
        clevel: u8,
        shuffle: Option<Shuffle>,
        typesize: Option<usize>,
        blocksize: usize,
    ) -> Result<Self> {
        if clevel > 9 {
            return Err(CodecError::configuration(format!(
                "blosc: clevel must be 0 to 9, got {clevel}"
            )));
        }
        // Any positive typesize is valid metadata (zarr-python records the item size, e.g.
        // 300 for S300); c-blosc shuffles with typesize 1 above 255, as its frames then say.
        // c-blosc and numcodecs hold a typesize in a C int: larger ones are no metadata any
        // implementation can write (and c-blosc's arithmetic on them traps).
        if let Some(typesize) = typesize
            && !(1..=MAX_TYPESIZE_METADATA).contains(&typesize)
        {
            return Err(CodecError::configuration(format!(
                "blosc: typesize must be 1 to {MAX_TYPESIZE_METADATA}, got {typesize}"
            )));
        }
        if !cname.is_available() {
            return Err(CodecError::configuration(format!(
                "blosc: compressor {} is not included in this build of c-blosc (built with \
                 blosclz, lz4, lz4hc, zlib and zstd)",
                cname.name()
            )));
        }
        if i32::try_from(blocksize).is_err() {
            return Err(CodecError::configuration(format!(
                "blosc: blocksize {blocksize} is too large"
            )));
        }
        Ok(Self {
            cname,
            clevel,
            shuffle,
            typesize,
            blocksize,
            threads: 1,
        })
    }

    /// This codec with `threads` c-blosc threads working on each chunk's blocks (at least
    /// one): worth it for chunks of many blocks when chunks are not already decoded in
    /// parallel.
    #[must_use]
    pub fn with_threads(self, threads: c_int) -> Self {
        Self {
            threads: threads.max(1),
            ..self
        }
    }

    /// c-blosc's internal threads for one chunk.
    pub fn threads(&self) -> c_int {
        self.threads
    }

    /// The block compressor.
    pub fn cname(&self) -> Compressor {
        self.cname
    }

    /// The compression level.
    pub fn clevel(&self) -> u8 {
        self.clevel
    }

    /// The shuffle, if set.
    pub fn shuffle(&self) -> Option<Shuffle> {
        self.shuffle
    }

    /// The typesize, if set.
    pub fn typesize(&self) -> Option<usize> {
        self.typesize
    }

    /// The block size (0: automatic).
    pub fn blocksize(&self) -> usize {
        self.blocksize
    }

    /// This codec with unset `typesize` and `shuffle` resolved for elements of `item_size`
    /// bytes, as zarr-python's `evolve_from_array_spec` does: both follow the element size.
    #[must_use]
    pub fn evolve(&self, item_size: usize) -> Self {
        let item_size = item_size.max(1);
        Self {
            typesize: Some(self.typesize.unwrap_or(item_size)),
            shuffle: Some(self.shuffle.unwrap_or(Shuffle::auto(item_size))),
            ..*self
        }
    }

    /// The parameters for compressing data whose elements are `item_size` bytes (used for
    /// whatever is unset), with `threads` internal c-blosc threads.
    /// Unset values follow numcodecs' rule: typesize from the item size, and the automatic
    /// shuffle chosen by that typesize.
    pub fn params(&self, item_size: usize, threads: c_int) -> Params {
        let typesize = self.typesize.unwrap_or(item_size.max(1));
        Params {
            cname: self.cname,
            clevel: self.clevel,
            shuffle: self.shuffle.unwrap_or(Shuffle::auto(typesize)),
            typesize,
            blocksize: self.blocksize,
            threads: threads.max(1),
        }
    }
}

/// Compress `input` into one c-blosc 1.x frame.
pub fn encode(input: &[u8], params: &Params) -> Result<Vec<u8>> {
    let bound = max_encoded_size(input.len());
    let mut out = Vec::with_capacity(bound);
    let written = preshuffle::compress(input, &mut out.spare_capacity_mut()[..bound], params)?;
    // SAFETY: c-blosc wrote the first `written` bytes of the spare capacity.
    unsafe { out.set_len(written) };
    Ok(out)
}

/// Compress into `out`; [`CodecError::OutputLimit`] unless it holds [`max_encoded_size`].
pub fn encode_into(input: &[u8], params: &Params, out: &mut [u8]) -> Result<usize> {
    // SAFETY: viewing initialised bytes as `MaybeUninit` is sound as long as only initialised
    // values are written through the view, and c-blosc only writes bytes.
    let view = unsafe { as_uninit_mut(out) };
    encode_into_uninit(input, params, view)
}

/// [`encode_into`] for storage that need not be initialised (at least
/// [`max_encoded_size`] bytes); the first returned-count bytes are the frame.
pub fn encode_into_uninit(
    input: &[u8],
    params: &Params,
    out: &mut [MaybeUninit<u8>],
) -> Result<usize> {
    preshuffle::compress(input, out, params)
}

/// The largest frame `len` input bytes can become.
pub fn max_encoded_size(len: usize) -> usize {
    len + HEADER_LEN
}

/// Decode a frame, refusing to allocate more than `limit` bytes.
pub fn decode(input: &[u8], limit: Option<usize>) -> Result<Vec<u8>> {
    decode_threads(input, limit, 1)
}

/// [`decode`] with `threads` c-blosc threads working on the frame's blocks.
pub fn decode_threads(input: &[u8], limit: Option<usize>, threads: c_int) -> Result<Vec<u8>> {
    let info = frame_info(input)?;
    if let Some(limit) = limit.filter(|&l| info.nbytes > l) {
        return Err(CodecError::OutputLimit { limit });
    }
    let mut out = Vec::with_capacity(info.nbytes);
    decompress(
        input,
        &info,
        &mut out.spare_capacity_mut()[..info.nbytes],
        threads.max(1),
    )?;
    // SAFETY: the decoder wrote exactly `nbytes` bytes (or failed).
    unsafe { out.set_len(info.nbytes) };
    Ok(out)
}

/// Decode into the first `nbytes` of `out`; returns `nbytes`.
pub fn decode_into(input: &[u8], out: &mut [u8]) -> Result<usize> {
    decode_into_threads(input, out, 1)
}

/// [`decode_into`] with `threads` c-blosc threads working on the frame's blocks.
pub fn decode_into_threads(input: &[u8], out: &mut [u8], threads: c_int) -> Result<usize> {
    // SAFETY: as in `encode_into`: only initialised bytes are written through the view.
    let view = unsafe { as_uninit_mut(out) };
    decode_into_uninit(input, view, threads)
}

/// [`decode_into`] for storage that need not be initialised, with `threads` c-blosc threads.
pub fn decode_into_uninit(
    input: &[u8],
    out: &mut [MaybeUninit<u8>],
    threads: c_int,
) -> Result<usize> {
    let info = frame_info(input)?;
    let available = out.len();
    let target = out
        .get_mut(..info.nbytes)
        .ok_or(CodecError::OutputLimit { limit: available })?;
    decompress(input, &info, target, threads.max(1))?;
    Ok(info.nbytes)
}

/// A validated frame into `out` (exactly `nbytes`): by this crate's decoder, or by c-blosc
/// where that does not cover the frame (c-blosc threads, typesizes without a kernel).
fn decompress(
    input: &[u8],
    info: &FrameInfo,
    out: &mut [MaybeUninit<u8>],
    threads: c_int,
) -> Result<()> {
    if decoder::covers(info, threads) {
        decoder::decompress(input, info, out)
    } else {
        ffi::decompress(input, info, out, threads)
    }
}

/// The v3 configuration.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct BloscConfigV3 {
    cname: Compressor,
    clevel: u8,
    shuffle: Shuffle,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    typesize: Option<usize>,
    blocksize: usize,
}

/// The v2 configuration (numcodecs `Blosc`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct BloscConfigV2 {
    #[serde(default = "default_cname")]
    cname: Compressor,
    #[serde(default = "default_clevel")]
    clevel: u8,
    #[serde(default = "default_shuffle")]
    shuffle: i64,
    #[serde(default)]
    blocksize: usize,
}

// numcodecs' Blosc defaults: lz4, level 5, byte shuffle, automatic block size.
fn default_cname() -> Compressor {
    Compressor::Lz4
}
fn default_clevel() -> u8 {
    5
}
fn default_shuffle() -> i64 {
    1
}

impl Codec for Blosc {
    fn name(&self) -> &'static str {
        NAME
    }

    /// c-blosc compresses a chunk's blocks independently: one thread per block helps (blocks
    /// of `blocksize` bytes, or of about 256 KiB when c-blosc chooses).
    fn recommended_concurrency(&self, spec: &ChunkSpec) -> RecommendedConcurrency {
        let block = if self.blocksize == 0 {
            AUTOMATIC_BLOCK
        } else {
            self.blocksize
        };
        RecommendedConcurrency::new(1, spec.num_bytes().div_ceil(block))
    }

    fn to_json(&self, format: ZarrFormat) -> Result<serde_json::Value> {
        match format {
            ZarrFormat::V3 => {
                let shuffle = self.shuffle.ok_or_else(|| {
                    CodecError::configuration(
                        "blosc: shuffle is unresolved; evolve the codec for the array first",
                    )
                })?;
                if self.typesize.is_none() && shuffle != Shuffle::NoShuffle {
                    return Err(CodecError::configuration(
                        "blosc: typesize is unresolved; evolve the codec for the array first",
                    ));
                }
                let config = BloscConfigV3 {
                    cname: self.cname,
                    clevel: self.clevel,
                    shuffle,
                    typesize: self.typesize,
                    blocksize: self.blocksize,
                };
                to_v3_json(NAME, &config)
            }
            ZarrFormat::V2 => {
                let config = BloscConfigV2 {
                    cname: self.cname,
                    clevel: self.clevel,
                    shuffle: Shuffle::to_v2(self.shuffle),
                    blocksize: self.blocksize,
                };
                to_v2_json(NAME, &config)
            }
        }
    }
}

impl CodecFromJson for Blosc {
    fn from_json(json: &serde_json::Value, format: ZarrFormat) -> Result<Self> {
        match format {
            ZarrFormat::V3 => {
                let c: BloscConfigV3 = parse_v3_config(json, NAME)?;
                if c.typesize.is_none() && c.shuffle != Shuffle::NoShuffle {
                    return Err(CodecError::configuration(
                        "blosc: typesize is required unless shuffle is \"noshuffle\"",
                    ));
                }
                Self::new(c.cname, c.clevel, Some(c.shuffle), c.typesize, c.blocksize)
            }
            ZarrFormat::V2 => {
                let c: BloscConfigV2 = parse_v2_config(json, NAME)?;
                Self::new(
                    c.cname,
                    c.clevel,
                    Shuffle::from_v2(c.shuffle)?,
                    None,
                    c.blocksize,
                )
            }
        }
    }
}

/// Unset `typesize` and `shuffle` act as for one-byte elements here; evolve the codec for the
/// array (or resolve them from the data, as numcodecs does) before encoding.
// SAFETY: c-blosc and the Rust frame decoder write only bytes into the `MaybeUninit` memory
// they are given.
unsafe impl UninitBytesCodec for Blosc {
    fn encode_bytes(&self, input: &[u8]) -> Result<Vec<u8>> {
        encode(input, &self.params(1, self.threads))
    }

    fn decode_bytes(&self, input: &[u8], limit: Option<usize>) -> Result<Vec<u8>> {
        decode_threads(input, limit, self.threads)
    }

    fn encode_bytes_uninit(&self, input: &[u8], out: &mut [MaybeUninit<u8>]) -> Result<usize> {
        encode_into_uninit(input, &self.params(1, self.threads), out)
    }

    fn decode_bytes_uninit(&self, input: &[u8], out: &mut [MaybeUninit<u8>]) -> Result<usize> {
        decode_into_uninit(input, out, self.threads)
    }

    fn max_encoded_len(&self, decoded_len: usize) -> Option<usize> {
        Some(max_encoded_size(decoded_len))
    }

    /// The decoded size the validated frame header states.
    fn decoded_len_hint(&self, input: &[u8]) -> Result<Option<usize>> {
        frame_info(input).map(|info| Some(info.nbytes))
    }
}

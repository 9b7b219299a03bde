//! numcodecs' `pcodec` codec: an array of numbers as one Pcodec (pco) standalone file, byte
//! for byte as numcodecs 0.17 writes it with the `pcodec` 1.1 Python package.
//!
//! Use it from Rust alone, no Python involved: `cargo add zarr-codec-pcodec`.
//!
//! - Zarr v2: `{"id": "pcodec", "level": 8, "mode_spec": "auto", "delta_spec": "auto",
//!   "paging_spec": "equal_pages_up_to", "delta_encoding_order": null,
//!   "equal_pages_up_to": 262144}`; Zarr v3: zarr-python's array-to-bytes codec
//!   `{"name": "numcodecs.pcodec", "configuration": {...}}` with the same keys.
//! - Data types: `uint16`, `uint32`, `uint64`, `int16`, `int32`, `int64`, `float16`,
//!   `float32`, `float64`, in this machine's byte order.
//! - Engine: pco 1.1.0 (pure Rust), the release the `pcodec` 1.1 package wraps: the same
//!   configuration gives the same bytes.
//! - The configuration is checked when encoding, as numcodecs checks it: an array stored with
//!   a configuration numcodecs cannot encode with still decodes (decoding needs none).
//!   Decoding is bounded by the chunk's size: a file of another number type, or of more or
//!   fewer numbers, is [`CodecError::Corrupt`].
//!
//! ```
//! use zarr_codec_pcodec::PCodec;
//! use zarr_codec_shapes::{ArrayToBytesCodec, ChunkSpec, DataType};
//!
//! let spec = ChunkSpec::with_default_fill_value(vec![1000], DataType::Int32)?;
//! let values: Vec<u8> = (0..1000i32).flat_map(|v| (v * 3).to_ne_bytes()).collect();
//! let codec = PCodec::default();
//! let encoded = codec.encode(&values, &spec)?;
//! assert!(encoded.len() < values.len() / 10);
//! assert_eq!(codec.decode(&encoded, &spec)?, values);
//! # Ok::<(), zarr_codec_shapes::CodecError>(())
//! ```

use pco::data_types::{Number, NumberType};
use pco::errors::PcoError;
use pco::standalone::{
    DecompressorItem, FileDecompressor, simple_compress, simple_decompress_into,
};
use pco::{ChunkConfig, DeltaSpec, ModeSpec, PagingSpec};
use serde::{Deserialize, Serialize};
use std::mem::MaybeUninit;
use zarr_codec_shapes::json::{
    ZarrFormat, parse_v2_config, parse_v3_config, to_v2_json, to_v3_json,
};

use zarr_codec_shapes::codec::copy_prefix_uninit;
use zarr_codec_shapes::{
    ArrayToBytesCodec, ChunkSpec, Codec, CodecError, CodecFromJson, DataType, Result,
    UninitBytesCodec,
};

/// The codec's id in Zarr v2 metadata.
pub const PCODEC_ID: &str = "pcodec";
/// The codec's name in Zarr v3 metadata (zarr-python's numcodecs namespace).
pub const PCODEC_NAME: &str = "numcodecs.pcodec";
/// numcodecs' default page size (`DEFAULT_MAX_PAGE_N`).
pub const DEFAULT_PAGE_N: u64 = 262_144;

/// numcodecs' `PCodec(level=8, mode_spec="auto", delta_spec="auto",
/// paging_spec="equal_pages_up_to", delta_encoding_order=None, equal_pages_up_to=262144)`,
/// kept as configured (checked when encoding).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PCodec {
    /// Compression level, 0 to 12.
    #[serde(default = "default_level")]
    pub level: i64,
    /// `"auto"` or `"classic"`.
    #[serde(default = "auto")]
    pub mode_spec: String,
    /// `"auto"`, `"no_op"`, `"none"` (numcodecs' older name of `no_op`), `"try_consecutive"`
    /// or `"try_lookback"`.
    #[serde(default = "auto")]
    pub delta_spec: String,
    /// `"equal_pages_up_to"`.
    #[serde(default = "equal_pages")]
    pub paging_spec: String,
    /// The delta order (0 to 7) with `try_consecutive` (or `auto`, numcodecs' older form).
    #[serde(default)]
    pub delta_encoding_order: Option<i64>,
    /// The most numbers in one page.
    #[serde(default = "default_page_n")]
    pub equal_pages_up_to: i64,
}

fn default_level() -> i64 {
    8
}
fn auto() -> String {
    "auto".into()
}
fn equal_pages() -> String {
    "equal_pages_up_to".into()
}
#[allow(clippy::cast_possible_wrap)] // a small constant
fn default_page_n() -> i64 {
    DEFAULT_PAGE_N as i64
}

impl Default for PCodec {
    fn default() -> Self {
        Self {
            level: default_level(),
            mode_spec: auto(),
            delta_spec: auto(),
            paging_spec: equal_pages(),
            delta_encoding_order: None,
            equal_pages_up_to: default_page_n(),
        }
    }
}

fn config_error(message: impl std::fmt::Display) -> CodecError {
    CodecError::configuration(format!("pcodec: {message}"))
}

fn pco_error(error: &PcoError) -> CodecError {
    CodecError::corrupt(format!("pcodec: {error}"))
}

impl PCodec {
    /// pco's configuration for this codec, as numcodecs builds it (its errors, at encoding).
    pub fn chunk_config(&self) -> Result<ChunkConfig> {
        let level = usize::try_from(self.level)
            .ok()
            .filter(|&level| level <= 12)
            .ok_or_else(|| config_error(format!("level {} is not in 0..=12", self.level)))?;
        let mode = match self.mode_spec.as_str() {
            "auto" => ModeSpec::Auto,
            "classic" => ModeSpec::Classic,
            other => return Err(config_error(format!("mode_spec {other} is not supported"))),
        };
        let order = |order: i64| {
            usize::try_from(order)
                .ok()
                .filter(|&order| order <= 7)
                .ok_or_else(|| {
                    config_error(format!("delta encoding order {order} is not in 0..=7"))
                })
        };
        let delta = match (self.delta_spec.as_str(), self.delta_encoding_order) {
            // numcodecs' form from before delta_spec: an order with "auto".
            ("auto" | "try_consecutive", Some(given)) => DeltaSpec::TryConsecutive(order(given)?),
            (_, Some(_)) => {
                return Err(config_error(
                    "delta_encoding_order can only be set for delta_spec='try_consecutive'",
                ));
            }
            ("auto", None) => DeltaSpec::Auto,
            ("none" | "no_op", None) => DeltaSpec::NoOp,
            ("try_lookback", None) => DeltaSpec::TryLookback,
            ("try_consecutive", None) => {
                return Err(config_error(
                    "delta_spec 'try_consecutive' needs a delta_encoding_order",
                ));
            }
            (other, None) => {
                return Err(config_error(format!("delta_spec {other} is not supported")));
            }
        };
        if self.paging_spec != "equal_pages_up_to" {
            return Err(config_error(format!(
                "paging_spec {} is not supported",
                self.paging_spec
            )));
        }
        let page_n = usize::try_from(self.equal_pages_up_to)
            .ok()
            .filter(|&n| n > 0)
            .ok_or_else(|| {
                config_error(format!(
                    "equal_pages_up_to must be positive, not {}",
                    self.equal_pages_up_to
                ))
            })?;
        Ok(ChunkConfig::default()
            .with_compression_level(level)
            .with_mode_spec(mode)
            .with_delta_spec(delta)
            .with_paging_spec(PagingSpec::EqualPagesUpTo(page_n)))
    }

    /// `input`, numbers of `data_type` in this machine's byte order, as one pco file.
    pub fn encode_numbers(&self, input: &[u8], data_type: DataType) -> Result<Vec<u8>> {
        let config = self.chunk_config()?;
        with_number_type(
            data_type,
            Compress {
                input,
                config: &config,
            },
        )
    }

    /// How many numbers a pco file says it holds (its header's hint; 0 where it gives none),
    /// to size an output before decoding, which then checks the count.
    pub fn count_hint(input: &[u8]) -> Result<usize> {
        let (decompressor, _) = FileDecompressor::new(input).map_err(|e| pco_error(&e))?;
        Ok(decompressor.n_hint())
    }

    /// The number type a pco file holds and the count its header states (`None`: a file of no
    /// chunks, or one that states no count), from one reading of the header, to make the
    /// output that [`PCodec::decode_numbers_into`] then fills (and checks the count of).
    pub fn stored_type_and_count(input: &[u8]) -> Result<Option<(DataType, usize)>> {
        let (decompressor, rest) = FileDecompressor::new(input).map_err(|e| pco_error(&e))?;
        let count = decompressor.n_hint();
        let found = decompressor
            .peek_number_type_or_termination(rest)
            .map_err(|e| pco_error(&e))?;
        match found {
            Some(number_type) if count > 0 => Ok(Some((data_type_of(number_type)?, count))),
            _ => Ok(None),
        }
    }

    /// The number type a pco file holds (`None`: a file of no chunks, which holds none).
    pub fn stored_type(input: &[u8]) -> Result<Option<DataType>> {
        let (decompressor, rest) = FileDecompressor::new(input).map_err(|e| pco_error(&e))?;
        let found = decompressor
            .peek_number_type_or_termination(rest)
            .map_err(|e| pco_error(&e))?;
        found.map(data_type_of).transpose()
    }

    /// A pco file's numbers into `out`, which must hold exactly `out.len() / size` numbers of
    /// `data_type`: a file of another number type or of another count is corrupt.
    pub fn decode_numbers_into(input: &[u8], data_type: DataType, out: &mut [u8]) -> Result<()> {
        if let Some(stored) = Self::stored_type(input)?
            && stored != data_type
        {
            return Err(CodecError::corrupt(format!(
                "pcodec: the file holds {stored}, the chunk is {data_type}"
            )));
        }
        with_number_type(data_type, Decompress { input, out })
    }
}

impl PCodec {
    /// A whole pco file's numbers, as numcodecs decodes without an output array: their type
    /// and their bytes (in this machine's order). A pco chunk of a few bytes can state
    /// millions of equal numbers, so each chunk's count is checked against `limit` (bytes)
    /// before its numbers are made: past it, [`CodecError::OutputLimit`].
    pub fn decode_all(input: &[u8], limit: Option<usize>) -> Result<Option<(DataType, Vec<u8>)>> {
        let Some(data_type) = Self::stored_type(input)? else {
            return Ok(None);
        };
        let limit = limit.unwrap_or(usize::MAX);
        with_number_type(data_type, DecompressAll { input, limit })
            .map(|bytes| Some((data_type, bytes)))
    }
}

/// What runs once the number type is known, for each type pco has.
trait ForNumber {
    type Output;
    fn run<T: Number>(self) -> Result<Self::Output>;
}

fn with_number_type<F: ForNumber>(data_type: DataType, job: F) -> Result<F::Output> {
    match data_type {
        DataType::UInt16 => job.run::<u16>(),
        DataType::UInt32 => job.run::<u32>(),
        DataType::UInt64 => job.run::<u64>(),
        DataType::Int16 => job.run::<i16>(),
        DataType::Int32 => job.run::<i32>(),
        DataType::Int64 => job.run::<i64>(),
        DataType::Float16 => job.run::<half::f16>(),
        DataType::Float32 => job.run::<f32>(),
        DataType::Float64 => job.run::<f64>(),
        other => Err(CodecError::unsupported(format!(
            "pcodec: {other} is not a type pcodec compresses (uint16-64, int16-64, float16-64)"
        ))),
    }
}

fn data_type_of(number_type: NumberType) -> Result<DataType> {
    Ok(match number_type {
        NumberType::U16 => DataType::UInt16,
        NumberType::U32 => DataType::UInt32,
        NumberType::U64 => DataType::UInt64,
        NumberType::I16 => DataType::Int16,
        NumberType::I32 => DataType::Int32,
        NumberType::I64 => DataType::Int64,
        NumberType::F16 => DataType::Float16,
        NumberType::F32 => DataType::Float32,
        NumberType::F64 => DataType::Float64,
        other => {
            return Err(CodecError::unsupported(format!(
                "pcodec: a file of {other:?} numbers, which numcodecs never writes"
            )));
        }
    })
}

/// The numbers of `T` that bytes hold: borrowed where they are aligned for `T` (numpy's
/// arrays are), else copied out.
fn numbers<T: Number>(input: &[u8]) -> Result<std::borrow::Cow<'_, [T]>> {
    let size = std::mem::size_of::<T>();
    if !input.len().is_multiple_of(size) {
        return Err(CodecError::corrupt(format!(
            "pcodec: {} bytes are not whole {size}-byte numbers",
            input.len()
        )));
    }
    // SAFETY: pco's number types are integers and IEEE floats (`half::f16` a transparent
    // `u16`): every bit pattern is a valid value, so aligned bytes may be read as them.
    let (head, middle, tail) = unsafe { input.align_to::<T>() };
    if head.is_empty() && tail.is_empty() {
        return Ok(std::borrow::Cow::Borrowed(middle));
    }
    let mut values = vec![T::default(); input.len() / size];
    // SAFETY: `values` holds exactly `input.len()` bytes of plain numbers, every bit pattern
    // of which is a valid `T`.
    let target =
        unsafe { std::slice::from_raw_parts_mut(values.as_mut_ptr().cast::<u8>(), input.len()) };
    target.copy_from_slice(input);
    Ok(std::borrow::Cow::Owned(values))
}

struct Compress<'a> {
    input: &'a [u8],
    config: &'a ChunkConfig,
}

impl ForNumber for Compress<'_> {
    type Output = Vec<u8>;
    fn run<T: Number>(self) -> Result<Vec<u8>> {
        let values = numbers::<T>(self.input)?;
        simple_compress(&values, self.config).map_err(|e| {
            CodecError::configuration(format!(
                "pcodec: cannot compress with this configuration: {e}"
            ))
        })
    }
}

struct Decompress<'a> {
    input: &'a [u8],
    out: &'a mut [u8],
}

impl ForNumber for Decompress<'_> {
    type Output = ();
    fn run<T: Number>(self) -> Result<()> {
        let size = std::mem::size_of::<T>();
        if !self.out.len().is_multiple_of(size) {
            return Err(CodecError::OutputSize {
                expected: self.out.len() / size * size,
                actual: self.out.len(),
            });
        }
        let expected = self.out.len() / size;
        // SAFETY: as in `numbers`: any bytes are valid numbers, and only whole values are
        // written through the view.
        let (head, direct, tail) = unsafe { self.out.align_to_mut::<T>() };
        if head.is_empty() && tail.is_empty() {
            return decompress_exactly(self.input, direct);
        }
        let mut values = vec![T::default(); expected];
        decompress_exactly(self.input, &mut values)?;
        // SAFETY: `values` is `expected` plain numbers, `out.len()` bytes.
        let bytes =
            unsafe { std::slice::from_raw_parts(values.as_ptr().cast::<u8>(), self.out.len()) };
        self.out.copy_from_slice(bytes);
        Ok(())
    }
}

/// A file's numbers into `out`, which it must fill exactly.
fn decompress_exactly<T: Number>(input: &[u8], out: &mut [T]) -> Result<()> {
    let progress = simple_decompress_into(input, out).map_err(|e| pco_error(&e))?;
    if progress.n_processed != out.len() || !progress.finished {
        return Err(CodecError::corrupt(format!(
            "pcodec: the file does not hold exactly the chunk's {} numbers",
            out.len()
        )));
    }
    Ok(())
}

struct DecompressAll<'a> {
    input: &'a [u8],
    limit: usize,
}

impl ForNumber for DecompressAll<'_> {
    type Output = Vec<u8>;
    fn run<T: Number>(self) -> Result<Vec<u8>> {
        let size = std::mem::size_of::<T>();
        let (decompressor, mut src) =
            FileDecompressor::new(self.input).map_err(|e| pco_error(&e))?;
        let mut values: Vec<T> = Vec::new();
        while let DecompressorItem::Chunk(mut chunk) = decompressor
            .chunk_decompressor::<T, _>(src)
            .map_err(|e| pco_error(&e))?
        {
            let start = values.len();
            let end = start
                .checked_add(chunk.n())
                .filter(|&end| end.saturating_mul(size) <= self.limit)
                .ok_or(CodecError::OutputLimit { limit: self.limit })?;
            values.resize(end, T::default());
            let progress = chunk
                .read(&mut values[start..])
                .map_err(|e| pco_error(&e))?;
            if progress.n_processed != end - start || !progress.finished {
                return Err(CodecError::corrupt(
                    "pcodec: a chunk holds fewer numbers than it states",
                ));
            }
            src = chunk.into_src();
        }
        let len = std::mem::size_of_val(values.as_slice());
        // SAFETY: `values` is plain numbers, `len` bytes; reading them as bytes is valid.
        let bytes = unsafe { std::slice::from_raw_parts(values.as_ptr().cast::<u8>(), len) };
        Ok(bytes.to_vec())
    }
}

/// `PCodec` for chunks of one data type, as a bytes-to-bytes codec of the chunk's element
/// bytes (in this machine's order): the form a codec chain runs it in, after the `bytes`
/// codec in native order, so that the runtime plans it as any other bytes codec.
#[derive(Debug, Clone)]
pub struct PcodecElements {
    codec: PCodec,
    data_type: DataType,
    config: ChunkConfig,
}

impl PcodecElements {
    /// `codec` over elements of `data_type`; its configuration checked now.
    pub fn new(codec: PCodec, data_type: DataType) -> Result<Self> {
        with_number_type(data_type, Check)?;
        let config = codec.chunk_config()?;
        Ok(Self {
            codec,
            data_type,
            config,
        })
    }
}

struct Check;

impl ForNumber for Check {
    type Output = ();
    fn run<T: Number>(self) -> Result<()> {
        Ok(())
    }
}

struct MaxSize<'a> {
    len: usize,
    paging: &'a PagingSpec,
}

impl ForNumber for MaxSize<'_> {
    type Output = Option<usize>;
    fn run<T: Number>(self) -> Result<Option<usize>> {
        let n = self.len / std::mem::size_of::<T>();
        Ok(pco::standalone::guarantee::file_size::<T::L>(n, self.paging).ok())
    }
}

impl Codec for PcodecElements {
    fn name(&self) -> &'static str {
        PCODEC_NAME
    }

    fn to_json(&self, format: ZarrFormat) -> Result<serde_json::Value> {
        self.codec.to_json(format)
    }
}

// SAFETY: both `_uninit` methods write only initialised bytes (copies of values decoded or
// encoded into vectors first).
unsafe impl UninitBytesCodec for PcodecElements {
    fn encode_bytes(&self, input: &[u8]) -> Result<Vec<u8>> {
        with_number_type(
            self.data_type,
            Compress {
                input,
                config: &self.config,
            },
        )
    }

    fn decode_bytes(&self, input: &[u8], limit: Option<usize>) -> Result<Vec<u8>> {
        let Some((stored, bytes)) = PCodec::decode_all(input, limit)? else {
            return Ok(Vec::new());
        };
        if stored != self.data_type {
            return Err(CodecError::corrupt(format!(
                "pcodec: the file holds {stored}, the chunk is {}",
                self.data_type
            )));
        }
        Ok(bytes)
    }

    fn encode_bytes_uninit(&self, input: &[u8], out: &mut [MaybeUninit<u8>]) -> Result<usize> {
        let encoded = self.encode_bytes(input)?;
        copy_prefix_uninit(&encoded, out)
    }

    fn decode_bytes_uninit(&self, input: &[u8], out: &mut [MaybeUninit<u8>]) -> Result<usize> {
        // Decoded into aligned words (so pco writes the numbers in place), then copied out.
        let mut words = vec![0u64; out.len().div_ceil(8)];
        // SAFETY: `words` holds at least `out.len()` initialised bytes.
        let decoded =
            unsafe { std::slice::from_raw_parts_mut(words.as_mut_ptr().cast::<u8>(), out.len()) };
        PCodec::decode_numbers_into(input, self.data_type, decoded)?;
        copy_prefix_uninit(decoded, out)
    }

    fn max_encoded_len(&self, decoded_len: usize) -> Option<usize> {
        let paging = &self.config.paging_spec;
        with_number_type(
            self.data_type,
            MaxSize {
                len: decoded_len,
                paging,
            },
        )
        .ok()
        .flatten()
    }
}

impl Codec for PCodec {
    fn name(&self) -> &'static str {
        PCODEC_NAME
    }

    fn to_json(&self, format: ZarrFormat) -> Result<serde_json::Value> {
        match format {
            ZarrFormat::V3 => to_v3_json(PCODEC_NAME, self),
            ZarrFormat::V2 => to_v2_json(PCODEC_ID, self),
        }
    }
}

impl CodecFromJson for PCodec {
    fn from_json(json: &serde_json::Value, format: ZarrFormat) -> Result<Self> {
        match format {
            ZarrFormat::V3 => parse_v3_config(json, PCODEC_NAME),
            ZarrFormat::V2 => parse_v2_config(json, PCODEC_ID),
        }
    }
}

impl ArrayToBytesCodec for PCodec {
    fn encode(&self, input: &[u8], spec: &ChunkSpec) -> Result<Vec<u8>> {
        if input.len() != spec.num_bytes() {
            return Err(CodecError::OutputSize {
                expected: spec.num_bytes(),
                actual: input.len(),
            });
        }
        self.encode_numbers(input, spec.data_type())
    }

    fn decode(&self, input: &[u8], spec: &ChunkSpec) -> Result<Vec<u8>> {
        let mut out = vec![0u8; spec.num_bytes()];
        Self::decode_numbers_into(input, spec.data_type(), &mut out)?;
        Ok(out)
    }

    fn decode_into(&self, input: &[u8], out: &mut [u8], spec: &ChunkSpec) -> Result<usize> {
        if out.len() != spec.num_bytes() {
            return Err(CodecError::OutputSize {
                expected: spec.num_bytes(),
                actual: out.len(),
            });
        }
        Self::decode_numbers_into(input, spec.data_type(), out)?;
        Ok(out.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(n: usize, data_type: DataType) -> Result<ChunkSpec> {
        ChunkSpec::with_default_fill_value(vec![n], data_type)
    }

    #[test]
    fn round_trips_every_type_and_refuses_the_wrong_one() -> Result<()> {
        let codec = PCodec::default();
        for data_type in [
            DataType::UInt16,
            DataType::Int64,
            DataType::Float32,
            DataType::Float16,
        ] {
            let spec = spec(3000, data_type)?;
            let input: Vec<u8> = (0..spec.num_bytes())
                .map(|i| u8::try_from(i * 7 % 13).unwrap_or(0))
                .collect();
            let encoded = codec.encode(&input, &spec)?;
            assert_eq!(PCodec::stored_type(&encoded)?, Some(data_type));
            assert_eq!(codec.decode(&encoded, &spec)?, input);
        }
        let elements = PcodecElements::new(codec.clone(), DataType::Float32)?;
        let input: Vec<u8> = (0..4000u16)
            .flat_map(|i| f32::from(i).to_ne_bytes())
            .collect();
        let stored = elements.encode_bytes(&input)?;
        assert!(stored.len() <= elements.max_encoded_len(input.len()).unwrap_or(0));
        assert_eq!(
            stored,
            codec.encode(&input, &spec(4000, DataType::Float32)?)?
        );
        assert_eq!(elements.decode_bytes(&stored, None)?, input);
        let encoded = codec.encode(&[0; 8], &spec(2, DataType::Int32)?)?;
        assert!(codec.decode(&encoded, &spec(2, DataType::UInt32)?).is_err());
        assert!(codec.decode(&encoded, &spec(3, DataType::Int32)?).is_err());
        assert!(
            codec
                .decode(&encoded[..encoded.len() - 1], &spec(2, DataType::Int32)?)
                .is_err()
        );
        Ok(())
    }

    /// Equal numbers take a few bytes of pco however many there are: decoding without an
    /// output checks each chunk's stated count against the limit before making its numbers.
    #[test]
    fn stated_counts_are_bounded_by_the_limit() -> Result<()> {
        let n = 1 << 20;
        let spec = spec(n, DataType::Int32)?;
        let encoded = PCodec::default().encode(&vec![0; spec.num_bytes()], &spec)?;
        assert!(encoded.len() < 1024);
        let whole = PCodec::decode_all(&encoded, Some(4 * n))?;
        assert_eq!(whole.map(|(_, bytes)| bytes.len()), Some(4 * n));
        assert_eq!(
            PCodec::decode_all(&encoded, Some(4 * n - 1)),
            Err(CodecError::OutputLimit { limit: 4 * n - 1 })
        );
        let elements = PcodecElements::new(PCodec::default(), DataType::Int32)?;
        assert_eq!(
            elements.decode_bytes(&encoded, Some(4096)),
            Err(CodecError::OutputLimit { limit: 4096 })
        );
        Ok(())
    }

    #[test]
    fn configuration_is_checked_when_encoding() -> Result<()> {
        let input = [0u8; 16];
        let spec = spec(4, DataType::Int32)?;
        for bad in [
            serde_json::json!({"id": "pcodec", "level": 13}),
            serde_json::json!({"id": "pcodec", "mode_spec": "dict"}),
            serde_json::json!({"id": "pcodec", "delta_spec": "no_op", "delta_encoding_order": 1}),
            serde_json::json!({"id": "pcodec", "equal_pages_up_to": 0}),
        ] {
            let codec = PCodec::from_json(&bad, ZarrFormat::V2)?;
            assert!(codec.encode(&input, &spec).is_err(), "{bad}");
        }
        let old = serde_json::json!({"id": "pcodec", "delta_encoding_order": 2});
        PCodec::from_json(&old, ZarrFormat::V2)?.encode(&input, &spec)?;
        Ok(())
    }
}

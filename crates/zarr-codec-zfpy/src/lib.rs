//! numcodecs' `zfpy` codec: an array of numbers as one zfp stream with zfp's full header, byte
//! for byte as numcodecs 0.17 writes it with zfpy 1.0.1.
//!
//! Use it from Rust alone, no Python involved: `cargo add zarr-codec-zfpy`.
//!
//! - Zarr v2: `{"id": "zfpy", "mode": 4, "tolerance": -1, "rate": -1, "precision": -1}`
//!   (numcodecs also writes its `compression_kwargs`, which it ignores on reading); Zarr v3:
//!   zarr-python's array-to-bytes codec `{"name": "numcodecs.zfpy", "configuration": {...}}`.
//! - Modes, as numcodecs and zfpy choose them: `mode` 4 (fixed accuracy) compresses with
//!   `tolerance`, 2 (fixed rate) with `rate`, 3 (fixed precision) with `precision`; where that
//!   value is negative (numcodecs' default), zfp's reversible, lossless mode.
//! - Arrays of `int32`, `int64`, `float32` or `float64` of one to four dimensions, C order (a
//!   zero-dimensional chunk as one value in one dimension). An array of no values is refused:
//!   zfp cannot hold one (numcodecs writes uninitialised memory for it, or crashes).
//! - Engine: zfp 1.0.1, vendored C built as zfp's own build does (`zfp/`, BSD-3-Clause).
//! - Decoding is bounded: the header's type and shape must be the chunk's, and zfp, which reads
//!   its stream without bounds checks, reads a copy padded to the most the header allows, which
//!   is refused where it exceeds what any stream numcodecs writes could need.
//!
//! ```
//! use zarr_codec_shapes::{ArrayToBytesCodec, ChunkSpec, DataType};
//! use zarr_codec_zfpy::Zfpy;
//!
//! let spec = ChunkSpec::with_default_fill_value(vec![16, 16], DataType::Float64)?;
//! let values: Vec<u8> = (0..256).flat_map(|v| f64::from(v).sqrt().to_ne_bytes()).collect();
//! let codec = Zfpy::default(); // reversible: lossless
//! let encoded = codec.encode(&values, &spec)?;
//! assert_eq!(codec.decode(&encoded, &spec)?, values);
//! # Ok::<(), zarr_codec_shapes::CodecError>(())
//! ```

mod ffi;

use std::mem::MaybeUninit;

use serde::{Deserialize, Serialize};
use zarr_codec_shapes::codec::copy_prefix_uninit;
use zarr_codec_shapes::json::{ZarrFormat, parse_v2_config, parse_v3_config, to_v3_json};
use zarr_codec_shapes::{
    ArrayToBytesCodec, ChunkSpec, Codec, CodecError, CodecFromJson, DataType, Result,
    UninitBytesCodec,
};

/// The codec's id in Zarr v2 metadata.
pub const ZFPY_ID: &str = "zfpy";
/// The codec's name in Zarr v3 metadata (zarr-python's numcodecs namespace).
pub const ZFPY_NAME: &str = "numcodecs.zfpy";
/// zfpy's mode numbers (zfp's `zfp_mode`).
pub const MODE_FIXED_RATE: i64 = 2;
/// Fixed precision.
pub const MODE_FIXED_PRECISION: i64 = 3;
/// Fixed accuracy (numcodecs' default).
pub const MODE_FIXED_ACCURACY: i64 = 4;

/// numcodecs' `ZFPY(mode=4, tolerance=-1, rate=-1, precision=-1)`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Zfpy {
    /// zfp's mode: 4 fixed accuracy, 2 fixed rate, 3 fixed precision.
    #[serde(default = "default_mode")]
    pub mode: i64,
    /// The absolute error allowed (fixed accuracy); negative: lossless.
    #[serde(default = "negative")]
    pub tolerance: f64,
    /// Compressed bits per value (fixed rate); negative: lossless.
    #[serde(default = "negative")]
    pub rate: f64,
    /// Uncompressed bits per value kept (fixed precision); negative: lossless.
    #[serde(default = "negative_int")]
    pub precision: i64,
}

fn default_mode() -> i64 {
    MODE_FIXED_ACCURACY
}
fn negative() -> f64 {
    -1.0
}
fn negative_int() -> i64 {
    -1
}

impl Default for Zfpy {
    fn default() -> Self {
        Self {
            mode: MODE_FIXED_ACCURACY,
            tolerance: -1.0,
            rate: -1.0,
            precision: -1,
        }
    }
}

/// How a stream is compressed: zfpy's choice from numcodecs' parameters.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Setting {
    Accuracy(f64),
    Rate(f64),
    Precision(u32),
    Reversible,
}

impl Zfpy {
    fn setting(&self) -> Result<Setting> {
        Ok(match self.mode {
            MODE_FIXED_ACCURACY if self.tolerance >= 0.0 => Setting::Accuracy(self.tolerance),
            MODE_FIXED_RATE if self.rate >= 0.0 => Setting::Rate(self.rate),
            MODE_FIXED_PRECISION if self.precision >= 0 => {
                Setting::Precision(u32::try_from(self.precision).map_err(|_| {
                    CodecError::configuration(format!(
                        "zfpy: precision {} is too large",
                        self.precision
                    ))
                })?)
            }
            MODE_FIXED_ACCURACY | MODE_FIXED_RATE | MODE_FIXED_PRECISION => Setting::Reversible,
            other => {
                return Err(CodecError::configuration(format!(
                    "zfpy: mode {other} cannot encode (numcodecs encodes with modes 2, 3 and 4)"
                )));
            }
        })
    }

    /// `input`, numbers of `data_type` in this machine's byte order in a C-order array of
    /// `shape` (one to four dimensions), as one zfp stream with its full header.
    pub fn encode_array(
        &self,
        input: &[u8],
        data_type: DataType,
        shape: &[usize],
    ) -> Result<Vec<u8>> {
        let setting = self.setting()?;
        let kind = zfp_type(data_type)?;
        let shape = zfp_shape(shape);
        check_size(input.len(), data_type, &shape)?;
        ffi::compress(input, kind, &shape, setting)
    }

    /// A zfp stream decoded into `out`, which must be exactly an array of `data_type` and
    /// `shape` (C order): a stream of another type or shape is corrupt.
    pub fn decode_array_into(
        input: &[u8],
        data_type: DataType,
        shape: &[usize],
        out: &mut [u8],
    ) -> Result<()> {
        let kind = zfp_type(data_type)?;
        let shape = zfp_shape(shape);
        check_size(out.len(), data_type, &shape)?;
        ffi::decompress(input, Some((kind, &shape)), out)
    }

    /// The data type and shape (C order) a stream's full header states.
    pub fn header(input: &[u8]) -> Result<(DataType, Vec<usize>)> {
        let (kind, shape) = ffi::header(input)?;
        let data_type = data_type_of(kind);
        // Each block of 4^d values takes at least one bit: a header claiming more values than
        // the stream's bits could hold is corrupt (and would size a huge allocation).
        let values = shape
            .iter()
            .try_fold(1usize, |count, &n| count.checked_mul(n))
            .ok_or_else(|| CodecError::corrupt("zfpy: the header's shape overflows"))?;
        let most = input
            .len()
            .saturating_mul(8)
            .saturating_mul(1 << (2 * shape.len()));
        if values > most || values.checked_mul(data_type.size()).is_none() {
            return Err(CodecError::corrupt(format!(
                "zfpy: the header claims {values} values, more than {} bytes can hold",
                input.len()
            )));
        }
        Ok((data_type, shape))
    }

    /// A whole stream as numcodecs decodes it without an output array: its data type, shape
    /// (C order) and element bytes; `limit` bounds the bytes decoded.
    pub fn decode_any(
        input: &[u8],
        limit: Option<usize>,
    ) -> Result<(DataType, Vec<usize>, Vec<u8>)> {
        let (data_type, shape) = Self::header(input)?;
        let kind = zfp_type(data_type)?;
        let len = shape.iter().product::<usize>() * data_type.size();
        if let Some(limit) = limit.filter(|&limit| len > limit) {
            return Err(CodecError::OutputLimit { limit });
        }
        let mut out = vec![0u8; len];
        ffi::decompress(input, Some((kind, &shape)), &mut out)?;
        Ok((data_type, shape, out))
    }
}

/// The shape zfp compresses a chunk as: a zero-dimensional chunk (one value) as a
/// one-dimensional array of one, which zfp can hold (zfpy itself refuses no dimensions).
fn zfp_shape(shape: &[usize]) -> Vec<usize> {
    if shape.is_empty() {
        vec![1]
    } else {
        shape.to_vec()
    }
}

fn check_size(len: usize, data_type: DataType, shape: &[usize]) -> Result<()> {
    if shape.is_empty() || shape.len() > 4 {
        return Err(CodecError::unsupported(format!(
            "zfpy: arrays of {} dimensions (zfp takes one to four)",
            shape.len()
        )));
    }
    let expected = shape.iter().product::<usize>() * data_type.size();
    if expected != len {
        return Err(CodecError::OutputSize {
            expected,
            actual: len,
        });
    }
    if expected == 0 {
        return Err(CodecError::unsupported("zfpy: arrays of no values"));
    }
    Ok(())
}

/// zfp's scalar type of a data type.
fn zfp_type(data_type: DataType) -> Result<ffi::Kind> {
    Ok(match data_type {
        DataType::Int32 => ffi::Kind::Int32,
        DataType::Int64 => ffi::Kind::Int64,
        DataType::Float32 => ffi::Kind::Float,
        DataType::Float64 => ffi::Kind::Double,
        other => {
            return Err(CodecError::unsupported(format!(
                "zfpy: {other} is not a type zfp compresses (int32, int64, float32, float64)"
            )));
        }
    })
}

fn data_type_of(kind: ffi::Kind) -> DataType {
    match kind {
        ffi::Kind::Int32 => DataType::Int32,
        ffi::Kind::Int64 => DataType::Int64,
        ffi::Kind::Float => DataType::Float32,
        ffi::Kind::Double => DataType::Float64,
    }
}

/// The JSON numcodecs writes: its parameters and, for the modes that use one, the
/// `compression_kwargs` it builds from them.
#[derive(Serialize)]
struct Written<'a> {
    mode: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    compression_kwargs: Option<serde_json::Value>,
    tolerance: &'a serde_json::Value,
    rate: &'a serde_json::Value,
    precision: i64,
}

/// A parameter as numcodecs writes it: an integral value as the integer Python keeps (its
/// default `-1`), else the float.
fn number(value: f64) -> serde_json::Value {
    #[allow(clippy::cast_possible_truncation, clippy::cast_precision_loss)]
    if value.fract() == 0.0 && value.abs() < 9.0e15 {
        serde_json::Value::from(value as i64)
    } else {
        serde_json::Value::from(value)
    }
}

impl Codec for Zfpy {
    fn name(&self) -> &'static str {
        ZFPY_NAME
    }

    fn to_json(&self, format: ZarrFormat) -> Result<serde_json::Value> {
        let (tolerance, rate) = (number(self.tolerance), number(self.rate));
        let kwargs = match self.mode {
            MODE_FIXED_ACCURACY => Some(serde_json::json!({ "tolerance": tolerance })),
            MODE_FIXED_RATE => Some(serde_json::json!({ "rate": rate })),
            MODE_FIXED_PRECISION => Some(serde_json::json!({ "precision": self.precision })),
            _ => None,
        };
        let written = Written {
            mode: self.mode,
            compression_kwargs: kwargs,
            tolerance: &tolerance,
            rate: &rate,
            precision: self.precision,
        };
        match format {
            ZarrFormat::V3 => to_v3_json(ZFPY_NAME, &written),
            ZarrFormat::V2 => {
                let mut json = serde_json::json!({ "id": ZFPY_ID });
                if let (Some(map), Ok(serde_json::Value::Object(rest))) =
                    (json.as_object_mut(), serde_json::to_value(&written))
                {
                    map.extend(rest);
                }
                Ok(json)
            }
        }
    }
}

/// What numcodecs accepts: its parameters and the `compression_kwargs` it writes (ignored).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Read {
    #[serde(default = "default_mode")]
    mode: i64,
    #[serde(default = "negative")]
    tolerance: f64,
    #[serde(default = "negative")]
    rate: f64,
    #[serde(default = "negative_int")]
    precision: i64,
    #[serde(default)]
    #[allow(dead_code)]
    compression_kwargs: Option<serde_json::Value>,
}

impl CodecFromJson for Zfpy {
    fn from_json(json: &serde_json::Value, format: ZarrFormat) -> Result<Self> {
        let read: Read = match format {
            ZarrFormat::V3 => parse_v3_config(json, ZFPY_NAME)?,
            ZarrFormat::V2 => parse_v2_config(json, ZFPY_ID)?,
        };
        Ok(Self {
            mode: read.mode,
            tolerance: read.tolerance,
            rate: read.rate,
            precision: read.precision,
        })
    }
}

impl ArrayToBytesCodec for Zfpy {
    fn encode(&self, input: &[u8], spec: &ChunkSpec) -> Result<Vec<u8>> {
        self.encode_array(input, spec.data_type(), spec.shape())
    }

    fn decode(&self, input: &[u8], spec: &ChunkSpec) -> Result<Vec<u8>> {
        let mut out = vec![0u8; spec.num_bytes()];
        Self::decode_array_into(input, spec.data_type(), spec.shape(), &mut out)?;
        Ok(out)
    }

    fn decode_into(&self, input: &[u8], out: &mut [u8], spec: &ChunkSpec) -> Result<usize> {
        Self::decode_array_into(input, spec.data_type(), spec.shape(), out)?;
        Ok(out.len())
    }
}

/// `Zfpy` for chunks of one data type and shape, as a bytes-to-bytes codec of the chunk's
/// element bytes (this machine's order): the form a codec chain runs it in, after the `bytes`
/// codec in native order.
#[derive(Debug, Clone)]
pub struct ZfpyElements {
    codec: Zfpy,
    data_type: DataType,
    shape: Vec<usize>,
}

impl ZfpyElements {
    /// `codec` over chunks of `data_type` and `shape`; checked now.
    pub fn new(codec: Zfpy, data_type: DataType, shape: &[usize]) -> Result<Self> {
        codec.setting()?;
        zfp_type(data_type)?;
        let shape = zfp_shape(shape);
        let len = shape.iter().product::<usize>() * data_type.size();
        check_size(len, data_type, &shape)?;
        Ok(Self {
            codec,
            data_type,
            shape,
        })
    }
}

impl Codec for ZfpyElements {
    fn name(&self) -> &'static str {
        ZFPY_NAME
    }

    fn to_json(&self, format: ZarrFormat) -> Result<serde_json::Value> {
        self.codec.to_json(format)
    }
}

// SAFETY: both `_uninit` methods write only initialised bytes (copies of vectors).
unsafe impl UninitBytesCodec for ZfpyElements {
    fn encode_bytes(&self, input: &[u8]) -> Result<Vec<u8>> {
        self.codec.encode_array(input, self.data_type, &self.shape)
    }

    fn decode_bytes(&self, input: &[u8], limit: Option<usize>) -> Result<Vec<u8>> {
        let len = self.shape.iter().product::<usize>() * self.data_type.size();
        if let Some(limit) = limit.filter(|&limit| len > limit) {
            return Err(CodecError::OutputLimit { limit });
        }
        let mut out = vec![0u8; len];
        Zfpy::decode_array_into(input, self.data_type, &self.shape, &mut out)?;
        Ok(out)
    }

    fn encode_bytes_uninit(&self, input: &[u8], out: &mut [MaybeUninit<u8>]) -> Result<usize> {
        copy_prefix_uninit(&self.encode_bytes(input)?, out)
    }

    fn decode_bytes_uninit(&self, input: &[u8], out: &mut [MaybeUninit<u8>]) -> Result<usize> {
        copy_prefix_uninit(&self.decode_bytes(input, Some(out.len()))?, out)
    }

    fn max_encoded_len(&self, _decoded_len: usize) -> Option<usize> {
        // The codec encodes exactly its chunk (any other input is refused): the bound is the
        // chunk's, whatever size is asked about.
        let kind = zfp_type(self.data_type).ok()?;
        ffi::maximum_size(kind, &self.shape, self.codec.setting().ok()?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(n: usize) -> Vec<u8> {
        (0..n)
            .flat_map(|i| {
                (f64::from(u32::try_from(i).unwrap_or(0)) * 0.37)
                    .sin()
                    .to_ne_bytes()
            })
            .collect()
    }

    #[test]
    fn reversible_round_trips_and_lossy_stays_within_tolerance() -> Result<()> {
        let spec = ChunkSpec::with_default_fill_value(vec![9, 13], DataType::Float64)?;
        let input = values(9 * 13);
        let codec = Zfpy::default();
        let encoded = codec.encode(&input, &spec)?;
        assert_eq!(codec.decode(&encoded, &spec)?, input);
        let lossy = Zfpy {
            tolerance: 1e-3,
            ..Zfpy::default()
        };
        let decoded = lossy.decode(&lossy.encode(&input, &spec)?, &spec)?;
        for (a, b) in input.chunks_exact(8).zip(decoded.chunks_exact(8)) {
            let (a, b) = (
                f64::from_ne_bytes(a.try_into().unwrap_or_default()),
                f64::from_ne_bytes(b.try_into().unwrap_or_default()),
            );
            assert!((a - b).abs() <= 1e-3);
        }
        Ok(())
    }

    #[test]
    fn refuses_other_shapes_types_and_cut_streams() -> Result<()> {
        let spec = ChunkSpec::with_default_fill_value(vec![8, 8], DataType::Float64)?;
        let encoded = Zfpy::default().encode(&values(64), &spec)?;
        for (shape, data_type) in [
            (vec![64], DataType::Float64),
            (vec![8, 8], DataType::Int64),
            (vec![4, 16], DataType::Float64),
        ] {
            let other = ChunkSpec::with_default_fill_value(shape, data_type)?;
            assert!(Zfpy::default().decode(&encoded, &other).is_err());
        }
        for cut in [0, 3, 8, 20] {
            assert!(
                Zfpy::default().decode(&encoded[..cut], &spec).is_err(),
                "{cut}"
            );
        }
        // A stream cut in its body reads zeros after its end, never beyond the copy.
        let _ = Zfpy::default().decode(&encoded[..encoded.len() / 2], &spec);
        Ok(())
    }
}

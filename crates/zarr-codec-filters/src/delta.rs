//! numcodecs' `Delta(dtype, astype=None)`: each element less the one before it, the first kept.
//!
//! numcodecs encodes `enc[0] = arr[0]; enc[1:] = np.diff(arr)` (differences in `dtype`, then
//! numpy's `astype` into `astype`) and decodes `np.cumsum(enc, out=dec)`: numpy sums in the
//! promotion of `astype` and `dtype` (`result_type`, first to last) and casts each running
//! sum to `dtype`. Integers wrap modulo 2^N; floats round each operation in their precision;
//! bools differ by `not_equal` and sum by `logical_or`, as numpy's bool loops do.

use serde::{Deserialize, Serialize};
use zarr_codec_cast_value::numpy::{NumpyCast, numpy_astype, numpy_promote, numpy_type};
use zarr_codec_shapes::{CodecError, DataType, PartialDecodeCapability, Result};

use crate::arith;
use crate::element_filter::{ElementFilter, check_dtype, element_filter_codec};

/// The codec's name in Zarr v3 metadata (zarr-python's).
pub const DELTA_NAME: &str = "numcodecs.delta";
/// The codec's id in Zarr v2 metadata.
pub const DELTA_ID: &str = "delta";

/// `Delta`'s configuration: numpy type strings, kept as given.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DeltaConfig {
    /// The decoded elements' type.
    pub dtype: String,
    /// The encoded elements' type (`dtype` when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub astype: Option<String>,
}

/// numcodecs' `Delta(dtype, astype=None)`, its casts planned once.
#[derive(Debug, Clone)]
pub struct Delta {
    config: DeltaConfig,
    dtype: DataType,
    astype: DataType,
    /// Where decoding sums: numpy's promotion of `astype` and `dtype`.
    sum_type: DataType,
    /// `dtype` to `astype` (encoding), when they differ.
    narrow: Option<NumpyCast>,
    /// `astype` to the sum type, and the sum type to `dtype` (decoding), where they differ.
    widen: Option<NumpyCast>,
    finish: Option<NumpyCast>,
}

impl PartialEq for Delta {
    fn eq(&self, other: &Self) -> bool {
        self.config == other.config
    }
}

impl Delta {
    /// numcodecs' `Delta(dtype, astype)` (`astype` `None`: `dtype`); integer and
    /// float16/32/64 types, as numpy type strings or names.
    pub fn new(dtype: &str, astype: Option<&str>) -> Result<Self> {
        Self::from_config(DeltaConfig {
            dtype: dtype.to_owned(),
            astype: astype.map(str::to_owned),
        })
    }

    /// The decoded data type (`dtype`).
    pub fn data_type(&self) -> DataType {
        self.dtype
    }

    /// The encoded data type (`astype`).
    pub fn encoded_type(&self) -> DataType {
        self.astype
    }

    /// Encodes `dtype` elements (native-endian) into as many `astype` elements.
    pub fn encode_all(&self, input: &[u8], output: &mut [u8]) -> Result<()> {
        check_lengths(input, self.dtype, output, self.astype)?;
        match &self.narrow {
            None => arith::diff(self.dtype, input, output),
            // Integers into a narrower integer type: one pass.
            Some(_) if arith::diff_narrowing(self.dtype, self.astype, input, output) => {}
            Some(plan) => {
                // In blocks that stay in cache: each block's differences (from the element
                // before it), then their cast. Both work element by element, so the result is
                // the whole array's differences cast.
                const BLOCK: usize = 4096;
                let (size, encoded_size) = (self.dtype.size(), self.astype.size());
                let count = input.len() / size;
                let mut differences = vec![0u8; (BLOCK + 1) * size];
                let mut start = 0;
                while start < count {
                    let end = (start + BLOCK).min(count);
                    let from = start.saturating_sub(1);
                    let piece = &mut differences[..(end - from) * size];
                    arith::diff(self.dtype, &input[from * size..end * size], piece);
                    let skip = (start - from) * size;
                    plan.apply(
                        &piece[skip..],
                        &mut output[start * encoded_size..end * encoded_size],
                    )?;
                    start = end;
                }
            }
        }
        Ok(())
    }

    /// Decodes `astype` elements into as many `dtype` elements.
    pub fn decode_all(&self, input: &[u8], output: &mut [u8]) -> Result<()> {
        check_lengths(input, self.astype, output, self.dtype)?;
        match (&self.widen, &self.finish) {
            (None, None) => arith::cumsum_into(self.dtype, input, output),
            (Some(widen), None) => {
                widen.apply(input, output)?;
                arith::cumsum(self.dtype, output);
            }
            (widen, Some(finish)) => {
                let count = input.len() / self.astype.size();
                let mut sums = match widen {
                    Some(widen) => {
                        let mut sums = vec![0u8; count * self.sum_type.size()];
                        widen.apply(input, &mut sums)?;
                        sums
                    }
                    None => input.to_vec(),
                };
                arith::cumsum(self.sum_type, &mut sums);
                finish.apply(&sums, output)?;
            }
        }
        Ok(())
    }
}

/// `Corrupt` unless `input` and `output` hold as many elements of their types.
fn check_lengths(input: &[u8], from: DataType, output: &[u8], to: DataType) -> Result<()> {
    let count = input.len() / from.size();
    if !input.len().is_multiple_of(from.size()) || output.len() != count * to.size() {
        return Err(CodecError::corrupt(format!(
            "{DELTA_ID}: {} bytes of {from} do not fill {} bytes of {to}",
            input.len(),
            output.len()
        )));
    }
    Ok(())
}

/// An integer, float16/32/64 or bool type (numpy's `"?"`, `"|b1"`, `"bool"`).
fn delta_type(text: &str, label: &str) -> Result<DataType> {
    let bare = text.trim_start_matches(['<', '>', '|', '=']);
    if matches!(bare, "?" | "b1" | "bool") {
        return Ok(DataType::Bool);
    }
    numpy_type(text, DELTA_ID, label)
}

/// numpy's astype, when the two types differ.
fn cast(from: DataType, to: DataType) -> Result<Option<NumpyCast>> {
    (from != to).then(|| numpy_astype(from, to)).transpose()
}

impl ElementFilter for Delta {
    const ID: &'static str = DELTA_ID;
    const NAME: &'static str = DELTA_NAME;
    type Config = DeltaConfig;

    fn from_config(config: DeltaConfig) -> Result<Self> {
        let dtype = delta_type(&config.dtype, "dtype")?;
        let astype = match &config.astype {
            Some(name) => delta_type(name, "astype")?,
            None => dtype,
        };
        if (dtype == DataType::Bool) != (astype == DataType::Bool) {
            return Err(CodecError::unsupported(format!(
                "{DELTA_ID}: bool arrays are stored as bool only, not {astype}"
            )));
        }
        let sum_type = numpy_promote(astype, dtype);
        if !arith::supports(dtype) || !arith::supports(sum_type) {
            return Err(CodecError::unsupported(format!(
                "{DELTA_ID}: {dtype} and {astype} are not supported"
            )));
        }
        Ok(Self {
            narrow: cast(dtype, astype)?,
            widen: cast(astype, sum_type)?,
            finish: cast(sum_type, dtype)?,
            config,
            dtype,
            astype,
            sum_type,
        })
    }

    fn config(&self) -> &DeltaConfig {
        &self.config
    }

    fn encoded_type(&self, data_type: DataType) -> Result<DataType> {
        check_dtype(DELTA_ID, self.dtype, data_type)?;
        Ok(self.astype)
    }

    fn encode_elements(&self, _: DataType, input: &[u8], output: &mut [u8]) -> Result<()> {
        self.encode_all(input, output)
    }

    fn decode_elements(&self, _: DataType, input: &[u8], output: &mut [u8]) -> Result<()> {
        self.decode_all(input, output)
    }
}

// Each element depends on all before it: whole chunks only.
element_filter_codec!(Delta, PartialDecodeCapability::NONE);

#[cfg(test)]
#[allow(clippy::float_cmp)] // exact values are the point
mod tests {
    use super::*;
    use serde_json::json;
    use zarr_codec_shapes::json::ZarrFormat;
    use zarr_codec_shapes::{ArrayToArrayCodec, ChunkSpec, Codec, CodecFromJson};

    #[test]
    fn numcodecs_docstring_example() -> Result<()> {
        let delta = Delta::new("<i2", Some("<i1"))?;
        let input: Vec<u8> = (100i16..120)
            .step_by(2)
            .flat_map(i16::to_ne_bytes)
            .collect();
        let spec = ChunkSpec::with_default_fill_value(vec![10], DataType::Int16)?;
        let encoded = delta.encode(&input, &spec)?;
        assert_eq!(encoded, [100, 2, 2, 2, 2, 2, 2, 2, 2, 2]);
        assert_eq!(delta.decode(&encoded, &spec)?, input);
        Ok(())
    }

    #[test]
    fn sums_in_the_promoted_type() -> Result<()> {
        // numpy: np.cumsum(np.array([1.5, 2.5]), out=np.empty(2, "i4")) is [1, 4].
        let delta = Delta::new("i4", Some("f8"))?;
        let input: Vec<u8> = [1.5f64, 2.5].iter().flat_map(|x| x.to_ne_bytes()).collect();
        let mut output = [0u8; 8];
        delta.decode_all(&input, &mut output)?;
        assert_eq!(output, [1, 0, 0, 0, 4, 0, 0, 0]);
        Ok(())
    }

    #[test]
    fn json_both_ways_and_errors() -> Result<()> {
        let delta = Delta::from_json(&json!({"id": "delta", "dtype": "<f8"}), ZarrFormat::V2)?;
        assert_eq!(delta.encoded_type(), DataType::Float64);
        assert_eq!(
            delta.to_json(ZarrFormat::V3)?,
            json!({"name": "numcodecs.delta", "configuration": {"dtype": "<f8"}})
        );
        assert!(Delta::new("|O", None).is_err());
        assert!(Delta::new("<f8", Some("?")).is_err());
        let spec = ChunkSpec::with_default_fill_value(vec![2], DataType::Float64)?;
        assert!(matches!(
            delta.decode(&[0; 15], &spec),
            Err(CodecError::Corrupt(_))
        ));
        let wrong = ChunkSpec::with_default_fill_value(vec![2], DataType::Int64)?;
        assert!(matches!(
            delta.resolve(&wrong),
            Err(CodecError::Configuration(_))
        ));
        Ok(())
    }
}

//! numcodecs' `AsType(encode_dtype, decode_dtype)`: numpy's `astype` each way (integers wrap,
//! floats round to nearest, a float into an integer is truncated; see
//! [`numpy_astype`](zarr_codec_cast_value::numpy::numpy_astype)).

use serde::{Deserialize, Serialize};
use zarr_codec_cast_value::numpy::{NumpyCast, numpy_astype, numpy_type};
use zarr_codec_shapes::{CodecError, DataType, PartialDecodeCapability, Result};

use crate::element_filter::{ElementFilter, check_dtype, element_filter_codec};

/// The codec's name in Zarr v3 metadata (zarr-python's).
pub const ASTYPE_NAME: &str = "numcodecs.astype";
/// The codec's id in Zarr v2 metadata.
pub const ASTYPE_ID: &str = "astype";

/// `AsType`'s configuration: type strings kept as given.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AsTypeConfig {
    /// The encoded elements' type.
    pub encode_dtype: String,
    /// The decoded elements' type.
    pub decode_dtype: String,
}

/// numcodecs' `AsType(encode_dtype, decode_dtype)` between integer and float16/32/64 types.
#[derive(Debug, Clone)]
pub struct AsType {
    config: AsTypeConfig,
    decoded: DataType,
    encoded: DataType,
    encode: Option<NumpyCast>,
    decode: Option<NumpyCast>,
}

impl PartialEq for AsType {
    fn eq(&self, other: &Self) -> bool {
        self.config == other.config
    }
}

impl AsType {
    /// numcodecs' `AsType(encode_dtype, decode_dtype)`.
    pub fn new(encode_dtype: &str, decode_dtype: &str) -> Result<Self> {
        Self::from_config(AsTypeConfig {
            encode_dtype: encode_dtype.to_owned(),
            decode_dtype: decode_dtype.to_owned(),
        })
    }

    /// The decoded data type (`decode_dtype`).
    pub fn data_type(&self) -> DataType {
        self.decoded
    }

    /// The encoded data type (`encode_dtype`).
    pub fn encoded_type(&self) -> DataType {
        self.encoded
    }

    /// `decode_dtype` elements into as many `encode_dtype` elements.
    pub fn encode_all(&self, input: &[u8], output: &mut [u8]) -> Result<()> {
        run(self.encode.as_ref(), input, output)
    }

    /// `encode_dtype` elements into as many `decode_dtype` elements.
    pub fn decode_all(&self, input: &[u8], output: &mut [u8]) -> Result<()> {
        run(self.decode.as_ref(), input, output)
    }
}

fn run(plan: Option<&NumpyCast>, input: &[u8], output: &mut [u8]) -> Result<()> {
    match plan {
        Some(plan) => plan.apply(input, output),
        None if input.len() == output.len() => {
            output.copy_from_slice(input);
            Ok(())
        }
        None => Err(CodecError::corrupt(format!(
            "{ASTYPE_ID}: {} bytes are not the chunk's {}",
            input.len(),
            output.len()
        ))),
    }
}

impl ElementFilter for AsType {
    const ID: &'static str = ASTYPE_ID;
    const NAME: &'static str = ASTYPE_NAME;
    type Config = AsTypeConfig;

    fn from_config(config: AsTypeConfig) -> Result<Self> {
        let encoded = numpy_type(&config.encode_dtype, ASTYPE_ID, "encode_dtype")?;
        let decoded = numpy_type(&config.decode_dtype, ASTYPE_ID, "decode_dtype")?;
        let cast = |from, to| (from != to).then(|| numpy_astype(from, to)).transpose();
        Ok(Self {
            encode: cast(decoded, encoded)?,
            decode: cast(encoded, decoded)?,
            config,
            decoded,
            encoded,
        })
    }

    fn config(&self) -> &AsTypeConfig {
        &self.config
    }

    fn encoded_type(&self, data_type: DataType) -> Result<DataType> {
        check_dtype(ASTYPE_ID, self.decoded, data_type)?;
        Ok(self.encoded)
    }

    fn encode_elements(&self, _: DataType, input: &[u8], output: &mut [u8]) -> Result<()> {
        self.encode_all(input, output)
    }

    fn decode_elements(&self, _: DataType, input: &[u8], output: &mut [u8]) -> Result<()> {
        self.decode_all(input, output)
    }
}

element_filter_codec!(AsType, PartialDecodeCapability::ELEMENTWISE);

#[cfg(test)]
#[allow(clippy::float_cmp)] // exact values are the point
mod tests {
    use super::*;

    #[test]
    fn numcodecs_docstring_example() -> Result<()> {
        let codec = AsType::new("i1", "<i2")?;
        let input: Vec<u8> = (100i16..120)
            .step_by(2)
            .flat_map(i16::to_ne_bytes)
            .collect();
        let mut encoded = vec![0u8; 10];
        codec.encode_all(&input, &mut encoded)?;
        assert_eq!(encoded, [100, 102, 104, 106, 108, 110, 112, 114, 116, 118]);
        let mut decoded = vec![0u8; 20];
        codec.decode_all(&encoded, &mut decoded)?;
        assert_eq!(decoded, input);
        Ok(())
    }
}

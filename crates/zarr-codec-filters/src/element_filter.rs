//! What numcodecs' element filters (delta, bitround, quantize, astype) share: each maps a
//! chunk's elements to as many elements of another (or the same) type, so one set of rules
//! gives all of them their [`ArrayToArrayCodec`](zarr_codec_shapes::ArrayToArrayCodec) (sizes checked, fill value encoded like an
//! element) and their JSON in both Zarr versions.

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use zarr_codec_shapes::element::{read_bits, write_bits};
use zarr_codec_shapes::json::{
    ZarrFormat, parse_v2_config, parse_v3_config, to_v2_json, to_v3_json,
};
use zarr_codec_shapes::{ChunkSpec, CodecError, DataType, FillValue, Result};

/// A numcodecs filter that maps each chunk to as many elements.
pub trait ElementFilter: Sized {
    /// The codec's id in Zarr v2 metadata (`"delta"`).
    const ID: &'static str;
    /// The codec's name in Zarr v3 metadata (`"numcodecs.delta"`).
    const NAME: &'static str;
    /// The configuration, in both Zarr versions (v2 adds `"id"`).
    type Config: Serialize + DeserializeOwned;

    /// The codec of a configuration (its checks are the codec's).
    fn from_config(config: Self::Config) -> Result<Self>;

    /// The configuration, as given.
    fn config(&self) -> &Self::Config;

    /// The encoded elements' type for arrays of `data_type`; an error for a type the filter
    /// does not take.
    fn encoded_type(&self, data_type: DataType) -> Result<DataType>;

    /// Encodes native-endian `data_type` elements into as many of
    /// [`encoded_type`](Self::encoded_type)`(data_type)`; `output` holds exactly that many.
    fn encode_elements(&self, data_type: DataType, input: &[u8], output: &mut [u8]) -> Result<()>;

    /// Decodes native-endian encoded elements into as many `data_type` elements.
    fn decode_elements(&self, data_type: DataType, input: &[u8], output: &mut [u8]) -> Result<()>;
}

/// The filter of JSON metadata in either Zarr version.
pub fn from_json<F: ElementFilter>(json: &Value, format: ZarrFormat) -> Result<F> {
    let config = match format {
        ZarrFormat::V3 => parse_v3_config(json, F::NAME)?,
        ZarrFormat::V2 => parse_v2_config(json, F::ID)?,
    };
    F::from_config(config)
}

/// The filter's JSON metadata in either Zarr version.
pub fn to_json<F: ElementFilter>(filter: &F, format: ZarrFormat) -> Result<Value> {
    match format {
        ZarrFormat::V3 => to_v3_json(F::NAME, filter.config()),
        ZarrFormat::V2 => to_v2_json(F::ID, filter.config()),
    }
}

/// The encoded spec: the same shape, the encoded type, the fill value encoded like an element.
pub fn resolve<F: ElementFilter>(filter: &F, spec: &ChunkSpec) -> Result<ChunkSpec> {
    let data_type = spec.data_type();
    let encoded = filter.encoded_type(data_type)?;
    let mut element = vec![0u8; data_type.size()];
    write_bits(read_bits_le(spec.fill_value().as_bytes()), &mut element);
    let mut output = vec![0u8; encoded.size()];
    filter.encode_elements(data_type, &element, &mut output)?;
    let bits = read_bits(&output).to_le_bytes();
    let fill = FillValue::from_bytes(encoded, &bits[..encoded.size()])?;
    ChunkSpec::new(spec.shape().to_vec(), encoded, fill)
}

/// One chunk encoded into a new buffer.
pub fn encode<F: ElementFilter>(filter: &F, input: &[u8], spec: &ChunkSpec) -> Result<Vec<u8>> {
    run(filter, Way::Encode, input, spec)
}

/// One chunk decoded into a new buffer.
pub fn decode<F: ElementFilter>(filter: &F, input: &[u8], spec: &ChunkSpec) -> Result<Vec<u8>> {
    run(filter, Way::Decode, input, spec)
}

/// One chunk encoded into `out`, which holds exactly its encoded elements.
pub fn encode_into<F: ElementFilter>(
    filter: &F,
    input: &[u8],
    out: &mut [u8],
    spec: &ChunkSpec,
) -> Result<usize> {
    run_into(filter, Way::Encode, input, out, spec)
}

/// One chunk decoded into `out`, which holds exactly its elements.
pub fn decode_into<F: ElementFilter>(
    filter: &F,
    input: &[u8],
    out: &mut [u8],
    spec: &ChunkSpec,
) -> Result<usize> {
    run_into(filter, Way::Decode, input, out, spec)
}

/// Which way a chunk goes through a filter.
#[derive(Clone, Copy)]
enum Way {
    Encode,
    Decode,
}

/// The types a chunk of `spec` goes from and to, that way.
fn types<F: ElementFilter>(filter: &F, way: Way, spec: &ChunkSpec) -> Result<(DataType, DataType)> {
    let data_type = spec.data_type();
    let encoded = filter.encoded_type(data_type)?;
    Ok(match way {
        Way::Encode => (data_type, encoded),
        Way::Decode => (encoded, data_type),
    })
}

/// One chunk into a new buffer, once `input` is checked to be the chunk's elements.
fn run<F: ElementFilter>(filter: &F, way: Way, input: &[u8], spec: &ChunkSpec) -> Result<Vec<u8>> {
    let (from, to) = types(filter, way, spec)?;
    check_input::<F>(input, spec, from)?;
    let mut out = vec![0u8; spec.num_elements() * to.size()];
    run_into(filter, way, input, &mut out, spec)?;
    Ok(out)
}

/// One chunk into `out`, sizes checked first.
fn run_into<F: ElementFilter>(
    filter: &F,
    way: Way,
    input: &[u8],
    out: &mut [u8],
    spec: &ChunkSpec,
) -> Result<usize> {
    let (from, to) = types(filter, way, spec)?;
    check_sizes::<F>(input, out, spec, from, to)?;
    match way {
        Way::Encode => filter.encode_elements(spec.data_type(), input, out)?,
        Way::Decode => filter.decode_elements(spec.data_type(), input, out)?,
    }
    Ok(out.len())
}

/// `Corrupt` unless `input` is the chunk's elements of `from`; `OutputSize` unless `out` is
/// room for exactly as many of `to`.
fn check_sizes<F: ElementFilter>(
    input: &[u8],
    out: &[u8],
    spec: &ChunkSpec,
    from: DataType,
    to: DataType,
) -> Result<()> {
    check_input::<F>(input, spec, from)?;
    let expected = spec.num_elements() * to.size();
    if out.len() != expected {
        return Err(CodecError::OutputSize {
            expected,
            actual: out.len(),
        });
    }
    Ok(())
}

fn check_input<F: ElementFilter>(input: &[u8], spec: &ChunkSpec, from: DataType) -> Result<()> {
    let count = spec.num_elements();
    if count.checked_mul(from.size()) != Some(input.len()) {
        return Err(CodecError::corrupt(format!(
            "{}: {} bytes are not the chunk's {count} {from} elements",
            F::ID,
            input.len()
        )));
    }
    Ok(())
}

/// `Configuration` unless `data_type` is the filter's configured `dtype` (numcodecs views any
/// chunk as its `dtype`; a Zarr array of another type is a mistake in its metadata).
pub fn check_dtype(codec: &str, configured: DataType, data_type: DataType) -> Result<()> {
    if configured == data_type {
        return Ok(());
    }
    Err(CodecError::configuration(format!(
        "{codec}: dtype {configured} does not match the array's data type {data_type}"
    )))
}

/// The bits of a little-endian element (how fill values hold theirs).
fn read_bits_le(bytes: &[u8]) -> u64 {
    let mut buffer = [0u8; 8];
    let len = bytes.len().min(8);
    buffer[..len].copy_from_slice(&bytes[..len]);
    u64::from_le_bytes(buffer)
}

/// Implements [`Codec`](zarr_codec_shapes::Codec), [`CodecFromJson`](zarr_codec_shapes::CodecFromJson)
/// and [`ArrayToArrayCodec`](zarr_codec_shapes::ArrayToArrayCodec) for an [`ElementFilter`].
macro_rules! element_filter_codec {
    ($filter:ty, $capability:expr) => {
        impl zarr_codec_shapes::Codec for $filter {
            fn name(&self) -> &'static str {
                <$filter as $crate::element_filter::ElementFilter>::NAME
            }

            fn partial_decode_capability(&self) -> zarr_codec_shapes::PartialDecodeCapability {
                $capability
            }

            fn to_json(
                &self,
                format: zarr_codec_shapes::json::ZarrFormat,
            ) -> zarr_codec_shapes::Result<serde_json::Value> {
                $crate::element_filter::to_json(self, format)
            }
        }

        impl zarr_codec_shapes::CodecFromJson for $filter {
            fn from_json(
                json: &serde_json::Value,
                format: zarr_codec_shapes::json::ZarrFormat,
            ) -> zarr_codec_shapes::Result<Self> {
                $crate::element_filter::from_json(json, format)
            }
        }

        impl zarr_codec_shapes::ArrayToArrayCodec for $filter {
            fn resolve(
                &self,
                spec: &zarr_codec_shapes::ChunkSpec,
            ) -> zarr_codec_shapes::Result<zarr_codec_shapes::ChunkSpec> {
                $crate::element_filter::resolve(self, spec)
            }

            fn encode(
                &self,
                input: &[u8],
                spec: &zarr_codec_shapes::ChunkSpec,
            ) -> zarr_codec_shapes::Result<Vec<u8>> {
                $crate::element_filter::encode(self, input, spec)
            }

            fn decode(
                &self,
                input: &[u8],
                spec: &zarr_codec_shapes::ChunkSpec,
            ) -> zarr_codec_shapes::Result<Vec<u8>> {
                $crate::element_filter::decode(self, input, spec)
            }

            fn encode_into(
                &self,
                input: &[u8],
                out: &mut [u8],
                spec: &zarr_codec_shapes::ChunkSpec,
            ) -> zarr_codec_shapes::Result<usize> {
                $crate::element_filter::encode_into(self, input, out, spec)
            }

            fn decode_into(
                &self,
                input: &[u8],
                out: &mut [u8],
                spec: &zarr_codec_shapes::ChunkSpec,
            ) -> zarr_codec_shapes::Result<usize> {
                $crate::element_filter::decode_into(self, input, out, spec)
            }
        }
    };
}

pub(crate) use element_filter_codec;

//! The Zarr [`cast_value`](https://github.com/zarr-developers/zarr-extensions/tree/main/codecs/cast_value)
//! array-to-array codec: converts each element's numerical value to another integer or
//! floating-point data type, and back when decoding.
//!
//! Use it from Rust alone, no Python involved: `cargo add zarr-codec-cast-value` (the examples in
//! `examples/` run with `cargo run --example <name> -p zarr-codec-cast-value`).
//!
//! The specification's procedure, in its order, for every element:
//!
//! 1. `scalar_map`: an input equal (by numerical value; every NaN is one key) to a map key
//!    becomes the mapped output. Mappings never chain; the first of repeated keys wins.
//! 2. A value the target holds exactly is kept.
//! 3. Otherwise it is rounded once, from its exact value, with `rounding` (default
//!    `nearest-even`), and then, if it lies outside the target's range, `out_of_range` applies:
//!    `clamp` (to the extreme value; to ±Infinity for types that have it), `wrap` (modulo 2^N,
//!    integer targets only) or, when absent, an error.
//!
//! NaN and ±Infinity propagate between types that have them; into a type without them they
//! are an error unless mapped (`clamp` does not apply to them). Signed zero is kept where the
//! target has one.
//!
//! Elements are decoded to their exact value (every supported element is
//! `±significand × 2^exponent` with a 64-bit significand), so no cast rounds twice through an
//! intermediate type: `int64 -> float32`, `float64 -> float16`, `uint64 -> float*` under every
//! rounding mode are all correctly rounded. Fast kernels handle common pairs; everything else,
//! and every element a kernel cannot settle, takes the exact path.

mod affine;
mod kernels;
mod numeric;
pub mod numpy;
mod plan;
mod round;
mod scalar_map;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use zarr_codec_shapes::json::{ZarrFormat, parse_v3_config, to_v3_json};
use zarr_codec_shapes::{
    ArrayToArrayCodec, ChunkSpec, Codec, CodecError, CodecFromJson, DataType, FillValue,
    PartialDecodeCapability, Result,
};

pub use affine::Affine;
pub use numeric::{Numeric, Rules, Scalar};
pub use plan::CastPlan;
pub use round::Rounding;
pub use scalar_map::{ScalarMap, ScalarMapJson};

/// The codec's name in Zarr v3 metadata.
pub const NAME: &str = "cast_value";

/// What happens to values outside the target's range after rounding (`out_of_range`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OutOfRange {
    /// To the target's smallest or largest value (±Infinity for float types that have it).
    Clamp,
    /// Modulo `2^N` into an `N`-bit integer type (two's complement for signed types).
    Wrap,
}

/// The `cast_value` codec: its target data type and rules.
#[derive(Debug, Clone, PartialEq)]
pub struct CastValue {
    data_type: DataType,
    rounding: Rounding,
    out_of_range: Option<OutOfRange>,
    scalar_map: Option<ScalarMapJson>,
}

/// The v3 configuration.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Config {
    data_type: Value,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    rounding: Option<Rounding>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    out_of_range: Option<OutOfRange>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    scalar_map: Option<ScalarMapJson>,
}

impl CastValue {
    /// A codec casting to `data_type`. Everything that can be checked without the array's own
    /// data type is checked here: the target is an integer or float type, `wrap` has an
    /// integer target, and the `scalar_map` scalars of the target type parse.
    pub fn new(
        data_type: DataType,
        rounding: Rounding,
        out_of_range: Option<OutOfRange>,
        scalar_map: Option<ScalarMapJson>,
    ) -> Result<Self> {
        let codec = Self {
            data_type,
            rounding,
            out_of_range,
            scalar_map,
        };
        let target =
            Numeric::of(data_type).map_err(|err| CodecError::configuration(err.to_string()))?;
        if out_of_range == Some(OutOfRange::Wrap) && !matches!(target, Numeric::Int { .. }) {
            return Err(CodecError::configuration(format!(
                "cast_value: out_of_range \"wrap\" needs an integer data_type, not {data_type}"
            )));
        }
        // The map's scalars of the target type are checked now; those of the array's type
        // wait until it is known.
        if let Some(map) = &codec.scalar_map {
            let outputs = map.encode.iter().flatten().map(|(_, output)| output);
            let inputs = map.decode.iter().flatten().map(|(input, _)| input);
            for scalar in outputs.chain(inputs) {
                scalar_map::check_scalar(scalar, data_type)?;
            }
        }
        Ok(codec)
    }

    /// The target data type.
    pub fn data_type(&self) -> DataType {
        self.data_type
    }

    /// The rounding mode.
    pub fn rounding(&self) -> Rounding {
        self.rounding
    }

    /// The out-of-range rule (`None`: an error).
    pub fn out_of_range(&self) -> Option<OutOfRange> {
        self.out_of_range
    }

    /// The scalar map as configured.
    pub fn scalar_map(&self) -> Option<&ScalarMapJson> {
        self.scalar_map.as_ref()
    }

    /// The plan for one direction, for an array of data type `array_type`.
    pub fn plan(&self, array_type: DataType, direction: Direction) -> Result<CastPlan> {
        let (from, to, pairs) = match direction {
            Direction::Encode => (
                array_type,
                self.data_type,
                self.scalar_map.as_ref().and_then(|m| m.encode.as_deref()),
            ),
            Direction::Decode => (
                self.data_type,
                array_type,
                self.scalar_map.as_ref().and_then(|m| m.decode.as_deref()),
            ),
        };
        let map = match pairs {
            Some(pairs) => ScalarMap::parse(pairs, from, to)?,
            None => ScalarMap::default(),
        };
        CastPlan::new(from, to, self.rounding, self.out_of_range, map).map_err(|err| match err {
            CodecError::Unsupported(message) => CodecError::Configuration(message),
            other => other,
        })
    }

    /// The fill value of the encoded array: `fill` cast like an element. It must come back
    /// unchanged when decoded, or partial chunks would not read back; otherwise this is a
    /// configuration error, as the specification requires.
    pub fn encoded_fill_value(&self, fill: &FillValue) -> Result<FillValue> {
        let array_type = fill.data_type();
        let encode = self.plan(array_type, Direction::Encode)?;
        let decode = self.plan(array_type, Direction::Decode)?;
        let bits = le_bits(fill.as_bytes());
        let fail = |why: String| {
            CodecError::configuration(format!(
                "cast_value: the fill value {} cannot be cast to {} and back: {why}",
                fill.to_json(),
                self.data_type
            ))
        };
        let encoded = encode
            .cast_bits(bits)
            .map_err(|err| fail(err.to_string()))?;
        let back = decode
            .cast_bits(encoded)
            .map_err(|err| fail(err.to_string()))?;
        let original = encode.cast_source_scalar(bits);
        if decode.target_scalar(back).key() != original.key() {
            return Err(fail(format!(
                "it decodes to {}",
                decode.target_scalar(back)
            )));
        }
        let size = self.data_type.size();
        FillValue::from_bytes(self.data_type, &encoded.to_le_bytes()[..size])
    }
}

/// Which way a plan casts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Direction {
    /// From the array's data type to the codec's `data_type`.
    Encode,
    /// From the codec's `data_type` back to the array's.
    Decode,
}

fn le_bits(bytes: &[u8]) -> u64 {
    let mut buffer = [0u8; 8];
    buffer[..bytes.len()].copy_from_slice(bytes);
    u64::from_le_bytes(buffer)
}

impl Codec for CastValue {
    fn name(&self) -> &'static str {
        NAME
    }

    /// Each element is encoded on its own: any part of a chunk reads and decodes alone.
    fn partial_decode_capability(&self) -> PartialDecodeCapability {
        PartialDecodeCapability::ELEMENTWISE
    }

    fn to_json(&self, format: ZarrFormat) -> Result<Value> {
        match format {
            ZarrFormat::V3 => to_v3_json(
                NAME,
                &Config {
                    data_type: self.data_type.to_json(),
                    // Omitted when default, as zarr-python writes it.
                    rounding: Some(self.rounding).filter(|r| *r != Rounding::NearestEven),
                    out_of_range: self.out_of_range,
                    scalar_map: self.scalar_map.clone(),
                },
            ),
            ZarrFormat::V2 => Err(CodecError::unsupported(
                "cast_value has no Zarr v2 form (numcodecs has no such codec)",
            )),
        }
    }
}

impl CodecFromJson for CastValue {
    fn from_json(json: &Value, format: ZarrFormat) -> Result<Self> {
        if format == ZarrFormat::V2 {
            return Err(CodecError::unsupported(
                "cast_value has no Zarr v2 form (numcodecs has no such codec)",
            ));
        }
        // The schema has no nulls: an optional field is present with a value, or absent.
        if let Some(null) = find_null(json.get("configuration").unwrap_or(&Value::Null), "") {
            return Err(CodecError::configuration(format!(
                "cast_value: {null} is null; leave an optional field out instead"
            )));
        }
        // serde would read a struct from a list too; the schema's scalar_map is an object.
        if let Some(map) = json.pointer("/configuration/scalar_map")
            && !map.is_object()
        {
            return Err(CodecError::configuration(format!(
                "cast_value: scalar_map must be an object with \"encode\" and \"decode\", not \
                 {map}"
            )));
        }
        let config: Config = parse_v3_config(json, NAME)?;
        let data_type = DataType::from_json(&config.data_type).map_err(|err| {
            CodecError::configuration(format!("cast_value: data_type: {}", err.detail()))
        })?;
        Self::new(
            data_type,
            config.rounding.unwrap_or_default(),
            config.out_of_range,
            config.scalar_map,
        )
    }
}

/// The path of the first null among the configuration's fields and `scalar_map`'s directions.
fn find_null(config: &Value, prefix: &str) -> Option<String> {
    let Value::Object(fields) = config else {
        return None;
    };
    fields.iter().find_map(|(key, value)| match value {
        Value::Null => Some(format!("{prefix}{key}")),
        Value::Object(_) if key == "scalar_map" => find_null(value, "scalar_map."),
        _ => None,
    })
}

impl ArrayToArrayCodec for CastValue {
    fn resolve(&self, spec: &ChunkSpec) -> Result<ChunkSpec> {
        let fill = self.encoded_fill_value(spec.fill_value())?;
        ChunkSpec::new(spec.shape().to_vec(), self.data_type, fill)
    }

    fn encode(&self, input: &[u8], spec: &ChunkSpec) -> Result<Vec<u8>> {
        self.plan(spec.data_type(), Direction::Encode)?
            .apply_to_vec(input)
    }

    fn decode(&self, input: &[u8], spec: &ChunkSpec) -> Result<Vec<u8>> {
        self.plan(spec.data_type(), Direction::Decode)?
            .apply_to_vec(input)
    }

    fn encode_into(&self, input: &[u8], out: &mut [u8], spec: &ChunkSpec) -> Result<usize> {
        self.plan(spec.data_type(), Direction::Encode)?
            .apply(input, out)?;
        Ok(out.len())
    }

    fn decode_into(&self, input: &[u8], out: &mut [u8], spec: &ChunkSpec) -> Result<usize> {
        self.plan(spec.data_type(), Direction::Decode)?
            .apply(input, out)?;
        Ok(out.len())
    }
}

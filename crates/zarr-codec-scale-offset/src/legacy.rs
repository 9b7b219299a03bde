//! numcodecs' `FixedScaleOffset`: Zarr v2 `fixedscaleoffset` and v3
//! `numcodecs.fixedscaleoffset`, read and written byte for byte as numcodecs (numpy 2)
//! computes them.
//!
//! numcodecs encodes `around((x - offset) * scale).astype(astype)` and decodes
//! `(y / scale + offset).astype(dtype)`, with numpy's promotion rules. That is, exactly:
//!
//! - **float `dtype`, encoding**: `scale_offset` in `dtype` (the parameters converted to it, as
//!   numpy 2 converts Python numbers), rounded half to even; then cast to `astype`, wrapping an
//!   integer `astype` modulo 2^N (numpy's silent wrap-around) and sending a float one to
//!   ±Infinity when it overflows. NaN and ±Infinity become what numpy's x86 conversion gives
//!   integers (0, or the minimum of the 32- and 64-bit types).
//! - **integer `dtype`, encoding**: numpy's integer arithmetic wherever both operands are
//!   integers, wrapping modulo 2^N (a JSON integer `offset` or `scale` that `dtype` cannot hold
//!   is an [`CodecError::OutOfRange`] error, numpy's `OverflowError`); a float `offset` or
//!   `scale` moves the arithmetic to `float64`. Then the same cast.
//! - **decoding**: an integer or `float64` `astype` is divided and offset in `float64` (numpy
//!   divides integer arrays in `float64`), a `float32`/`float16` one in its own precision; then
//!   the result is rounded to a float `dtype`, or truncated towards zero into an integer one.
//!
//! Where numpy's result is platform-defined, ours is defined: a finite float outside an
//! integer type's range (C's undefined conversion, numpy's "invalid value encountered in
//! cast") wraps modulo 2^N. Values numpy converts without that warning are identical.
//!
//! `dtype` and `astype` are numpy type strings with or without a byte order (`"<f8"`,
//! `"f8"`, `"|u1"`) or numpy names (`"float64"`); elements are native-endian here, so the byte
//! order changes nothing. A JSON integer `offset` or `scale` beyond 64 bits reads as a float
//! (where numpy would refuse it for an integer `dtype`), and a parameter that a float type it
//! is computed in cannot hold (numpy makes it ±Infinity) is a configuration error.

use serde::{Deserialize, Serialize};
use serde_json::{Number, Value};
use zarr_codec_cast_value::numpy::{nonfinite_pairs, numpy_type, wrapping_astype};
use zarr_codec_cast_value::{
    CastPlan, CastValue, Direction, OutOfRange, Rounding, ScalarMap, ScalarMapJson,
};
use zarr_codec_shapes::element::{read_bits, write_bits};
use zarr_codec_shapes::json::{
    ZarrFormat, parse_v2_config, parse_v3_config, to_v2_json, to_v3_json,
};
use zarr_codec_shapes::{
    ArrayToArrayCodec, ChunkSpec, Codec, CodecError, CodecFromJson, DataType, FillValue,
    PartialDecodeCapability, Result, bits_to_f64, f64_to_bits_rounded,
};

use crate::{Affine, ScaleOffset, ScaleOffsetCast, blocks};

/// The codec's name in Zarr v3 metadata.
pub const LEGACY_NAME: &str = "numcodecs.fixedscaleoffset";
/// The codec's id in Zarr v2 metadata.
pub const LEGACY_ID: &str = "fixedscaleoffset";

/// The configuration, in both Zarr versions (v2 adds `"id"`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Config {
    offset: Number,
    scale: Number,
    dtype: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    astype: Option<String>,
}

/// numcodecs' `FixedScaleOffset(offset, scale, dtype, astype)`, its plans built once.
#[derive(Debug, Clone)]
pub struct FixedScaleOffset {
    config: Config,
    dtype: DataType,
    astype: DataType,
    encode: Vec<Step>,
    decode: Vec<Step>,
}

impl PartialEq for FixedScaleOffset {
    fn eq(&self, other: &Self) -> bool {
        self.config == other.config
    }
}

impl FixedScaleOffset {
    /// The codec numcodecs builds from these parameters (`astype` `None`: `dtype`).
    /// `Unsupported` for a type other than the integers and `float16/32/64`; `Configuration`
    /// for a type string numpy would not read, a non-finite parameter or a `scale` of 0.
    pub fn new(offset: Number, scale: Number, dtype: &str, astype: Option<&str>) -> Result<Self> {
        let config = Config {
            offset,
            scale,
            dtype: dtype.to_owned(),
            astype: astype.map(str::to_owned),
        };
        let source = numpy_type(dtype, LEGACY_ID, "dtype")?;
        let target = astype.map_or(Ok(source), |name| numpy_type(name, LEGACY_ID, "astype"))?;
        let offset = Param::of(&config.offset);
        let scale = Param::of(&config.scale);
        let affine = ScaleOffset::new(
            Some(Value::Number(config.offset.clone())),
            Some(Value::Number(config.scale.clone())),
        )
        .map_err(|err| CodecError::configuration(format!("{LEGACY_ID}: {}", err.detail())))?;
        let bind = |data_type| {
            affine
                .bind(data_type)
                .map_err(|err| CodecError::configuration(format!("{LEGACY_ID}: {}", err.detail())))
        };
        let encode = encode_steps(&affine, &bind, source, target, offset, scale)?;
        let decode = decode_steps(&affine, &bind, source, target)?;
        Ok(Self {
            config,
            dtype: source,
            astype: target,
            encode,
            decode,
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

    /// `offset` as configured.
    pub fn offset(&self) -> &Number {
        &self.config.offset
    }

    /// `scale` as configured.
    pub fn scale(&self) -> &Number {
        &self.config.scale
    }

    /// Encodes native-endian `dtype` elements into as many `astype` elements.
    pub fn encode_elements(&self, input: &[u8], output: &mut [u8]) -> Result<()> {
        run(&self.encode, input, output)
    }

    /// Decodes native-endian `astype` elements into as many `dtype` elements.
    pub fn decode_elements(&self, input: &[u8], output: &mut [u8]) -> Result<()> {
        run(&self.decode, input, output)
    }

    fn check_array(&self, spec: &ChunkSpec) -> Result<()> {
        if spec.data_type() == self.dtype {
            return Ok(());
        }
        Err(CodecError::configuration(format!(
            "{LEGACY_ID}: dtype {} does not match the array's data type {}",
            self.config.dtype,
            spec.data_type()
        )))
    }

    /// A buffer for the chunk's elements of `to`, once `input` is checked to hold exactly the
    /// chunk's elements of `from` (`Corrupt` otherwise).
    fn output_for(input: &[u8], spec: &ChunkSpec, from: DataType, to: DataType) -> Result<Vec<u8>> {
        let count = spec.num_elements();
        if count.checked_mul(from.size()) != Some(input.len()) {
            return Err(CodecError::corrupt(format!(
                "{LEGACY_ID}: {} bytes are not the chunk's {count} {from} elements",
                input.len()
            )));
        }
        Ok(vec![0u8; count * to.size()])
    }
}

/// A parameter as numpy sees the Python number: an integer or a float.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Param {
    Int(i128),
    Float(f64),
}

impl Param {
    fn of(number: &Number) -> Self {
        if let Some(value) = number.as_i64() {
            Self::Int(value.into())
        } else if let Some(value) = number.as_u64() {
            Self::Int(value.into())
        } else {
            Self::Float(number.as_f64().unwrap_or(f64::NAN))
        }
    }

    fn as_f64(self) -> f64 {
        match self {
            #[allow(clippy::cast_precision_loss)] // numpy's conversion: rounded to nearest
            Self::Int(value) => value as f64,
            Self::Float(value) => value,
        }
    }
}

/// The step of numpy's astype from `from` to `target`, pushed unless the two are the same.
fn push_astype(steps: &mut Vec<Step>, from: DataType, target: DataType) -> Result<()> {
    if from != target {
        steps.push(Step::Cast(wrapping_astype(from, target)?));
    }
    Ok(())
}

/// One element-wise step of a direction.
#[derive(Debug, Clone)]
enum Step {
    /// numpy's `astype`.
    Cast(CastPlan),
    /// `(x - offset) * scale` in a float type, each operation rounded in it.
    Encode(Affine),
    /// `x / scale + offset` in a float type.
    Decode(Affine),
    /// `np.around`: to the nearest whole number, ties to even, in a float type.
    Around(DataType),
    /// `around((x - offset) * scale)` for an integer `dtype`, in numpy's arithmetic.
    Integers(IntegerArithmetic),
    /// A float `dtype` with an integer `astype`: both steps in one pass.
    Fused(Box<ScaleOffsetCast>, Direction),
}

impl Step {
    fn types(&self) -> (DataType, DataType) {
        match self {
            Self::Cast(plan) => (plan.from(), plan.to()),
            Self::Encode(affine) | Self::Decode(affine) => (affine.data_type(), affine.data_type()),
            Self::Around(data_type) => (*data_type, *data_type),
            Self::Integers(arithmetic) => (arithmetic.dtype, arithmetic.result_type()),
            Self::Fused(fused, Direction::Encode) => (fused.data_type(), fused.encoded_type()),
            Self::Fused(fused, Direction::Decode) => (fused.encoded_type(), fused.data_type()),
        }
    }

    fn run(&self, input: &[u8], output: &mut [u8]) -> Result<()> {
        match self {
            Self::Cast(plan) => plan.apply(input, output),
            Self::Encode(affine) => affine.encode(input, output),
            Self::Decode(affine) => affine.decode(input, output),
            Self::Around(data_type) => {
                around(*data_type, input, output);
                Ok(())
            }
            Self::Integers(arithmetic) => arithmetic.run(input, output),
            Self::Fused(fused, Direction::Encode) => fused.encode(input, output),
            Self::Fused(fused, Direction::Decode) => fused.decode(input, output),
        }
    }
}

fn run(steps: &[Step], input: &[u8], output: &mut [u8]) -> Result<()> {
    let mut types: Vec<DataType> = steps.iter().take(1).map(|s| s.types().0).collect();
    types.extend(steps.iter().map(|s| s.types().1));
    let closures: Vec<_> = steps
        .iter()
        .map(|step| move |i: &[u8], o: &mut [u8]| step.run(i, o))
        .collect();
    let dyns: Vec<blocks::Step<'_>> = closures.iter().map(|c| c as blocks::Step<'_>).collect();
    blocks::run(LEGACY_ID, input, output, &types, &dyns)
}

fn encode_steps(
    affine: &ScaleOffset,
    bind: &dyn Fn(DataType) -> Result<Affine>,
    source: DataType,
    target: DataType,
    offset: Param,
    scale: Param,
) -> Result<Vec<Step>> {
    if source.is_integer() {
        let arithmetic = IntegerArithmetic {
            dtype: source,
            offset,
            scale,
        };
        let middle = arithmetic.result_type();
        let mut steps = vec![Step::Integers(arithmetic)];
        push_astype(&mut steps, middle, target)?;
        return Ok(steps);
    }
    if target.is_integer() {
        return Ok(vec![fused(affine, source, target, Direction::Encode)?]);
    }
    // numcodecs rounds to whole numbers even for a float astype (np.around).
    let mut steps = vec![Step::Encode(bind(source)?), Step::Around(source)];
    push_astype(&mut steps, source, target)?;
    Ok(steps)
}

fn decode_steps(
    affine: &ScaleOffset,
    bind: &dyn Fn(DataType) -> Result<Affine>,
    source: DataType,
    target: DataType,
) -> Result<Vec<Step>> {
    // numpy divides integers (and float64) in float64, float32/16 in their own precision.
    let middle = if target.is_integer() || target == DataType::Float64 {
        DataType::Float64
    } else {
        target
    };
    if source == DataType::Float64 && target.is_integer() {
        return Ok(vec![fused(affine, source, target, Direction::Decode)?]);
    }
    let mut steps = Vec::new();
    if middle != target {
        let widen = CastPlan::new(
            target,
            middle,
            Rounding::NearestEven,
            None,
            ScalarMap::default(),
        )?;
        steps.push(Step::Cast(widen));
    }
    steps.push(Step::Decode(bind(middle)?));
    push_astype(&mut steps, middle, source)?;
    Ok(steps)
}

/// `scale_offset` in the float `source` and the cast to the integer `target`, fused.
fn fused(
    affine: &ScaleOffset,
    source: DataType,
    target: DataType,
    direction: Direction,
) -> Result<Step> {
    let map = ScalarMapJson {
        encode: Some(nonfinite_pairs(target)),
        decode: None,
    };
    let cast = CastValue::new(
        target,
        Rounding::NearestEven,
        Some(OutOfRange::Wrap),
        Some(map),
    )?;
    let pair = ScaleOffsetCast::new(affine, &cast, source)
        .map_err(|err| CodecError::configuration(format!("{LEGACY_ID}: {}", err.detail())))?;
    Ok(Step::Fused(Box::new(pair), direction))
}

/// `np.around` of each float element of `data_type`.
fn around(data_type: DataType, input: &[u8], output: &mut [u8]) {
    match data_type {
        DataType::Float64 => {
            for (x, y) in input.chunks_exact(8).zip(output.chunks_exact_mut(8)) {
                let value = f64::from_ne_bytes(x.try_into().unwrap_or([0; 8]));
                y.copy_from_slice(&value.round_ties_even().to_ne_bytes());
            }
        }
        DataType::Float32 => {
            for (x, y) in input.chunks_exact(4).zip(output.chunks_exact_mut(4)) {
                let value = f32::from_ne_bytes(x.try_into().unwrap_or([0; 4]));
                y.copy_from_slice(&value.round_ties_even().to_ne_bytes());
            }
        }
        _ => {
            let Some(format) = data_type.float_format() else {
                return;
            };
            let size = data_type.size();
            for (x, y) in input.chunks_exact(size).zip(output.chunks_exact_mut(size)) {
                // Whole numbers below the format's precision are representable: exact.
                let value = bits_to_f64(read_bits(x), format).round_ties_even();
                write_bits(f64_to_bits_rounded(value, format).unwrap_or(0), y);
            }
        }
    }
}

/// `around((x - offset) * scale)` for an integer `dtype`, as numpy 2 computes it: integer
/// operands stay in `dtype` and wrap; a float operand moves the rest to `float64`.
#[derive(Debug, Clone, Copy)]
struct IntegerArithmetic {
    dtype: DataType,
    offset: Param,
    scale: Param,
}

impl IntegerArithmetic {
    /// `dtype` when both parameters are integers, `float64` otherwise.
    fn result_type(self) -> DataType {
        match (self.offset, self.scale) {
            (Param::Int(_), Param::Int(_)) => self.dtype,
            _ => DataType::Float64,
        }
    }

    /// A Python integer must fit in `dtype` to meet an array of it (numpy's `OverflowError`).
    fn fitting(self, value: i128, name: &str) -> Result<u64> {
        let (min, max) = self.dtype.integer_range().unwrap_or((0, 0));
        if value < min || value > max {
            return Err(CodecError::out_of_range(format!(
                "{LEGACY_ID}: {name} {value} is out of bounds for {}",
                self.dtype
            )));
        }
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)] // two's complement
        Ok(value as u64)
    }

    fn run(self, input: &[u8], output: &mut [u8]) -> Result<()> {
        let size = self.dtype.size();
        let bits = u32::try_from(8 * size).unwrap_or(64);
        let mask = u64::MAX >> (64 - bits);
        let signed = self.dtype.integer_range().is_some_and(|(min, _)| min < 0);
        // The element's value, from its low `bits` bits.
        let value = |raw: u64| -> i128 {
            if signed && (raw >> (bits - 1)) & 1 == 1 {
                i128::from(raw) - (1i128 << bits)
            } else {
                i128::from(raw)
            }
        };
        let elements = input.chunks_exact(size);
        match (self.offset, self.scale) {
            (Param::Int(offset), Param::Int(scale)) => {
                let (offset, scale) = (
                    self.fitting(offset, "offset")?,
                    self.fitting(scale, "scale")?,
                );
                for (x, y) in elements.zip(output.chunks_exact_mut(size)) {
                    let result = read_bits(x).wrapping_sub(offset).wrapping_mul(scale) & mask;
                    write_bits(result, y);
                }
            }
            (Param::Int(offset), Param::Float(scale)) => {
                let offset = self.fitting(offset, "offset")?;
                for (x, y) in elements.zip(output.chunks_exact_mut(8)) {
                    let difference = value(read_bits(x).wrapping_sub(offset) & mask);
                    #[allow(clippy::cast_precision_loss)] // numpy's int -> float64: nearest
                    let result = (difference as f64 * scale).round_ties_even();
                    y.copy_from_slice(&result.to_ne_bytes());
                }
            }
            (Param::Float(offset), scale) => {
                let scale = scale.as_f64();
                for (x, y) in elements.zip(output.chunks_exact_mut(8)) {
                    #[allow(clippy::cast_precision_loss)] // numpy's int -> float64: nearest
                    let x = value(read_bits(x)) as f64;
                    y.copy_from_slice(&((x - offset) * scale).round_ties_even().to_ne_bytes());
                }
            }
        }
        Ok(())
    }
}

impl Codec for FixedScaleOffset {
    fn name(&self) -> &'static str {
        LEGACY_NAME
    }

    /// Each element is encoded on its own: any part of a chunk reads and decodes alone.
    fn partial_decode_capability(&self) -> PartialDecodeCapability {
        PartialDecodeCapability::ELEMENTWISE
    }

    /// The configuration as given (type strings unchanged), as numcodecs writes it.
    fn to_json(&self, format: ZarrFormat) -> Result<Value> {
        match format {
            ZarrFormat::V3 => to_v3_json(LEGACY_NAME, &self.config),
            ZarrFormat::V2 => to_v2_json(LEGACY_ID, &self.config),
        }
    }
}

impl CodecFromJson for FixedScaleOffset {
    fn from_json(json: &Value, format: ZarrFormat) -> Result<Self> {
        let config: Config = match format {
            ZarrFormat::V3 => parse_v3_config(json, LEGACY_NAME)?,
            ZarrFormat::V2 => parse_v2_config(json, LEGACY_ID)?,
        };
        Self::new(
            config.offset,
            config.scale,
            &config.dtype,
            config.astype.as_deref(),
        )
    }
}

impl ArrayToArrayCodec for FixedScaleOffset {
    /// The encoded spec: `astype`, and the fill value encoded like an element.
    fn resolve(&self, spec: &ChunkSpec) -> Result<ChunkSpec> {
        self.check_array(spec)?;
        let fill = spec.fill_value();
        let mut element = vec![0u8; self.dtype.size()];
        write_bits(read_bits_le(fill.as_bytes()), &mut element);
        let mut encoded = vec![0u8; self.astype.size()];
        self.encode_elements(&element, &mut encoded)?;
        let bits = read_bits(&encoded).to_le_bytes();
        let fill = FillValue::from_bytes(self.astype, &bits[..self.astype.size()])?;
        ChunkSpec::new(spec.shape().to_vec(), self.astype, fill)
    }

    fn encode(&self, input: &[u8], spec: &ChunkSpec) -> Result<Vec<u8>> {
        self.check_array(spec)?;
        let mut output = Self::output_for(input, spec, self.dtype, self.astype)?;
        self.encode_elements(input, &mut output)?;
        Ok(output)
    }

    fn decode(&self, input: &[u8], spec: &ChunkSpec) -> Result<Vec<u8>> {
        self.check_array(spec)?;
        let mut output = Self::output_for(input, spec, self.astype, self.dtype)?;
        self.decode_elements(input, &mut output)?;
        Ok(output)
    }

    fn encode_into(&self, input: &[u8], out: &mut [u8], spec: &ChunkSpec) -> Result<usize> {
        self.check_array(spec)?;
        self.encode_elements(input, out)?;
        Ok(out.len())
    }

    fn decode_into(&self, input: &[u8], out: &mut [u8], spec: &ChunkSpec) -> Result<usize> {
        self.check_array(spec)?;
        self.decode_elements(input, out)?;
        Ok(out.len())
    }
}

/// The bits of a little-endian element (how fill values hold theirs).
fn read_bits_le(bytes: &[u8]) -> u64 {
    let mut buffer = [0u8; 8];
    buffer[..bytes.len().min(8)].copy_from_slice(&bytes[..bytes.len().min(8)]);
    u64::from_le_bytes(buffer)
}

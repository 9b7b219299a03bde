//! The Zarr [`scale_offset`](https://github.com/zarr-developers/zarr-extensions/tree/main/codecs/scale_offset)
//! array-to-array codec: encodes `(x - offset) * scale` and decodes `x / scale + offset`, in the
//! arithmetic of the array's data type.
//!
//! Use it from Rust alone, no Python involved: `cargo add zarr-codec-scale-offset` (the examples in
//! `examples/` run with `cargo run --example <name> -p zarr-codec-scale-offset`).
//!
//! - **Integers**: exact arithmetic; any intermediate or final value outside the type's range
//!   (in either direction, at the `int64` and `uint64` limits too) is an
//!   [`CodecError::OutOfRange`] error, and so is a division that leaves a remainder when
//!   decoding. `scale` 0 cannot be decoded and is a configuration error.
//! - **Floats**: each operation is correctly rounded in the data type (IEEE 754 semantics, as
//!   numpy and zarr-python compute them): a finite value that overflows becomes ±Infinity, in
//!   both directions, as the type's own arithmetic gives it; NaN, ±Infinity and -0.0 pass
//!   through. In the float8/6/4 formats without infinity or NaN such a result is not
//!   representable and is an error. `float32` and `float64` use native arithmetic; the 16-bit
//!   and smaller formats compute in `f64`, which is exact for their sums and products and
//!   correctly rounded for their quotients (53 >= 2p + 2 bits), then round once to the format.
//!
//! `offset` and `scale` are JSON scalars in the fill-value encoding of the array's data type
//! (so `"NaN"`-style strings and hex floats parse); they are checked when the codec meets the
//! data type. The fill value is transformed by the same rule ([`ScaleOffset::encoded_fill_value`]).
//!
//! [`ScaleOffsetCast`] runs `scale_offset` and a following `cast_value` as one pass over
//! memory, with the same results as the two one after the other.
//!
//! [`FixedScaleOffset`] is numcodecs' `fixedscaleoffset` (Zarr v2) and
//! `numcodecs.fixedscaleoffset` (v3), with numpy's own arithmetic, byte for byte: what
//! arrays written with it need to read, and what `scale_offset` + `cast_value` replace.

mod blocks;
mod fused;
pub mod legacy;

pub use fused::ScaleOffsetCast;
pub use legacy::FixedScaleOffset;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use zarr_codec_shapes::element::{read_bits, write_bits};
use zarr_codec_shapes::json::{ZarrFormat, to_v3_json};
use zarr_codec_shapes::{
    ArrayToArrayCodec, ChunkSpec, Codec, CodecError, CodecFromJson, DataType, FillValue,
    FloatFormat, PartialDecodeCapability, Result, bits_to_f64, f64_to_bits_rounded,
};

/// The codec's name in Zarr v3 metadata.
pub const NAME: &str = "scale_offset";

/// The `scale_offset` codec: its `offset` and `scale` as given (JSON scalars).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ScaleOffset {
    offset: Option<Value>,
    scale: Option<Value>,
}

/// The v3 configuration.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct Config {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    offset: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    scale: Option<Value>,
}

impl ScaleOffset {
    /// A codec with these parameters (`None`: 0 and 1, the identities). What no data type
    /// accepts is refused here: anything but a number or a float's bits as a `"0x"` string
    /// (the only fill-value strings that are finite), and a scale of 0. The rest is checked
    /// against a data type by [`ScaleOffset::bind`].
    pub fn new(offset: Option<Value>, scale: Option<Value>) -> Result<Self> {
        for (name, value) in [("offset", &offset), ("scale", &scale)] {
            let Some(value) = value else { continue };
            let hex_bits = value.as_str().is_some_and(|text| text.starts_with("0x"));
            if !(value.is_number() || hex_bits) {
                return Err(CodecError::configuration(format!(
                    "scale_offset: {name} must be a number or a float's bits as a \"0x\" \
                     string, not {value}"
                )));
            }
        }
        if scale.as_ref().and_then(Value::as_f64) == Some(0.0) {
            return Err(CodecError::configuration(
                "scale_offset: scale 0 cannot be decoded",
            ));
        }
        Ok(Self { offset, scale })
    }

    /// The offset as configured.
    pub fn offset(&self) -> Option<&Value> {
        self.offset.as_ref()
    }

    /// The scale as configured.
    pub fn scale(&self) -> Option<&Value> {
        self.scale.as_ref()
    }

    /// The transformation for arrays of `data_type`: parses `offset` and `scale` as its fill
    /// values. `Configuration` for types without arithmetic (bool, complex), parameters the
    /// type cannot hold, non-finite floats, or a zero scale.
    pub fn bind(&self, data_type: DataType) -> Result<Affine> {
        let parse = |value: &Option<Value>, default: i64, name: &str| -> Result<FillValue> {
            let json = value.clone().unwrap_or(Value::from(default));
            FillValue::from_json(&json, data_type).map_err(|err| {
                CodecError::configuration(format!(
                    "scale_offset: {name} {json} is not a {data_type} value: {}",
                    err.detail()
                ))
            })
        };
        let offset = parse(&self.offset, 0, "offset");
        let scale = parse(&self.scale, 1, "scale");
        let kind = if let Some((min, max)) = data_type.integer_range() {
            let (offset, scale) = (int_value(&offset?), int_value(&scale?));
            if scale == 0 {
                return Err(CodecError::configuration(
                    "scale_offset: scale 0 cannot be decoded",
                ));
            }
            Kind::Int {
                min,
                max,
                offset,
                scale,
            }
        } else if let (Some(format), true) = (data_type.float_format(), data_type.is_float()) {
            // A missing offset subtracts nothing (float8_e8m0fnu has no 0 to parse).
            let offset = if self.offset.is_some() {
                float_value(&offset?, format)
            } else {
                0.0
            };
            let scale = float_value(&scale?, format);
            if !offset.is_finite() || !scale.is_finite() || scale == 0.0 {
                return Err(CodecError::configuration(format!(
                    "scale_offset: offset and scale must be finite and scale non-zero, not \
                     {offset} and {scale}"
                )));
            }
            Kind::Float {
                format,
                offset,
                scale,
            }
        } else {
            // A configuration problem, as for cast_value: the codec cannot be used there.
            return Err(CodecError::configuration(format!(
                "scale_offset: {data_type} has no arithmetic (integers and floats only)"
            )));
        };
        Ok(Affine { data_type, kind })
    }

    /// The encoded array's fill value: `fill` transformed like an element.
    pub fn encoded_fill_value(&self, fill: &FillValue) -> Result<FillValue> {
        let affine = self.bind(fill.data_type())?;
        let size = fill.data_type().size();
        let mut out = vec![0u8; size];
        let mut le = [0u8; 8];
        le[..size].copy_from_slice(fill.as_bytes());
        write_bits(u64::from_le_bytes(le), &mut out);
        let mut encoded = vec![0u8; size];
        affine.encode(&out, &mut encoded).map_err(|err| {
            CodecError::configuration(format!(
                "scale_offset: the fill value {} cannot be encoded: {}",
                fill.to_json(),
                err.detail()
            ))
        })?;
        let bits = read_bits(&encoded);
        FillValue::from_bytes(fill.data_type(), &bits.to_le_bytes()[..size])
    }
}

fn int_value(fill: &FillValue) -> i128 {
    fill.as_i128().unwrap_or(0)
}

fn float_value(fill: &FillValue, format: FloatFormat) -> f64 {
    let mut le = [0u8; 8];
    let bytes = fill.as_bytes();
    le[..bytes.len()].copy_from_slice(bytes);
    bits_to_f64(u64::from_le_bytes(le), format)
}

/// `scale_offset` bound to a data type: the parameters as values of it.
#[derive(Debug, Clone, PartialEq)]
pub struct Affine {
    data_type: DataType,
    kind: Kind,
}

#[derive(Debug, Clone, PartialEq)]
enum Kind {
    Int {
        min: i128,
        max: i128,
        offset: i128,
        scale: i128,
    },
    Float {
        format: FloatFormat,
        offset: f64,
        scale: f64,
    },
}

impl Affine {
    /// The data type.
    pub fn data_type(&self) -> DataType {
        self.data_type
    }

    /// `(x - offset) * scale` for every element of `input` (native-endian) into `output` (the
    /// same length).
    pub fn encode(&self, input: &[u8], output: &mut [u8]) -> Result<()> {
        self.each(input, output, true)
    }

    /// `x / scale + offset` for every element of `input` into `output`.
    pub fn decode(&self, input: &[u8], output: &mut [u8]) -> Result<()> {
        self.each(input, output, false)
    }

    /// Every element of `input` through the map (`encode`) or its inverse into `output`:
    /// integers exactly, `float32` and `float64` in their own type, other floats emulated.
    fn each(&self, input: &[u8], output: &mut [u8], encode: bool) -> Result<()> {
        self.check(input, output)?;
        let Kind::Float {
            format,
            offset,
            scale,
        } = self.kind
        else {
            return self.each_int(input, output, encode);
        };
        let (o, s) = (narrow(offset), narrow(scale));
        match (self.data_type, encode) {
            (DataType::Float64, true) => native(input, output, |x: f64| (x - offset) * scale),
            (DataType::Float64, false) => native(input, output, |x: f64| x / scale + offset),
            (DataType::Float32, true) => native(input, output, |x: f32| (x - o) * s),
            (DataType::Float32, false) => native(input, output, |x: f32| x / s + o),
            (_, true) => {
                return emulated(format, self.data_type.size(), input, output, |x| {
                    round(format, round(format, x - offset)? * scale)
                });
            }
            (_, false) => {
                return emulated(format, self.data_type.size(), input, output, |x| {
                    round(format, round(format, x / scale)? + offset)
                });
            }
        }
        Ok(())
    }

    /// The map as `cast_value`'s kernels run it fused, for float32 and float64 arrays.
    fn native(&self) -> Option<zarr_codec_cast_value::Affine> {
        let Kind::Float { offset, scale, .. } = self.kind else {
            return None;
        };
        match self.data_type {
            DataType::Float64 => Some(zarr_codec_cast_value::Affine::Float64 { offset, scale }),
            DataType::Float32 => Some(zarr_codec_cast_value::Affine::Float32 {
                offset: narrow(offset),
                scale: narrow(scale),
            }),
            _ => None,
        }
    }

    fn check(&self, input: &[u8], output: &[u8]) -> Result<()> {
        let size = self.data_type.size();
        if !input.len().is_multiple_of(size) {
            return Err(CodecError::corrupt(format!(
                "scale_offset: {} bytes is not a whole number of {} elements",
                input.len(),
                self.data_type
            )));
        }
        if output.len() != input.len() {
            return Err(CodecError::OutputSize {
                expected: input.len(),
                actual: output.len(),
            });
        }
        Ok(())
    }

    /// Integer elements, exactly, every step range-checked.
    fn each_int(&self, input: &[u8], output: &mut [u8], encode: bool) -> Result<()> {
        let Kind::Int {
            min,
            max,
            offset,
            scale,
        } = self.kind
        else {
            return Ok(());
        };
        let size = self.data_type.size();
        let signed = min < 0;
        let bits = self.data_type.bits();
        let fits = |v: i128| (min..=max).contains(&v);
        for (source, target) in input.chunks_exact(size).zip(output.chunks_exact_mut(size)) {
            let raw = read_bits(source);
            let x = if signed {
                let shift = 64 - bits;
                i128::from((raw << shift).cast_signed() >> shift)
            } else {
                i128::from(raw & (u64::MAX >> (64 - bits)))
            };
            // |x|, |offset| < 2^64, so differences fit i128; products are checked.
            let result = if encode {
                let shifted = x - offset;
                if !fits(shifted) {
                    return Err(self.out_of_range(x, "x - offset", Some(shifted)));
                }
                match shifted.checked_mul(scale) {
                    Some(scaled) if fits(scaled) => scaled,
                    product => return Err(self.out_of_range(x, "(x - offset) * scale", product)),
                }
            } else {
                if x % scale != 0 {
                    return Err(CodecError::out_of_range(format!(
                        "scale_offset: {x} / {scale} has a non-zero remainder, so it is not a {} value",
                        self.data_type
                    )));
                }
                let quotient = x / scale; // |quotient| <= |x|: in range but for MIN / -1
                if !fits(quotient) {
                    return Err(self.out_of_range(x, "x / scale", Some(quotient)));
                }
                let shifted = quotient + offset;
                if !fits(shifted) {
                    return Err(self.out_of_range(x, "x / scale + offset", Some(shifted)));
                }
                shifted
            };
            #[allow(clippy::cast_possible_truncation)] // in range: the low bits are the value
            write_bits(result.cast_unsigned() as u64, target);
        }
        Ok(())
    }

    fn out_of_range(&self, x: i128, what: &str, value: Option<i128>) -> CodecError {
        let shown = value.map_or_else(String::new, |v| format!(" = {v}"));
        CodecError::out_of_range(format!(
            "scale_offset: for x = {x}, {what}{shown} is outside the range of dtype {}",
            self.data_type
        ))
    }
}

#[allow(clippy::cast_possible_truncation)] // exact: the parameters are float32 values
fn narrow(value: f64) -> f32 {
    value as f32
}

/// `f64` and `f32`, read from and written to their `N` bytes in native order.
trait NativeFloat<const N: usize>: Copy {
    fn from_bytes(bytes: [u8; N]) -> Self;
    fn to_bytes(self) -> [u8; N];
}

impl NativeFloat<8> for f64 {
    fn from_bytes(bytes: [u8; 8]) -> Self {
        f64::from_ne_bytes(bytes)
    }

    fn to_bytes(self) -> [u8; 8] {
        self.to_ne_bytes()
    }
}

impl NativeFloat<4> for f32 {
    fn from_bytes(bytes: [u8; 4]) -> Self {
        f32::from_ne_bytes(bytes)
    }

    fn to_bytes(self) -> [u8; 4] {
        self.to_ne_bytes()
    }
}

/// `op` on every `f64` or `f32` of `input` into `output`, with AVX2 where the CPU has it
/// (twice the vector width for the division of decoding). Only AVX2 is enabled, not FMA: a
/// fused multiply-add would round once where the spec rounds after each operation.
fn native<const N: usize, F: NativeFloat<N>>(input: &[u8], output: &mut [u8], op: impl Fn(F) -> F) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the only requirement of `native_avx2` is AVX2, detected just above.
        unsafe { native_avx2(input, output, op) };
        return;
    }
    each(input, output, op);
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn native_avx2<const N: usize, F: NativeFloat<N>>(
    input: &[u8],
    output: &mut [u8],
    op: impl Fn(F) -> F,
) {
    each(input, output, op);
}

#[allow(clippy::inline_always)] // must inline into the AVX2 copy to be compiled for AVX2
#[inline(always)]
fn each<const N: usize, F: NativeFloat<N>>(input: &[u8], output: &mut [u8], op: impl Fn(F) -> F) {
    let (sources, _) = input.as_chunks::<N>();
    let (targets, _) = output.as_chunks_mut::<N>();
    for (s, t) in sources.iter().zip(targets.iter_mut()) {
        *t = op(F::from_bytes(*s)).to_bytes();
    }
}

/// The smaller float formats (`size` bytes each): each element exactly as `f64`, `op`
/// computing with [`round`] after each operation, the result stored back in the format.
fn emulated(
    format: FloatFormat,
    size: usize,
    input: &[u8],
    output: &mut [u8],
    op: impl Fn(f64) -> Result<f64>,
) -> Result<()> {
    for (source, target) in input.chunks_exact(size).zip(output.chunks_exact_mut(size)) {
        let x = bits_to_f64(read_bits(source), format);
        let result = op(x)?;
        write_bits(f64_to_bits_rounded(result, format)?, target);
    }
    Ok(())
}

/// `value` rounded to the nearest value of `format` (ties to even), as an `f64`: IEEE
/// overflow gives ±Infinity; formats without infinity or NaN refuse such results.
fn round(format: FloatFormat, value: f64) -> Result<f64> {
    // float8_e8m0fnu's smallest value is 2^-127 and it has no zero: anything below is out of
    // its range (as cast_value treats it), not rounded up to it.
    if format.encoding() == zarr_codec_shapes::FloatEncoding::Fnu
        && value.abs() < 2f64.powi(-format.bias())
    {
        return Err(CodecError::out_of_range(format!(
            "scale_offset: an intermediate value {value} is below the range of {format}"
        )));
    }
    let bits = f64_to_bits_rounded(value, format).map_err(|err| {
        CodecError::out_of_range(format!(
            "scale_offset: an intermediate value {value} is not representable: {}",
            err.detail()
        ))
    })?;
    Ok(bits_to_f64(bits, format))
}

impl Codec for ScaleOffset {
    fn name(&self) -> &'static str {
        NAME
    }

    /// Each element is encoded on its own: any part of a chunk reads and decodes alone.
    fn partial_decode_capability(&self) -> PartialDecodeCapability {
        PartialDecodeCapability::ELEMENTWISE
    }

    fn to_json(&self, format: ZarrFormat) -> Result<Value> {
        match format {
            ZarrFormat::V3 => {
                // The identities are left out, as zarr-python writes them.
                let offset = self.offset.clone().filter(|v| !is_exactly(v, 0.0));
                let scale = self.scale.clone().filter(|v| !is_exactly(v, 1.0));
                if offset.is_none() && scale.is_none() {
                    return Ok(serde_json::json!({"name": NAME}));
                }
                to_v3_json(NAME, &Config { offset, scale })
            }
            ZarrFormat::V2 => Err(CodecError::unsupported(
                "scale_offset has no Zarr v2 form (numcodecs' is fixedscaleoffset)",
            )),
        }
    }
}

/// Whether `value` is the JSON number `target` (and not `-0.0`, which is another offset).
fn is_exactly(value: &Value, target: f64) -> bool {
    #[allow(clippy::float_cmp)] // exact comparison is the point
    value
        .as_f64()
        .is_some_and(|v| v == target && v.is_sign_positive())
}

impl CodecFromJson for ScaleOffset {
    fn from_json(json: &Value, format: ZarrFormat) -> Result<Self> {
        if format == ZarrFormat::V2 {
            return Err(CodecError::unsupported(
                "scale_offset has no Zarr v2 form (numcodecs' is fixedscaleoffset)",
            ));
        }
        let object = json.as_object().ok_or_else(|| {
            CodecError::configuration(format!("scale_offset: expected an object, got {json}"))
        })?;
        if object.get("name").and_then(Value::as_str) != Some(NAME) {
            return Err(CodecError::configuration(format!(
                "expected the {NAME} codec, got {json}"
            )));
        }
        // `must_understand` (v3 core) changes nothing for a codec that is understood.
        let known = ["name", "configuration", "must_understand"];
        if let Some(key) = object.keys().find(|k| !known.contains(&k.as_str())) {
            return Err(CodecError::configuration(format!(
                "scale_offset: unknown key {key:?}"
            )));
        }
        // The schema has no nulls: an optional field is present with a number, or absent.
        if let Some(Value::Object(fields)) = object.get("configuration")
            && let Some((key, _)) = fields.iter().find(|(_, value)| value.is_null())
        {
            return Err(CodecError::configuration(format!(
                "scale_offset: {key} is null; leave an optional field out instead"
            )));
        }
        // The configuration may be omitted (the identity).
        let config: Config = match object.get("configuration") {
            None => Config::default(),
            Some(config) => serde_json::from_value(config.clone()).map_err(|err| {
                CodecError::configuration(format!("scale_offset: configuration: {err}"))
            })?,
        };
        Self::new(config.offset, config.scale)
    }
}

impl ArrayToArrayCodec for ScaleOffset {
    fn resolve(&self, spec: &ChunkSpec) -> Result<ChunkSpec> {
        let fill = self.encoded_fill_value(spec.fill_value())?;
        ChunkSpec::new(spec.shape().to_vec(), spec.data_type(), fill)
    }

    fn encode(&self, input: &[u8], spec: &ChunkSpec) -> Result<Vec<u8>> {
        let mut output = vec![0u8; input.len()];
        self.bind(spec.data_type())?.encode(input, &mut output)?;
        Ok(output)
    }

    fn decode(&self, input: &[u8], spec: &ChunkSpec) -> Result<Vec<u8>> {
        let mut output = vec![0u8; input.len()];
        self.bind(spec.data_type())?.decode(input, &mut output)?;
        Ok(output)
    }

    fn encode_into(&self, input: &[u8], out: &mut [u8], spec: &ChunkSpec) -> Result<usize> {
        self.bind(spec.data_type())?.encode(input, out)?;
        Ok(out.len())
    }

    fn decode_into(&self, input: &[u8], out: &mut [u8], spec: &ChunkSpec) -> Result<usize> {
        self.bind(spec.data_type())?.decode(input, out)?;
        Ok(out.len())
    }
}

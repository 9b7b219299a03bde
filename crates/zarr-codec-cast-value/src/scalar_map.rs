//! `scalar_map`: explicit input-to-output mappings, evaluated before any other rule.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use zarr_codec_shapes::{CodecError, DataType, FillValue, Result};

use crate::numeric::{Numeric, Scalar, decode};

/// The `scalar_map` JSON: `encode` and `decode` lists of `[input, output]` pairs, each scalar
/// in the fill-value JSON form of its data type.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScalarMapJson {
    /// Pairs used when encoding (array data type to the codec's `data_type`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub encode: Option<Vec<(Value, Value)>>,
    /// Pairs used when decoding (the codec's `data_type` back to the array data type).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decode: Option<Vec<(Value, Value)>>,
}

/// One direction of a map, parsed for a pair of data types: keys by numerical value
/// ([`Scalar::key`]), outputs as the target's bits.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ScalarMap {
    entries: Vec<(Scalar, u64)>,
}

impl ScalarMap {
    /// Parses `pairs` from `from` to `to`. A scalar that is not valid fill-value JSON for its
    /// type, or that the type cannot hold exactly, is a configuration error; a repeated key
    /// keeps its first output, as the specification requires.
    pub fn parse(pairs: &[(Value, Value)], from: DataType, to: DataType) -> Result<Self> {
        let mut entries: Vec<(Scalar, u64)> = Vec::with_capacity(pairs.len());
        for (input, output) in pairs {
            let key = parse_scalar(input, from, "input")?.key();
            let (_, bits) = parse_bits(output, to, "output")?;
            if !entries.iter().any(|(existing, _)| *existing == key) {
                entries.push((key, bits));
            }
        }
        Ok(Self { entries })
    }

    /// Whether there are no entries.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The entries: numerical-value keys and the target bits they map to.
    pub fn entries(&self) -> &[(Scalar, u64)] {
        &self.entries
    }

    /// The output bits for `value`, if it is a key.
    pub fn get(&self, value: Scalar) -> Option<u64> {
        let key = value.key();
        self.entries
            .iter()
            .find(|(candidate, _)| *candidate == key)
            .map(|&(_, bits)| bits)
    }
}

fn parse_bits(json: &Value, data_type: DataType, role: &str) -> Result<(Scalar, u64)> {
    let ty = Numeric::of(data_type)?;
    // The specification's own example writes "+Infinity", which fill-value JSON spells
    // "Infinity" (zarr-python accepts both).
    let plus_infinity = Value::from("Infinity");
    let json = if json.as_str() == Some("+Infinity") && data_type.is_float() {
        &plus_infinity
    } else {
        json
    };
    let fill = FillValue::from_json(json, data_type).map_err(|err| {
        CodecError::configuration(format!(
            "cast_value: scalar_map {role} {json} is not a {data_type} value: {}",
            err.detail()
        ))
    })?;
    let mut bytes = [0u8; 8];
    bytes[..data_type.size()].copy_from_slice(fill.as_bytes());
    let bits = u64::from_le_bytes(bytes);
    let scalar = decode(bits, ty);
    // Fill-value JSON rounds a number to the nearest value of a float type; one beyond its
    // finite range would become infinity, which the number does not mean.
    if json.is_number() && matches!(scalar, Scalar::Infinity { .. }) {
        return Err(CodecError::configuration(format!(
            "cast_value: scalar_map {role} {json} is outside the finite range of {data_type}"
        )));
    }
    Ok((scalar, sign_extended(bits, data_type)))
}

fn parse_scalar(json: &Value, data_type: DataType, role: &str) -> Result<Scalar> {
    parse_bits(json, data_type, role).map(|(scalar, _)| scalar)
}

/// Checks that `json` is a scalar `data_type` holds (the same check as [`ScalarMap::parse`]).
pub(crate) fn check_scalar(json: &Value, data_type: DataType) -> Result<()> {
    parse_bits(json, data_type, "scalar").map(|_| ())
}

/// Integer bits as the arrays store them: sub-byte signed values sign-extended to 64 bits.
fn sign_extended(bits: u64, data_type: DataType) -> u64 {
    match data_type.integer_range() {
        Some((min, _)) if min < 0 => {
            let shift = 64 - data_type.bits();
            ((bits << shift).cast_signed() >> shift).cast_unsigned()
        }
        _ => bits,
    }
}

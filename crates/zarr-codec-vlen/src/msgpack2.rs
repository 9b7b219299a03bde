//! numcodecs' `msgpack2` (`MsgPack()`): an array's items in `MessagePack`, the list of items
//! followed by the numpy type string and the shape, as the `msgpack` Python package (1.x)
//! packs and unpacks them.
//!
//! Packing picks the smallest encoding of each value as msgpack's packer does (positive
//! integers of 128 or more as unsigned types; `str8` and the `bin` types only with
//! `use_bin_type`, numcodecs' default). Unpacking checks every length against the input
//! before it allocates, refuses map keys other than strings and bytes (msgpack's
//! `strict_map_key`) and data after the value.

use zarr_codec_shapes::{CodecError, Result};

/// The numcodecs id (Zarr v2) of the codec.
pub const MSGPACK2_ID: &str = "msgpack2";

/// How deep arrays and maps may nest (msgpack's packer stops at 511 as well).
pub const MAX_DEPTH: usize = 511;

/// A `MessagePack` value.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// `nil` (`None`).
    Nil,
    /// `true` / `false`.
    Bool(bool),
    /// A signed integer (negative ones, and what packs as signed).
    Int(i64),
    /// An unsigned integer.
    UInt(u64),
    /// A float stored in 32 bits.
    F32(f32),
    /// A float stored in 64 bits.
    F64(f64),
    /// A string (`str` types): its UTF-8 bytes as stored (checked when read as text).
    Str(Vec<u8>),
    /// Bytes (`bin` types).
    Bin(Vec<u8>),
    /// An array (a Python list or tuple).
    Array(Vec<Value>),
    /// A map's pairs, in order.
    Map(Vec<(Value, Value)>),
}

/// Packer options (msgpack's `packb`), numcodecs' defaults by [`Default`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Packing {
    /// Bytes as `bin` types and short strings as `str8` (else both as the older `raw` types).
    pub use_bin_type: bool,
    /// Floats in 32 bits.
    pub use_single_float: bool,
}

impl Default for Packing {
    fn default() -> Self {
        Self {
            use_bin_type: true,
            use_single_float: false,
        }
    }
}

/// `value` packed as msgpack's `packb(value, **packing)` packs it.
pub fn pack(value: &Value, packing: Packing) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    pack_into(value, packing, 0, &mut out)?;
    Ok(out)
}

fn too_long(what: &str, len: usize) -> CodecError {
    CodecError::out_of_range(format!("msgpack2: {what} of {len} is too large to pack"))
}

fn header(out: &mut Vec<u8>, len: usize, small: Option<(usize, u8)>, codes: [u8; 3]) -> Result<()> {
    // `small`: the fix type's limit and prefix; `codes`: the 8-, 16- and 32-bit forms (0: none).
    if let Some((limit, prefix)) = small
        && len < limit
    {
        out.push(prefix | u8::try_from(len).map_err(|_| too_long("a length", len))?);
        return Ok(());
    }
    if codes[0] != 0
        && let Ok(short) = u8::try_from(len)
    {
        out.extend([codes[0], short]);
        return Ok(());
    }
    if let Ok(medium) = u16::try_from(len) {
        out.push(codes[1]);
        out.extend(medium.to_be_bytes());
        return Ok(());
    }
    let long = u32::try_from(len).map_err(|_| too_long("a length", len))?;
    out.push(codes[2]);
    out.extend(long.to_be_bytes());
    Ok(())
}

fn pack_into(value: &Value, packing: Packing, depth: usize, out: &mut Vec<u8>) -> Result<()> {
    if depth > MAX_DEPTH {
        return Err(CodecError::Unsupported(
            "msgpack2: recursion limit exceeded".into(),
        ));
    }
    match value {
        Value::Nil => out.push(0xc0),
        Value::Bool(flag) => out.push(if *flag { 0xc3 } else { 0xc2 }),
        Value::Int(number) => pack_int(*number, out),
        Value::UInt(number) => {
            if let Ok(signed) = i64::try_from(*number) {
                pack_int(signed, out);
            } else {
                out.push(0xcf);
                out.extend(number.to_be_bytes());
            }
        }
        Value::F32(number) => {
            out.push(0xca);
            out.extend(number.to_be_bytes());
        }
        Value::F64(number) => {
            if packing.use_single_float {
                #[allow(clippy::cast_possible_truncation)] // msgpack's C cast, by design
                let single = *number as f32;
                if single.is_infinite() && number.is_finite() {
                    return Err(CodecError::out_of_range(format!(
                        "msgpack2: float too large to pack with f format: {number}"
                    )));
                }
                out.push(0xca);
                out.extend(single.to_be_bytes());
            } else {
                out.push(0xcb);
                out.extend(number.to_be_bytes());
            }
        }
        Value::Str(bytes) => {
            let str8 = if packing.use_bin_type { 0xd9 } else { 0 };
            header(out, bytes.len(), Some((32, 0xa0)), [str8, 0xda, 0xdb])?;
            out.extend(bytes);
        }
        Value::Bin(bytes) => {
            if packing.use_bin_type {
                header(out, bytes.len(), None, [0xc4, 0xc5, 0xc6])?;
            } else {
                header(out, bytes.len(), Some((32, 0xa0)), [0, 0xda, 0xdb])?;
            }
            out.extend(bytes);
        }
        Value::Array(items) => {
            header(out, items.len(), Some((16, 0x90)), [0, 0xdc, 0xdd])?;
            for item in items {
                pack_into(item, packing, depth + 1, out)?;
            }
        }
        Value::Map(pairs) => {
            header(out, pairs.len(), Some((16, 0x80)), [0, 0xde, 0xdf])?;
            for (key, item) in pairs {
                pack_into(key, packing, depth + 1, out)?;
                pack_into(item, packing, depth + 1, out)?;
            }
        }
    }
    Ok(())
}

/// msgpack's choice for an integer: fixints, then unsigned types for positive values and
/// signed types for negative ones, each the smallest that holds it.
fn pack_int(number: i64, out: &mut Vec<u8>) {
    match number {
        -32..=127 => out.push(number.to_le_bytes()[0]),
        128.. => {
            if let Ok(small) = u8::try_from(number) {
                out.extend([0xcc, small]);
            } else if let Ok(medium) = u16::try_from(number) {
                out.push(0xcd);
                out.extend(medium.to_be_bytes());
            } else if let Ok(large) = u32::try_from(number) {
                out.push(0xce);
                out.extend(large.to_be_bytes());
            } else {
                out.push(0xcf);
                out.extend(number.to_be_bytes());
            }
        }
        _ => {
            if let Ok(small) = i8::try_from(number) {
                out.push(0xd0);
                out.extend(small.to_be_bytes());
            } else if let Ok(medium) = i16::try_from(number) {
                out.push(0xd1);
                out.extend(medium.to_be_bytes());
            } else if let Ok(large) = i32::try_from(number) {
                out.push(0xd2);
                out.extend(large.to_be_bytes());
            } else {
                out.push(0xd3);
                out.extend(number.to_be_bytes());
            }
        }
    }
}

/// The one value `data` holds, as msgpack's `unpackb` reads it; `Corrupt` for truncated or
/// malformed data, data after the value, or a map key that is not a string or bytes.
pub fn unpack(data: &[u8]) -> Result<Value> {
    let mut reader = Reader { data, at: 0 };
    let value = reader.value(0)?;
    if reader.at != data.len() {
        return Err(CodecError::Corrupt(format!(
            "msgpack2: {} bytes after the value",
            data.len() - reader.at
        )));
    }
    Ok(value)
}

struct Reader<'a> {
    data: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, len: usize) -> Result<&'a [u8]> {
        let end = self
            .at
            .checked_add(len)
            .filter(|&end| end <= self.data.len())
            .ok_or_else(|| CodecError::Corrupt("msgpack2: truncated data".into()))?;
        let bytes = &self.data[self.at..end];
        self.at = end;
        Ok(bytes)
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N]> {
        let bytes = self.take(N)?;
        let mut out = [0u8; N];
        out.copy_from_slice(bytes);
        Ok(out)
    }

    fn len(&mut self, width: usize) -> Result<usize> {
        let len = match width {
            1 => u32::from(self.array::<1>()?[0]),
            2 => u32::from(u16::from_be_bytes(self.array()?)),
            _ => u32::from_be_bytes(self.array()?),
        };
        usize::try_from(len).map_err(|_| CodecError::Corrupt("msgpack2: length".into()))
    }

    /// A count of items each taking at least one byte: no more than the bytes left.
    fn count(&mut self, width: usize) -> Result<usize> {
        let count = self.len(width)?;
        if count > self.data.len() - self.at {
            return Err(CodecError::Corrupt(format!(
                "msgpack2: {count} items declared, {} bytes left",
                self.data.len() - self.at
            )));
        }
        Ok(count)
    }

    fn value(&mut self, depth: usize) -> Result<Value> {
        if depth > MAX_DEPTH {
            return Err(CodecError::Corrupt("msgpack2: nested too deep".into()));
        }
        let code = self.array::<1>()?[0];
        Ok(match code {
            0x00..=0x7f => Value::Int(i64::from(code)),
            0x80..=0x8f => self.map(usize::from(code & 0x0f), depth)?,
            0x90..=0x9f => self.items(usize::from(code & 0x0f), depth)?,
            0xa0..=0xbf => Value::Str(self.take(usize::from(code & 0x1f))?.to_vec()),
            0xc0 => Value::Nil,
            0xc2 => Value::Bool(false),
            0xc3 => Value::Bool(true),
            0xc4..=0xc6 => {
                let len = self.len(1 << (code - 0xc4))?;
                Value::Bin(self.take(len)?.to_vec())
            }
            0xca => Value::F32(f32::from_be_bytes(self.array()?)),
            0xcb => Value::F64(f64::from_be_bytes(self.array()?)),
            0xcc => Value::Int(i64::from(self.array::<1>()?[0])),
            0xcd => Value::Int(i64::from(u16::from_be_bytes(self.array()?))),
            0xce => Value::Int(i64::from(u32::from_be_bytes(self.array()?))),
            0xcf => Value::UInt(u64::from_be_bytes(self.array()?)),
            0xd0 => Value::Int(i64::from(i8::from_be_bytes(self.array()?))),
            0xd1 => Value::Int(i64::from(i16::from_be_bytes(self.array()?))),
            0xd2 => Value::Int(i64::from(i32::from_be_bytes(self.array()?))),
            0xd3 => Value::Int(i64::from_be_bytes(self.array()?)),
            0xd9..=0xdb => {
                let len = self.len(1 << (code - 0xd9))?;
                Value::Str(self.take(len)?.to_vec())
            }
            0xdc | 0xdd => {
                let count = self.count(if code == 0xdc { 2 } else { 4 })?;
                self.items(count, depth)?
            }
            0xde | 0xdf => {
                let count = self.count(if code == 0xde { 2 } else { 4 })?;
                self.map(count, depth)?
            }
            0xe0..=0xff => Value::Int(i64::from(i8::from_be_bytes([code]))),
            0xc7..=0xc9 | 0xd4..=0xd8 => {
                return Err(CodecError::Unsupported(
                    "msgpack2: extension types (numcodecs never writes them)".into(),
                ));
            }
            0xc1 => return Err(CodecError::Corrupt("msgpack2: unused type 0xc1".into())),
        })
    }

    fn items(&mut self, count: usize, depth: usize) -> Result<Value> {
        let mut items = Vec::with_capacity(count);
        for _ in 0..count {
            items.push(self.value(depth + 1)?);
        }
        Ok(Value::Array(items))
    }

    fn map(&mut self, count: usize, depth: usize) -> Result<Value> {
        let mut pairs = Vec::with_capacity(count);
        for _ in 0..count {
            let key = self.value(depth + 1)?;
            if !matches!(key, Value::Str(_) | Value::Bin(_)) {
                return Err(CodecError::Corrupt(format!(
                    "msgpack2: a map key of type {} (only strings and bytes are allowed)",
                    type_name(&key)
                )));
            }
            pairs.push((key, self.value(depth + 1)?));
        }
        Ok(Value::Map(pairs))
    }
}

fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Nil => "NoneType",
        Value::Bool(_) => "bool",
        Value::Int(_) | Value::UInt(_) => "int",
        Value::F32(_) | Value::F64(_) => "float",
        Value::Str(_) => "str",
        Value::Bin(_) => "bytes",
        Value::Array(_) => "list",
        Value::Map(_) => "dict",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packs_as_msgpack() -> Result<()> {
        // msgpack 1.1: packb(["ab", b"x", 1, 200, -1, -200, 70000, 2**63, 1.5, None, True],
        //                    use_bin_type=True)
        let value = Value::Array(vec![
            Value::Str(b"ab".to_vec()),
            Value::Bin(b"x".to_vec()),
            Value::Int(1),
            Value::Int(200),
            Value::Int(-1),
            Value::Int(-200),
            Value::Int(70000),
            Value::UInt(1 << 63),
            Value::F64(1.5),
            Value::Nil,
            Value::Bool(true),
        ]);
        let packed = pack(&value, Packing::default())?;
        let expected: Vec<u8> = [
            &[
                0x9b, 0xa2, b'a', b'b', 0xc4, 1, b'x', 1, 0xcc, 200, 0xff, 0xd1, 0xff, 0x38,
            ][..],
            &[0xce, 0, 1, 0x11, 0x70, 0xcf, 0x80, 0, 0, 0, 0, 0, 0, 0],
            &[0xcb, 0x3f, 0xf8, 0, 0, 0, 0, 0, 0, 0xc0, 0xc3],
        ]
        .concat();
        assert_eq!(packed, expected);
        assert_eq!(unpack(&packed)?, value);
        let raw = pack(
            &Value::Str(vec![b'a'; 40]),
            Packing {
                use_bin_type: false,
                use_single_float: false,
            },
        )?;
        assert_eq!(&raw[..3], &[0xda, 0, 40]);
        Ok(())
    }

    #[test]
    fn refuses_what_unpackb_refuses() {
        for bad in [
            &[0x92, 1][..],
            &[0xdd, 0xff, 0xff, 0xff, 0xff],
            &[0xc4, 5, 1],
            &[1, 2],
            &[0x81, 1, 2],
            &[0xc1],
            &[0xd4, 1, 1],
        ] {
            assert!(unpack(bad).is_err(), "{bad:?}");
        }
    }
}

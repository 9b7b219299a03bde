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
    let mut packer = Packer::new(packing);
    pack_into(value, &mut packer, 0)?;
    Ok(packer.finish())
}

fn too_long(what: &str, len: usize) -> CodecError {
    CodecError::out_of_range(format!("msgpack2: {what} of {len} is too large to pack"))
}

/// Values written one at a time as msgpack's packer writes them (each in its smallest form),
/// for callers that walk their own data (the wheel walks Python objects with it, no tree
/// between).
#[derive(Debug)]
pub struct Packer {
    out: Vec<u8>,
    packing: Packing,
}

impl Packer {
    /// An empty packer with `packing`'s options.
    #[must_use]
    pub fn new(packing: Packing) -> Self {
        Self {
            out: Vec::new(),
            packing,
        }
    }

    /// What was packed.
    #[must_use]
    pub fn finish(self) -> Vec<u8> {
        self.out
    }

    /// `nil`.
    pub fn nil(&mut self) {
        self.out.push(0xc0);
    }

    /// `true` or `false`.
    pub fn bool(&mut self, flag: bool) {
        self.out.push(if flag { 0xc3 } else { 0xc2 });
    }

    /// A signed integer.
    pub fn int(&mut self, number: i64) {
        pack_int(number, &mut self.out);
    }

    /// An unsigned integer.
    pub fn uint(&mut self, number: u64) {
        if let Ok(signed) = i64::try_from(number) {
            pack_int(signed, &mut self.out);
        } else {
            self.out.push(0xcf);
            self.out.extend(number.to_be_bytes());
        }
    }

    /// A float stored in 32 bits as it is.
    pub fn f32(&mut self, number: f32) {
        self.out.push(0xca);
        self.out.extend(number.to_be_bytes());
    }

    /// A float: 64 bits, or 32 with `use_single_float` (`OutOfRange` where a finite value
    /// does not fit, as msgpack refuses it).
    pub fn f64(&mut self, number: f64) -> Result<()> {
        if self.packing.use_single_float {
            #[allow(clippy::cast_possible_truncation)] // msgpack's C cast, by design
            let single = number as f32;
            if single.is_infinite() && number.is_finite() {
                return Err(CodecError::out_of_range(format!(
                    "msgpack2: float too large to pack with f format: {number}"
                )));
            }
            self.f32(single);
        } else {
            self.out.push(0xcb);
            self.out.extend(number.to_be_bytes());
        }
        Ok(())
    }

    /// A string's UTF-8 bytes.
    pub fn str(&mut self, bytes: &[u8]) -> Result<()> {
        let str8 = if self.packing.use_bin_type { 0xd9 } else { 0 };
        self.header(bytes.len(), Some((32, 0xa0)), [str8, 0xda, 0xdb])?;
        self.out.extend(bytes);
        Ok(())
    }

    /// Bytes (`bin` with `use_bin_type`, else the older raw string types).
    pub fn bin(&mut self, bytes: &[u8]) -> Result<()> {
        if self.packing.use_bin_type {
            self.header(bytes.len(), None, [0xc4, 0xc5, 0xc6])?;
        } else {
            self.header(bytes.len(), Some((32, 0xa0)), [0, 0xda, 0xdb])?;
        }
        self.out.extend(bytes);
        Ok(())
    }

    /// The header of an array of `len` items (the items follow).
    pub fn array(&mut self, len: usize) -> Result<()> {
        self.header(len, Some((16, 0x90)), [0, 0xdc, 0xdd])
    }

    /// The header of a map of `len` pairs (each key, then its value, follows).
    pub fn map(&mut self, len: usize) -> Result<()> {
        self.header(len, Some((16, 0x80)), [0, 0xde, 0xdf])
    }

    fn header(&mut self, len: usize, small: Option<(usize, u8)>, codes: [u8; 3]) -> Result<()> {
        // `small`: the fix type's limit and prefix; `codes`: the 8-, 16- and 32-bit forms (0:
        // none).
        let out = &mut self.out;
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
}

fn pack_into(value: &Value, packer: &mut Packer, depth: usize) -> Result<()> {
    if depth > MAX_DEPTH {
        return Err(CodecError::Unsupported(
            "msgpack2: recursion limit exceeded".into(),
        ));
    }
    match value {
        Value::Nil => packer.nil(),
        Value::Bool(flag) => packer.bool(*flag),
        Value::Int(number) => packer.int(*number),
        Value::UInt(number) => packer.uint(*number),
        Value::F32(number) => packer.f32(*number),
        Value::F64(number) => packer.f64(*number)?,
        Value::Str(bytes) => packer.str(bytes)?,
        Value::Bin(bytes) => packer.bin(bytes)?,
        Value::Array(items) => {
            packer.array(items.len())?;
            for item in items {
                pack_into(item, packer, depth + 1)?;
            }
        }
        Value::Map(pairs) => {
            packer.map(pairs.len())?;
            for (key, item) in pairs {
                pack_into(key, packer, depth + 1)?;
                pack_into(item, packer, depth + 1)?;
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
    unpack_with(data, &mut ValueBuilder)
}

/// What an unpacker makes of what it reads, value by value (the wheel makes Python objects,
/// no tree between).
pub trait Build {
    /// What one value becomes.
    type Out;
    /// `nil`.
    fn nil(&mut self) -> Result<Self::Out>;
    /// `true` or `false`.
    fn bool(&mut self, flag: bool) -> Result<Self::Out>;
    /// A signed integer (and every unsigned one that fits it).
    fn int(&mut self, number: i64) -> Result<Self::Out>;
    /// An unsigned integer beyond `i64`.
    fn uint(&mut self, number: u64) -> Result<Self::Out>;
    /// A float (a 32-bit one widened).
    fn float(&mut self, number: f64) -> Result<Self::Out>;
    /// A string's bytes as stored (UTF-8 when the packer was right).
    fn str(&mut self, bytes: &[u8]) -> Result<Self::Out>;
    /// Bytes.
    fn bin(&mut self, bytes: &[u8]) -> Result<Self::Out>;
    /// An array of what its items became.
    fn array(&mut self, items: Vec<Self::Out>) -> Result<Self::Out>;
    /// A map's pairs in order (keys: strings or bytes).
    fn map(&mut self, pairs: Vec<(Self::Out, Self::Out)>) -> Result<Self::Out>;
}

/// [`unpack`], each value made by `builder`.
pub fn unpack_with<B: Build>(data: &[u8], builder: &mut B) -> Result<B::Out> {
    let mut reader = Reader { data, at: 0 };
    let value = reader.value(0, builder)?;
    if reader.at != data.len() {
        return Err(CodecError::Corrupt(format!(
            "msgpack2: {} bytes after the value",
            data.len() - reader.at
        )));
    }
    Ok(value)
}

/// The builder of [`Value`]s.
struct ValueBuilder;

impl Build for ValueBuilder {
    type Out = Value;
    fn nil(&mut self) -> Result<Value> {
        Ok(Value::Nil)
    }
    fn bool(&mut self, flag: bool) -> Result<Value> {
        Ok(Value::Bool(flag))
    }
    fn int(&mut self, number: i64) -> Result<Value> {
        Ok(Value::Int(number))
    }
    fn uint(&mut self, number: u64) -> Result<Value> {
        Ok(Value::UInt(number))
    }
    fn float(&mut self, number: f64) -> Result<Value> {
        Ok(Value::F64(number))
    }
    fn str(&mut self, bytes: &[u8]) -> Result<Value> {
        Ok(Value::Str(bytes.to_vec()))
    }
    fn bin(&mut self, bytes: &[u8]) -> Result<Value> {
        Ok(Value::Bin(bytes.to_vec()))
    }
    fn array(&mut self, items: Vec<Value>) -> Result<Value> {
        Ok(Value::Array(items))
    }
    fn map(&mut self, pairs: Vec<(Value, Value)>) -> Result<Value> {
        Ok(Value::Map(pairs))
    }
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

    fn value<B: Build>(&mut self, depth: usize, b: &mut B) -> Result<B::Out> {
        if depth > MAX_DEPTH {
            return Err(CodecError::Corrupt("msgpack2: nested too deep".into()));
        }
        let code = self.array::<1>()?[0];
        match code {
            0x00..=0x7f => b.int(i64::from(code)),
            0x80..=0x8f => self.map(usize::from(code & 0x0f), depth, b),
            0x90..=0x9f => self.items(usize::from(code & 0x0f), depth, b),
            0xa0..=0xbf => {
                let bytes = self.take(usize::from(code & 0x1f))?;
                b.str(bytes)
            }
            0xc0 => b.nil(),
            0xc2 => b.bool(false),
            0xc3 => b.bool(true),
            0xc4..=0xc6 => {
                let len = self.len(1 << (code - 0xc4))?;
                let bytes = self.take(len)?;
                b.bin(bytes)
            }
            0xca => b.float(f64::from(f32::from_be_bytes(self.array()?))),
            0xcb => b.float(f64::from_be_bytes(self.array()?)),
            0xcc => b.int(i64::from(self.array::<1>()?[0])),
            0xcd => b.int(i64::from(u16::from_be_bytes(self.array()?))),
            0xce => b.int(i64::from(u32::from_be_bytes(self.array()?))),
            0xcf => {
                let number = u64::from_be_bytes(self.array()?);
                match i64::try_from(number) {
                    Ok(signed) => b.int(signed),
                    Err(_) => b.uint(number),
                }
            }
            0xd0 => b.int(i64::from(i8::from_be_bytes(self.array()?))),
            0xd1 => b.int(i64::from(i16::from_be_bytes(self.array()?))),
            0xd2 => b.int(i64::from(i32::from_be_bytes(self.array()?))),
            0xd3 => b.int(i64::from_be_bytes(self.array()?)),
            0xd9..=0xdb => {
                let len = self.len(1 << (code - 0xd9))?;
                let bytes = self.take(len)?;
                b.str(bytes)
            }
            0xdc | 0xdd => {
                let count = self.count(if code == 0xdc { 2 } else { 4 })?;
                self.items(count, depth, b)
            }
            0xde | 0xdf => {
                let count = self.count(if code == 0xde { 2 } else { 4 })?;
                self.map(count, depth, b)
            }
            0xe0..=0xff => b.int(i64::from(i8::from_be_bytes([code]))),
            0xc7..=0xc9 | 0xd4..=0xd8 => Err(CodecError::Unsupported(
                "msgpack2: extension types (numcodecs never writes them)".into(),
            )),
            0xc1 => Err(CodecError::Corrupt("msgpack2: unused type 0xc1".into())),
        }
    }

    fn items<B: Build>(&mut self, count: usize, depth: usize, b: &mut B) -> Result<B::Out> {
        let mut items = Vec::with_capacity(count);
        for _ in 0..count {
            items.push(self.value(depth + 1, b)?);
        }
        b.array(items)
    }

    fn map<B: Build>(&mut self, count: usize, depth: usize, b: &mut B) -> Result<B::Out> {
        let mut pairs = Vec::with_capacity(count);
        for _ in 0..count {
            // msgpack's strict_map_key: strings and bytes only.
            let code = *self
                .data
                .get(self.at)
                .ok_or_else(|| CodecError::Corrupt("msgpack2: truncated data".into()))?;
            if !matches!(code, 0xa0..=0xbf | 0xd9..=0xdb | 0xc4..=0xc6) {
                return Err(CodecError::Corrupt(format!(
                    "msgpack2: a map key of type {} (only strings and bytes are allowed)",
                    type_name(code)
                )));
            }
            let key = self.value(depth + 1, b)?;
            pairs.push((key, self.value(depth + 1, b)?));
        }
        b.map(pairs)
    }
}

/// The Python type name a msgpack type code reads as.
fn type_name(code: u8) -> &'static str {
    match code {
        0xc0 => "NoneType",
        0xc2 | 0xc3 => "bool",
        0xca | 0xcb => "float",
        0x80..=0x8f | 0xde | 0xdf => "dict",
        0x90..=0x9f | 0xdc | 0xdd => "list",
        _ => "int",
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

//! The zfp 1.0.1 C API this crate calls (vendored in `zfp/`, built by `build.rs`), behind safe
//! functions: every object is freed by a guard, values are read and written through aligned
//! copies, and streams are read by the vendored bit reader, which (one change to zfp, see
//! `zfp/ZARR-CODECS.md`) never reads past its buffer and counts the words asked for beyond it:
//! a stream that needed any is corrupt.

use std::ffi::{c_int, c_uint, c_void};

use zarr_codec_shapes::{CodecError, Result};

use crate::Setting;

/// `ZFP_HEADER_FULL`: magic, field metadata and compression mode.
const HEADER_FULL: c_uint = 0x7;

/// zfp's scalar types (`zfp_type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `zfp_type_int32`.
    Int32 = 1,
    /// `zfp_type_int64`.
    Int64 = 2,
    /// `zfp_type_float`.
    Float = 3,
    /// `zfp_type_double`.
    Double = 4,
}

impl Kind {
    fn size(self) -> usize {
        match self {
            Self::Int32 | Self::Float => 4,
            Self::Int64 | Self::Double => 8,
        }
    }

    fn from_c(value: c_int) -> Option<Self> {
        Some(match value {
            1 => Self::Int32,
            2 => Self::Int64,
            3 => Self::Float,
            4 => Self::Double,
            _ => return None,
        })
    }
}

#[allow(non_camel_case_types)]
type zfp_stream = c_void;
#[allow(non_camel_case_types)]
type zfp_field = c_void;
#[allow(non_camel_case_types)]
type bitstream = c_void;

unsafe extern "C" {
    fn zfp_stream_open(stream: *mut bitstream) -> *mut zfp_stream;
    fn zfp_stream_close(zfp: *mut zfp_stream);
    fn zfp_stream_set_bit_stream(zfp: *mut zfp_stream, stream: *mut bitstream);
    fn zfp_stream_rewind(zfp: *mut zfp_stream);
    fn zfp_stream_set_reversible(zfp: *mut zfp_stream);
    fn zfp_stream_set_rate(
        zfp: *mut zfp_stream,
        rate: f64,
        kind: c_int,
        dims: c_uint,
        align: c_int,
    ) -> f64;
    fn zfp_stream_set_precision(zfp: *mut zfp_stream, precision: c_uint) -> c_uint;
    fn zfp_stream_set_accuracy(zfp: *mut zfp_stream, tolerance: f64) -> f64;
    #[cfg(test)]
    fn zfp_stream_set_params(
        zfp: *mut zfp_stream,
        minbits: c_uint,
        maxbits: c_uint,
        maxprec: c_uint,
        minexp: c_int,
    ) -> c_int;
    fn zfp_stream_maximum_size(zfp: *const zfp_stream, field: *const zfp_field) -> usize;
    fn zfp_field_alloc() -> *mut zfp_field;
    fn zfp_field_1d(pointer: *mut c_void, kind: c_int, nx: usize) -> *mut zfp_field;
    fn zfp_field_2d(pointer: *mut c_void, kind: c_int, nx: usize, ny: usize) -> *mut zfp_field;
    fn zfp_field_3d(
        pointer: *mut c_void,
        kind: c_int,
        nx: usize,
        ny: usize,
        nz: usize,
    ) -> *mut zfp_field;
    fn zfp_field_4d(
        pointer: *mut c_void,
        kind: c_int,
        nx: usize,
        ny: usize,
        nz: usize,
        nw: usize,
    ) -> *mut zfp_field;
    fn zfp_field_free(field: *mut zfp_field);
    fn zfp_field_set_pointer(field: *mut zfp_field, pointer: *mut c_void);
    fn zfp_field_type(field: *const zfp_field) -> c_int;
    fn zfp_field_dimensionality(field: *const zfp_field) -> c_uint;
    fn zfp_field_size(field: *const zfp_field, size: *mut usize) -> usize;
    fn zfp_write_header(zfp: *mut zfp_stream, field: *const zfp_field, mask: c_uint) -> usize;
    fn zfp_read_header(zfp: *mut zfp_stream, field: *mut zfp_field, mask: c_uint) -> usize;
    fn zfp_compress(zfp: *mut zfp_stream, field: *const zfp_field) -> usize;
    fn zfp_decompress(zfp: *mut zfp_stream, field: *mut zfp_field) -> usize;
    fn stream_open(buffer: *mut c_void, bytes: usize) -> *mut bitstream;
    fn stream_close(stream: *mut bitstream);
    fn stream_overrun(stream: *const bitstream) -> usize;
}

/// A zfp stream over a bit stream over `words`, each freed when dropped (the bit stream
/// after the zfp stream that uses it).
struct Stream {
    zfp: *mut zfp_stream,
    bits: *mut bitstream,
}

impl Stream {
    /// A stream reading and writing `words` (which must outlive it).
    fn over(words: &mut [u64]) -> Result<Self> {
        let bytes = std::mem::size_of_val(words);
        // SAFETY: `words` is valid for reads and writes of `bytes` bytes, 8-byte aligned as
        // zfp's 64-bit stream words need, and outlives the stream (the caller keeps it).
        let bits = unsafe { stream_open(words.as_mut_ptr().cast(), bytes) };
        if bits.is_null() {
            return Err(CodecError::out_of_range(
                "zfpy: zfp could not open a bit stream",
            ));
        }
        // SAFETY: `bits` is the bit stream just opened.
        let zfp = unsafe { zfp_stream_open(bits) };
        if zfp.is_null() {
            // SAFETY: opened above, not yet closed.
            unsafe { stream_close(bits) };
            return Err(CodecError::out_of_range(
                "zfpy: zfp could not open a stream",
            ));
        }
        // SAFETY: a stream just opened over `bits`.
        unsafe { zfp_stream_rewind(zfp) };
        Ok(Self { zfp, bits })
    }
}

impl Stream {
    /// Whether any read asked for words past the buffer's end (a stream cut short).
    fn overran(&self) -> bool {
        // SAFETY: a live bit stream.
        unsafe { stream_overrun(self.bits) > 0 }
    }
}

impl Drop for Stream {
    fn drop(&mut self) {
        // SAFETY: both were opened by `over` and are closed once, the zfp stream first.
        unsafe {
            zfp_stream_close(self.zfp);
            stream_close(self.bits);
        }
    }
}

/// A field's metadata, freed when dropped.
struct Field(*mut zfp_field);

impl Field {
    /// An empty field, for a header to fill.
    fn empty() -> Result<Self> {
        // SAFETY: allocation only.
        let field = unsafe { zfp_field_alloc() };
        if field.is_null() {
            return Err(CodecError::out_of_range(
                "zfpy: zfp could not allocate a field",
            ));
        }
        Ok(Self(field))
    }

    /// The field of a C-order array of `shape` (one to four dimensions) at `pointer`.
    fn of(pointer: *mut c_void, kind: Kind, shape: &[usize]) -> Result<Self> {
        let kind = kind as c_int;
        // SAFETY: zfp only records the pointer and sizes; the callers keep the memory valid
        // for the field's use. zfp's x is the fastest-varying (last C) dimension.
        let field = unsafe {
            match *shape {
                [nx] => zfp_field_1d(pointer, kind, nx),
                [ny, nx] => zfp_field_2d(pointer, kind, nx, ny),
                [nz, ny, nx] => zfp_field_3d(pointer, kind, nx, ny, nz),
                [nw, nz, ny, nx] => zfp_field_4d(pointer, kind, nx, ny, nz, nw),
                _ => {
                    return Err(CodecError::unsupported(format!(
                        "zfpy: arrays of {} dimensions (zfp takes one to four)",
                        shape.len()
                    )));
                }
            }
        };
        if field.is_null() {
            return Err(CodecError::out_of_range(
                "zfpy: zfp could not allocate a field",
            ));
        }
        Ok(Self(field))
    }

    /// Its type and shape (C order), as a header states them.
    fn described(&self) -> Result<(Kind, Vec<usize>)> {
        // SAFETY: a live field; `size` has room for the four sizes zfp writes.
        let (kind, dims, sizes) = unsafe {
            let mut sizes = [0usize; 4];
            zfp_field_size(self.0, sizes.as_mut_ptr());
            (
                zfp_field_type(self.0),
                zfp_field_dimensionality(self.0),
                sizes,
            )
        };
        let kind = Kind::from_c(kind)
            .ok_or_else(|| CodecError::corrupt("zfpy: the header names no scalar type"))?;
        let dims = usize::try_from(dims).unwrap_or(0).min(4);
        if dims == 0 {
            return Err(CodecError::corrupt("zfpy: the header states no dimensions"));
        }
        Ok((kind, sizes[..dims].iter().rev().copied().collect()))
    }
}

impl Drop for Field {
    fn drop(&mut self) {
        // SAFETY: allocated by zfp, freed once.
        unsafe { zfp_field_free(self.0) };
    }
}

/// zfpy's setting of the stream's mode (`_set_compression_mode`, with zfpy's own arguments:
/// the type none and no alignment in fixed-rate mode).
fn configure(stream: &Stream, setting: Setting, dims: usize) {
    let dims = c_uint::try_from(dims).unwrap_or(1);
    // SAFETY: a live stream; these only set its parameters.
    unsafe {
        match setting {
            Setting::Accuracy(tolerance) => {
                zfp_stream_set_accuracy(stream.zfp, tolerance);
            }
            Setting::Rate(rate) => {
                zfp_stream_set_rate(stream.zfp, rate, 0, dims, 0);
            }
            Setting::Precision(precision) => {
                zfp_stream_set_precision(stream.zfp, precision);
            }
            Setting::Reversible => zfp_stream_set_reversible(stream.zfp),
        }
    }
}

/// 8-byte aligned words holding `bytes`, then `extra` zero words.
fn words_of(bytes: &[u8], extra: usize) -> Vec<u64> {
    let mut words = vec![0u64; bytes.len().div_ceil(8) + extra];
    // SAFETY: `words` holds at least `bytes.len()` bytes; any bytes are valid words.
    let target =
        unsafe { std::slice::from_raw_parts_mut(words.as_mut_ptr().cast::<u8>(), bytes.len()) };
    target.copy_from_slice(bytes);
    words
}

/// The most bytes a stream of an array of `kind` and `shape` takes with `setting`.
pub fn maximum_size(kind: Kind, shape: &[usize], setting: Setting) -> Option<usize> {
    let field = Field::of(std::ptr::null_mut(), kind, shape).ok()?;
    let mut words = [0u64; 1];
    let stream = Stream::over(&mut words).ok()?;
    configure(&stream, setting, shape.len());
    // SAFETY: a live stream and field.
    let size = unsafe { zfp_stream_maximum_size(stream.zfp, field.0) };
    (size > 0).then_some(size)
}

/// `input` (the element bytes of a C-order array of `kind` and `shape`) as one stream with
/// its full header, as zfpy's `compress_numpy(..., write_header=True)` writes it.
pub fn compress(input: &[u8], kind: Kind, shape: &[usize], setting: Setting) -> Result<Vec<u8>> {
    let mut values = words_of(input, 0); // an aligned copy zfp reads the values from
    let field = Field::of(values.as_mut_ptr().cast(), kind, shape)?;
    let size = maximum_size(kind, shape, setting)
        .ok_or_else(|| CodecError::configuration("zfpy: zfp cannot compress with this setting"))?;
    let mut words = vec![0u64; size.div_ceil(8) + 1];
    let stream = Stream::over(&mut words)?;
    configure(&stream, setting, shape.len());
    // SAFETY: a live stream over `words` (room for zfp's maximum size) and a field over
    // `values` (the array's values, aligned); both outlive these calls.
    let written = unsafe {
        zfp_stream_set_bit_stream(stream.zfp, stream.bits);
        zfp_stream_rewind(stream.zfp);
        if zfp_write_header(stream.zfp, field.0, HEADER_FULL) == 0 {
            return Err(CodecError::configuration(
                "zfpy: zfp could not write its header",
            ));
        }
        zfp_compress(stream.zfp, field.0)
    };
    drop(stream);
    if written == 0 || written > size {
        return Err(CodecError::configuration(
            "zfpy: zfp could not compress the array",
        ));
    }
    // SAFETY: `words` holds at least `size >= written` bytes, all initialised.
    let bytes = unsafe { std::slice::from_raw_parts(words.as_ptr().cast::<u8>(), written) };
    Ok(bytes.to_vec())
}

/// The type and shape (C order) a stream's full header states.
pub fn header(input: &[u8]) -> Result<(Kind, Vec<usize>)> {
    let mut words = words_of(input, 0);
    let (_stream, field) = opened(&mut words, input.len())?;
    field.described()
}

/// A stream over `words` (a copy of an input of `len` bytes) with its full header read into
/// a new field.
fn opened(words: &mut [u64], len: usize) -> Result<(Stream, Field)> {
    let stream = Stream::over(words)?;
    let field = Field::empty()?;
    // SAFETY: a live stream over `words` and a field; reads stop at the end of `words`.
    let read = unsafe { zfp_read_header(stream.zfp, field.0, HEADER_FULL) };
    if read == 0 || stream.overran() {
        return Err(CodecError::corrupt(format!(
            "zfpy: not a zfp stream with a full header ({len} bytes)"
        )));
    }
    Ok((stream, field))
}

/// A stream decoded into `out`: its header must state `expected` (type and C-order shape)
/// where given, and `out` hold exactly its values.
pub fn decompress(input: &[u8], expected: Option<(Kind, &[usize])>, out: &mut [u8]) -> Result<()> {
    let mut words = words_of(input, 0);
    let (stream, field) = opened(&mut words, input.len())?;
    let (kind, shape) = field.described()?;
    if let Some((want_kind, want_shape)) = expected
        && (kind != want_kind || shape != want_shape)
    {
        return Err(CodecError::corrupt(format!(
            "zfpy: the stream holds a {shape:?} array of zfp type {kind:?}, the chunk is a \
             {want_shape:?} array of {want_kind:?}"
        )));
    }
    let len = shape.iter().product::<usize>() * kind.size();
    if len != out.len() {
        return Err(CodecError::OutputSize {
            expected: len,
            actual: out.len(),
        });
    }
    // Values are written in place where `out` is aligned for them, else through aligned
    // scratch copied out after.
    let direct = out.as_ptr().align_offset(kind.size()) == 0;
    let mut scratch = if direct {
        Vec::new()
    } else {
        vec![0u64; len.div_ceil(8)]
    };
    let target: *mut c_void = if direct {
        out.as_mut_ptr().cast()
    } else {
        scratch.as_mut_ptr().cast()
    };
    // SAFETY: the field's header (type and shape) was checked above to describe exactly
    // `len` bytes of values, which `target` holds (`out`, aligned for them, or the scratch
    // words); the stream reads stop at the end of `words`.
    let consumed = unsafe {
        zfp_field_set_pointer(field.0, target);
        zfp_decompress(stream.zfp, field.0)
    };
    if consumed == 0 {
        return Err(CodecError::corrupt("zfpy: zfp could not decode the stream"));
    }
    // zfp writes whole 64-bit words: a stream whose last word is not all there, or that
    // asked for words beyond it, is cut short.
    if stream.overran() || consumed > input.len() {
        return Err(CodecError::corrupt(format!(
            "zfpy: the stream is cut short ({} bytes, {consumed} read)",
            input.len()
        )));
    }
    if !direct {
        // SAFETY: the scratch holds `len` initialised bytes (rounded up to words).
        let bytes = unsafe { std::slice::from_raw_parts(scratch.as_ptr().cast::<u8>(), len) };
        out.copy_from_slice(bytes);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A stream in zfp's expert mode whose blocks take `bits` each, as numcodecs never writes.
    fn expert_stream(values: &mut [f64], bits: c_uint) -> Vec<u8> {
        let field =
            Field::of(values.as_mut_ptr().cast(), Kind::Double, &[values.len()]).expect("a field");
        let mut words = vec![0u64; 1 << 16];
        let stream = Stream::over(&mut words).expect("a stream");
        // SAFETY: live stream and field over live memory, as in `compress`.
        let written = unsafe {
            zfp_stream_set_params(stream.zfp, bits, bits, 64, -1074);
            zfp_write_header(stream.zfp, field.0, HEADER_FULL);
            zfp_compress(stream.zfp, field.0)
        };
        drop(stream);
        assert!(written > 0);
        let bytes =
            // SAFETY: `words` holds at least `written` initialised bytes.
            unsafe { std::slice::from_raw_parts(words.as_ptr().cast::<u8>(), written) };
        bytes.to_vec()
    }

    #[test]
    fn any_valid_stream_decodes_and_a_cut_one_is_refused() {
        let mut values = [1.5f64; 8];
        let mut out = [0u8; 64];
        for bits in [200, 16_000] {
            // Expert mode, as other writers (zarrs) may use: decodes whatever its block size.
            let stream = expert_stream(&mut values, bits);
            decompress(&stream, Some((Kind::Double, &[8])), &mut out).expect("decodes");
            let cut = &stream[..stream.len() / 2];
            let refused = decompress(cut, Some((Kind::Double, &[8])), &mut out);
            assert!(matches!(refused, Err(CodecError::Corrupt(ref m)) if m.contains("cut")));
        }
    }
}

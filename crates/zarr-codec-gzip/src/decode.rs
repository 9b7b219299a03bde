//! Decoding: every member of a gzip stream, checked, into a growing `Vec` or a fixed buffer.
//!
//! Accepts what Python's `gzip.decompress` accepts: empty input, any number of members, and
//! zero bytes between and after members. Every member's CRC-32 and ISIZE are checked. Output
//! never grows past the caller's buffer or limit, so a decompression bomb fails after writing
//! at most that many bytes.

use std::mem::MaybeUninit;

use zarr_codec_shapes::codec::as_uninit_mut;
use zarr_codec_shapes::{CodecError, Result};

use crate::engine::{Container, Inflated, adler32, crc32, inflate};
use crate::header::{TRAILER_LEN, header_len, trailer};

/// Deflate cannot expand one input byte to more than 1032 output bytes (a 258-byte match in
/// two bits); capacity beyond this bound is never needed.
const MAX_RATIO: usize = 1032;
/// The smallest capacity tried when growing after a wrong guess.
const MIN_GROWTH: usize = 64 * 1024;

/// Where decoded bytes go.
pub(crate) trait Sink {
    /// Bytes decoded so far.
    fn len(&self) -> usize;
    /// The bytes decoded from position `from` on.
    fn written(&self, from: usize) -> &[u8];
    /// Inflate one member body, growing as needed; `hint` is the member's expected decoded
    /// size, if known. Returns the number of input bytes consumed.
    fn inflate_member(&mut self, body: &[u8], hint: Option<usize>) -> Result<usize>;
}

/// A `Vec` that grows up to `limit` bytes.
pub(crate) struct Growable {
    pub(crate) out: Vec<u8>,
    pub(crate) limit: usize,
}

impl Sink for Growable {
    fn len(&self) -> usize {
        self.out.len()
    }

    fn written(&self, from: usize) -> &[u8] {
        &self.out[from..]
    }

    fn inflate_member(&mut self, body: &[u8], hint: Option<usize>) -> Result<usize> {
        let start = self.out.len();
        let room = self.limit.saturating_sub(start);
        let ceiling = room.min(body.len().saturating_mul(MAX_RATIO).saturating_add(258));
        let mut capacity = hint.unwrap_or(body.len().saturating_mul(4)).min(ceiling);
        loop {
            self.out.reserve_exact(capacity);
            let spare = &mut self.out.spare_capacity_mut()[..capacity];
            match inflate(body, spare)? {
                Inflated::Done { consumed, written } => {
                    // SAFETY: on success libdeflate initialised the first `written` bytes of
                    // the spare capacity, right after the current length.
                    unsafe { self.out.set_len(start + written) };
                    return Ok(consumed);
                }
                Inflated::OutputFull if capacity < ceiling => {
                    capacity = capacity.saturating_mul(2).max(MIN_GROWTH).min(ceiling);
                }
                Inflated::OutputFull if capacity < room => {
                    return Err(CodecError::corrupt(
                        "gzip: deflate data expands beyond what deflate can encode",
                    ));
                }
                Inflated::OutputFull => return Err(CodecError::OutputLimit { limit: self.limit }),
            }
        }
    }
}

/// The caller's buffer: never written past its end. Its first `len` bytes are initialised
/// (libdeflate wrote them); the rest may not be.
pub(crate) struct Fixed<'a> {
    pub(crate) out: &'a mut [MaybeUninit<u8>],
    pub(crate) len: usize,
}

impl Sink for Fixed<'_> {
    fn len(&self) -> usize {
        self.len
    }

    fn written(&self, from: usize) -> &[u8] {
        let written = &self.out[from..self.len];
        // SAFETY: bytes below `len` were initialised by libdeflate (see the struct docs).
        unsafe { &*(std::ptr::from_ref(written) as *const [u8]) }
    }

    fn inflate_member(&mut self, body: &[u8], _hint: Option<usize>) -> Result<usize> {
        let spare = &mut self.out[self.len..];
        match inflate(body, spare)? {
            Inflated::Done { consumed, written } => {
                self.len += written;
                Ok(consumed)
            }
            Inflated::OutputFull => {
                // libdeflate also says "full" for a body cut short whose decoded bytes fill
                // the buffer exactly: a little more room tells that apart from output that
                // really does not fit (the error path only pays for it).
                let room = spare.len().saturating_add(PROBE_ROOM);
                let ceiling = body.len().saturating_mul(MAX_RATIO).saturating_add(258);
                let mut probe = Vec::new();
                probe.try_reserve_exact(room.min(ceiling)).map_err(|_| {
                    CodecError::OutputLimit {
                        limit: self.out.len(),
                    }
                })?;
                match inflate(body, &mut probe.spare_capacity_mut()[..room.min(ceiling)])? {
                    Inflated::Done { .. } | Inflated::OutputFull => Err(CodecError::OutputLimit {
                        limit: self.out.len(),
                    }),
                }
            }
        }
    }
}

/// The room beyond a full buffer that tells a truncated stream (an error decoding with it)
/// from a longer output (decoded, or full again).
const PROBE_ROOM: usize = 64 * 1024;

/// The decoded size of a single-member stream, read from its ISIZE trailer; `None` when
/// the input is too short or the claim exceeds what deflate could produce from it.
///
/// Only a hint: a multi-member or padded stream has a different size, and a lying trailer is
/// caught by decoding. It lets a caller allocate the output once, exactly.
pub fn decoded_size_hint(input: &[u8]) -> Option<usize> {
    let tail = input.len().checked_sub(4).and_then(|at| input.get(at..))?;
    let size = u32::from_le_bytes(<[u8; 4]>::try_from(tail).ok()?) as usize;
    (size <= input.len().saturating_mul(MAX_RATIO).saturating_add(258)).then_some(size)
}

/// Decode every member of `input` into `sink`.
fn decode_members(input: &[u8], sink: &mut impl Sink) -> Result<()> {
    let mut rest = input;
    // The stored ISIZE of the last member is the whole output for a single-member stream:
    // a good first guess for the buffer (never trusted beyond the deflate bound).
    let mut hint = decoded_size_hint(input);
    while !rest.is_empty() {
        let body = &rest[header_len(rest)?..];
        let start = sink.len();
        let consumed = sink.inflate_member(body, hint.take())?;
        let (stored_crc, stored_size) = trailer(&body[consumed..])?;
        let member = sink.written(start);
        let crc = crc32(member);
        if crc != stored_crc {
            return Err(CodecError::corrupt(format!(
                "gzip: CRC-32 mismatch (stored {stored_crc:#010x}, data has {crc:#010x})"
            )));
        }
        // ISIZE is the size modulo 2^32; truncating is the definition.
        #[allow(clippy::cast_possible_truncation)]
        let size = member.len() as u32;
        if size != stored_size {
            return Err(CodecError::corrupt(format!(
                "gzip: ISIZE mismatch (stored {stored_size}, data has {size} mod 2^32)"
            )));
        }
        rest = &body[consumed + TRAILER_LEN..];
        let padding = rest.iter().take_while(|&&b| b == 0).count();
        rest = &rest[padding..];
    }
    Ok(())
}

/// Decode a whole gzip stream, allocating at most `limit` bytes of output (`None`: no limit
/// beyond what deflate can express).
pub fn decode(input: &[u8], limit: Option<usize>) -> Result<Vec<u8>> {
    Container::Gzip.decode(input, limit)
}

/// Decode a whole gzip stream into `out`; returns the decoded length. Output that would not
/// fit is [`CodecError::OutputLimit`], raised as soon as `out` is full.
pub fn decode_into(input: &[u8], out: &mut [u8]) -> Result<usize> {
    // SAFETY: viewing initialised bytes as `MaybeUninit` is sound as long as only initialised
    // values are written through the view, and libdeflate only writes bytes.
    let out = unsafe { as_uninit_mut(out) };
    decode_into_uninit(input, out)
}

/// [`decode_into`] for a buffer that need not be initialised (a fresh allocation): on
/// success its first `n` bytes are, where `n` is the returned length. Memory past what the
/// stream really decodes to is never touched, so a lying size claim costs nothing.
pub fn decode_into_uninit(input: &[u8], out: &mut [MaybeUninit<u8>]) -> Result<usize> {
    Container::Gzip.decode_into_uninit(input, out)
}

/// A zlib stream's header (RFC 1950: CMF, FLG).
const ZLIB_HEADER_LEN: usize = 2;
/// A zlib stream's trailer: the Adler-32 of the data.
const ZLIB_TRAILER_LEN: usize = 4;

/// The deflate body after a checked zlib header.
fn body(input: &[u8]) -> Result<&[u8]> {
    let [cmf, flg] = *input.get(..ZLIB_HEADER_LEN).unwrap_or_default() else {
        return Err(CodecError::corrupt(
            "zlib: a stream needs at least its 2-byte header",
        ));
    };
    if (u16::from(cmf) << 8 | u16::from(flg)) % 31 != 0 || cmf & 0x0f != 8 || cmf >> 4 > 7 {
        return Err(CodecError::corrupt(format!(
            "zlib: not a zlib stream (header {cmf:#04x} {flg:#04x})"
        )));
    }
    if flg & 0x20 != 0 {
        return Err(CodecError::corrupt(
            "zlib: the stream needs a preset dictionary, which numcodecs' zlib never uses",
        ));
    }
    Ok(&input[ZLIB_HEADER_LEN..])
}

/// Decode the stream of `input` into `sink` and check its Adler-32.
fn decode_zlib_stream(input: &[u8], sink: &mut impl Sink) -> Result<()> {
    let body = body(input)?;
    let consumed = sink.inflate_member(body, None)?;
    let trailer = body
        .get(consumed..consumed + ZLIB_TRAILER_LEN)
        .and_then(|t| <[u8; ZLIB_TRAILER_LEN]>::try_from(t).ok())
        .ok_or_else(|| CodecError::corrupt("zlib: the stream ends before its Adler-32"))?;
    let stored = u32::from_be_bytes(trailer);
    let computed = adler32(sink.written(0));
    if stored != computed {
        return Err(CodecError::corrupt(format!(
            "zlib: Adler-32 mismatch (stored {stored:#010x}, data has {computed:#010x})"
        )));
    }
    Ok(())
}

impl Container {
    /// Decode the stream(s) of `input` into `sink`, checked.
    fn decode_to(self, input: &[u8], sink: &mut impl Sink) -> Result<()> {
        match self {
            Self::Gzip => decode_members(input, sink),
            Self::Zlib => decode_zlib_stream(input, sink),
        }
    }

    /// Decode `input`, allocating at most `limit` bytes of output (`None`: no limit beyond
    /// what deflate can express).
    pub(crate) fn decode(self, input: &[u8], limit: Option<usize>) -> Result<Vec<u8>> {
        let mut sink = Growable {
            out: Vec::new(),
            limit: limit.unwrap_or(usize::MAX),
        };
        self.decode_to(input, &mut sink)?;
        Ok(sink.out)
    }

    /// Decode `input` into `out`, which need not be initialised; the decoded length.
    pub(crate) fn decode_into_uninit(
        self,
        input: &[u8],
        out: &mut [MaybeUninit<u8>],
    ) -> Result<usize> {
        let mut sink = Fixed { out, len: 0 };
        self.decode_to(input, &mut sink)?;
        Ok(sink.len())
    }
}

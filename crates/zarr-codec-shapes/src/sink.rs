//! Where a streaming decoder writes: a caller's buffer of fixed size ([`FixedSink`]), or a
//! vector grown up to a limit ([`GrowingSink`]). For formats that do not say how large they
//! decode (bzip2, xz), so that a decompression bomb stops at the limit, before the memory is
//! used. [`decode_stream`] drives one stream into a sink, [`decode_concatenated`] streams one
//! after another.

use std::mem::MaybeUninit;

use crate::CodecError;

/// Output for a streaming decoder.
pub trait Sink {
    /// Room for more output, about `wanted` bytes: empty at the limit (a stream may still end
    /// there without more output); `None` when the memory cannot be had.
    fn room(&mut self, wanted: usize) -> Option<&mut [MaybeUninit<u8>]>;
    /// Takes the first `count` bytes of the last room as written.
    ///
    /// # Safety
    /// Those bytes were initialised since [`room`](Self::room) returned it.
    unsafe fn advance(&mut self, count: usize);
    /// The bytes written so far.
    fn len(&self) -> usize;
    /// Whether nothing was written yet.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Forget everything after the first `len` bytes.
    fn truncate(&mut self, len: usize);
    /// The most bytes this sink takes.
    fn limit(&self) -> usize;
}

/// A caller's buffer.
pub struct FixedSink<'a> {
    out: &'a mut [MaybeUninit<u8>],
    len: usize,
}

impl<'a> FixedSink<'a> {
    /// An empty sink writing into `out`.
    pub fn new(out: &'a mut [MaybeUninit<u8>]) -> Self {
        Self { out, len: 0 }
    }
}

impl Sink for FixedSink<'_> {
    fn room(&mut self, _wanted: usize) -> Option<&mut [MaybeUninit<u8>]> {
        Some(&mut self.out[self.len..])
    }
    unsafe fn advance(&mut self, count: usize) {
        self.len = (self.len + count).min(self.out.len());
    }
    fn len(&self) -> usize {
        self.len
    }
    fn truncate(&mut self, len: usize) {
        self.len = self.len.min(len);
    }
    fn limit(&self) -> usize {
        self.out.len()
    }
}

/// A vector grown as the decoder asks, never past its limit.
pub struct GrowingSink {
    out: Vec<u8>,
    limit: usize,
}

impl GrowingSink {
    /// An empty sink that takes at most `limit` bytes (`None`: as many as memory holds).
    pub fn new(limit: Option<usize>) -> Self {
        Self {
            out: Vec::new(),
            limit: limit.unwrap_or(isize::MAX.unsigned_abs()),
        }
    }

    /// The bytes written.
    pub fn into_vec(self) -> Vec<u8> {
        self.out
    }
}

impl Sink for GrowingSink {
    fn room(&mut self, wanted: usize) -> Option<&mut [MaybeUninit<u8>]> {
        let left = self.limit - self.out.len();
        if left == 0 {
            return Some(&mut []);
        }
        let more = wanted.clamp(1, left);
        if self.out.try_reserve(more).is_err() {
            return None;
        }
        let spare = self.out.spare_capacity_mut();
        let usable = spare.len().min(left);
        Some(&mut spare[..usable])
    }
    unsafe fn advance(&mut self, count: usize) {
        let len = (self.out.len() + count).min(self.out.capacity());
        // SAFETY: the caller's contract: `count` bytes at the start of the spare capacity (the
        // last room) were initialised; the length never passes the capacity.
        unsafe { self.out.set_len(len) };
    }
    fn len(&self) -> usize {
        self.out.len()
    }
    fn truncate(&mut self, len: usize) {
        self.out.truncate(len);
    }
    fn limit(&self) -> usize {
        self.limit
    }
}

/// What one call of a streaming decoder did: input bytes taken, output bytes written into
/// the room it was given, and whether the stream's end was reached.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Step {
    /// Input bytes consumed.
    pub took: usize,
    /// Output bytes written at the start of the room.
    pub gave: usize,
    /// Whether the stream ended (its end marker was read).
    pub ended: bool,
}

/// Why one stream of a concatenation did not decode.
#[derive(Debug)]
pub enum StreamFailure {
    /// The bytes are not a stream of the format, or a damaged one (after a first stream,
    /// trailing bytes of this kind are ignored, as Python's `bz2` and `lzma` do).
    Invalid(CodecError),
    /// Anything else: a stream cut short, the output's limit, a refused configuration.
    Other(CodecError),
}

/// One stream of `input` decoded into `sink` by repeated calls of `step(rest_of_input, room)`
/// until the stream ends: the input bytes it took. When a call makes no progress, the output
/// is at its limit ([`CodecError::OutputLimit`]) or the input ends inside the stream
/// (`truncated`); where `ends_with_input` (formats with no end marker), the input's end is
/// the stream's end.
///
/// # Safety
/// Each `step` call initialises the first `gave` bytes of the room it is given.
pub unsafe fn decode_stream(
    input: &[u8],
    sink: &mut dyn Sink,
    ends_with_input: bool,
    truncated: impl Fn() -> CodecError,
    mut step: impl FnMut(&[u8], &mut [MaybeUninit<u8>]) -> Result<Step, StreamFailure>,
) -> Result<usize, StreamFailure> {
    let mut read = 0usize;
    let wanted = input.len().saturating_mul(4).max(1 << 16);
    loop {
        let limit = sink.limit();
        let room = sink
            .room(wanted)
            .ok_or(StreamFailure::Other(CodecError::OutputLimit { limit }))?;
        let room_len = room.len();
        let Step { took, gave, ended } = step(&input[read..], room)?;
        read += took;
        // SAFETY: the caller's contract: `step` initialised `gave` bytes of the room.
        unsafe { sink.advance(gave) };
        if ended {
            return Ok(read);
        }
        if took == 0 && gave == 0 {
            return Err(if room_len == 0 {
                StreamFailure::Other(CodecError::OutputLimit { limit })
            } else if ends_with_input && read >= input.len() {
                return Ok(read);
            } else {
                StreamFailure::Other(truncated())
            });
        }
    }
}

/// Streams one after another in `input` decoded into `sink` by `one(rest, sink)` (the input
/// bytes each took), as Python's `bz2.decompress` and `lzma.decompress` read them: bytes after
/// the first stream that are not a stream are ignored, what they wrote taken back. No bytes
/// at all decode to nothing where `empty_is_nothing`, else go to `one` (which refuses them).
pub fn decode_concatenated(
    input: &[u8],
    sink: &mut dyn Sink,
    empty_is_nothing: bool,
    mut one: impl FnMut(&[u8], &mut dyn Sink) -> Result<usize, StreamFailure>,
) -> crate::Result<()> {
    let mut rest = input;
    let mut first = true;
    while !rest.is_empty() || (first && !empty_is_nothing) {
        let start = sink.len();
        match one(rest, sink) {
            Ok(took) => rest = &rest[took..],
            Err(StreamFailure::Invalid(_)) if !first => {
                sink.truncate(start);
                return Ok(());
            }
            Err(StreamFailure::Invalid(err) | StreamFailure::Other(err)) => return Err(err),
        }
        first = false;
    }
    Ok(())
}

//! Where a streaming decoder writes: a caller's buffer of fixed size ([`FixedSink`]), or a
//! vector grown up to a limit ([`GrowingSink`]). For formats that do not say how large they
//! decode (bzip2, xz), so that a decompression bomb stops at the limit, before the memory is
//! used.

use std::mem::MaybeUninit;

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

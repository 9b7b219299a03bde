//! [`Target`]: where a step writes, initialised memory or fresh memory.

use std::mem::MaybeUninit;

/// Where a kernel writes: memory already initialised (scratch, a caller's buffer) or fresh
/// memory (a new buffer that a compressor fills, never zeroed first).
pub enum Target<'a> {
    /// Initialised bytes.
    Init(&'a mut [u8]),
    /// Bytes not yet initialised.
    Uninit(&'a mut [MaybeUninit<u8>]),
}

impl<'a> Target<'a> {
    /// The bytes there are room for.
    #[must_use]
    pub fn len(&self) -> usize {
        match self {
            Self::Init(bytes) => bytes.len(),
            Self::Uninit(bytes) => bytes.len(),
        }
    }

    /// Whether there is no room at all.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The target as initialised bytes, zeroing fresh memory first.
    pub fn into_init(self) -> &'a mut [u8] {
        match self {
            Self::Init(bytes) => bytes,
            Self::Uninit(bytes) => {
                bytes.fill(MaybeUninit::new(0));
                // SAFETY: every byte was just initialised.
                unsafe { &mut *(std::ptr::from_mut(bytes) as *mut [u8]) }
            }
        }
    }

    /// The target as possibly uninitialised bytes, with no zeroing.
    ///
    /// # Safety
    /// Only initialised values may be written through the result (an `Init` target stays
    /// initialised only so): C compressors, which write bytes, qualify.
    pub unsafe fn into_uninit(self) -> &'a mut [MaybeUninit<u8>] {
        match self {
            // SAFETY: `MaybeUninit<u8>` has `u8`'s layout; the caller's contract keeps the
            // bytes initialised.
            Self::Init(bytes) => unsafe {
                &mut *(std::ptr::from_mut(bytes) as *mut [MaybeUninit<u8>])
            },
            Self::Uninit(bytes) => bytes,
        }
    }

    /// The first `len` bytes of the target (all of it when shorter).
    #[must_use]
    pub fn prefix(self, len: usize) -> Self {
        match self {
            Self::Init(bytes) => {
                let len = len.min(bytes.len());
                Self::Init(&mut bytes[..len])
            }
            Self::Uninit(bytes) => {
                let len = len.min(bytes.len());
                Self::Uninit(&mut bytes[..len])
            }
        }
    }
}

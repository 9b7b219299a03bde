//! libzstd contexts kept per thread, libzstd's error codes as [`CodecError`]s, and output
//! buffers libzstd may write into without their being initialised first.

use std::cell::RefCell;
use std::mem::MaybeUninit;

use zarr_codec_shapes::{CodecError, Result};
use zstd_safe::zstd_sys::{ZSTD_ErrorCode, ZSTD_getErrorCode};
use zstd_safe::{CCtx, DCtx, WriteBuf};

thread_local! {
    // A context costs an allocation and table setup; small chunks would pay that per call.
    // libzstd shrinks a context's workspace by itself after a long run of smaller uses.
    static COMPRESSOR: RefCell<Option<CCtx<'static>>> = const { RefCell::new(None) };
    static DECOMPRESSOR: RefCell<Option<DCtx<'static>>> = const { RefCell::new(None) };
}

/// Runs `work` with this thread's compression context.
pub(crate) fn with_compressor<T>(work: impl FnOnce(&mut CCtx<'static>) -> Result<T>) -> Result<T> {
    COMPRESSOR.with_borrow_mut(|slot| {
        if slot.is_none() {
            *slot = Some(CCtx::try_create().ok_or_else(out_of_memory)?);
        }
        // Filled just above.
        slot.as_mut().map_or_else(|| Err(out_of_memory()), work)
    })
}

/// Runs `work` with this thread's decompression context.
pub(crate) fn with_decompressor<T>(
    work: impl FnOnce(&mut DCtx<'static>) -> Result<T>,
) -> Result<T> {
    DECOMPRESSOR.with_borrow_mut(|slot| {
        if slot.is_none() {
            *slot = Some(DCtx::try_create().ok_or_else(out_of_memory)?);
        }
        slot.as_mut().map_or_else(|| Err(out_of_memory()), work)
    })
}

fn out_of_memory() -> CodecError {
    CodecError::unsupported("zstd: libzstd could not allocate a context")
}

/// What libzstd's error `code` means for a caller whose output holds at most `limit` bytes.
pub(crate) fn error(code: usize, limit: usize) -> CodecError {
    // SAFETY: ZSTD_getErrorCode only inspects the number it is given.
    match unsafe { ZSTD_getErrorCode(code) } {
        ZSTD_ErrorCode::ZSTD_error_dstSize_tooSmall => CodecError::OutputLimit { limit },
        ZSTD_ErrorCode::ZSTD_error_checksum_wrong => CodecError::corrupt(
            "zstd: the frame's checksum does not match its content (damaged data)",
        ),
        ZSTD_ErrorCode::ZSTD_error_memory_allocation => out_of_memory(),
        ZSTD_ErrorCode::ZSTD_error_parameter_unsupported
        | ZSTD_ErrorCode::ZSTD_error_parameter_outOfBound => {
            CodecError::configuration(format!("zstd: {}", zstd_safe::get_error_name(code)))
        }
        _ => CodecError::corrupt(format!("zstd: {}", zstd_safe::get_error_name(code))),
    }
}

/// A caller's buffer that libzstd fills from its start; only the reported bytes count as
/// initialised afterwards.
pub(crate) struct Uninit<'a> {
    buffer: &'a mut [MaybeUninit<u8>],
    filled: usize,
}

impl<'a> Uninit<'a> {
    pub(crate) fn new(buffer: &'a mut [MaybeUninit<u8>]) -> Self {
        Self { buffer, filled: 0 }
    }

    /// The number of bytes libzstd wrote.
    pub(crate) fn filled(&self) -> usize {
        self.filled
    }
}

// SAFETY: `as_slice` exposes only the `filled` bytes libzstd reported writing; `capacity` and
// `as_mut_ptr` describe exactly the borrowed buffer; `filled_until` is called by zstd-safe
// with the count libzstd returned, which it checks against the capacity.
unsafe impl WriteBuf for Uninit<'_> {
    fn as_slice(&self) -> &[u8] {
        // SAFETY: the first `filled` bytes were written by libzstd.
        unsafe { std::slice::from_raw_parts(self.buffer.as_ptr().cast::<u8>(), self.filled) }
    }

    fn capacity(&self) -> usize {
        self.buffer.len()
    }

    fn as_mut_ptr(&mut self) -> *mut u8 {
        self.buffer.as_mut_ptr().cast::<u8>()
    }

    unsafe fn filled_until(&mut self, n: usize) {
        self.filled = n;
    }
}

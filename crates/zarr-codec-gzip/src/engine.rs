//! A small safe layer over libdeflate's C API (through `libdeflate-sys`).
//!
//! libdeflate compresses and decompresses whole buffers, several times faster than zlib. Its
//! (de)compressor objects are not thread-safe but are costly to allocate (up to ~1 MiB at high
//! levels), so each thread keeps one per level in a thread-local cache.

use std::cell::RefCell;
use std::ffi::c_void;
use std::mem::MaybeUninit;
use std::ptr::NonNull;

use libdeflate_sys as sys;
use zarr_codec_shapes::{CodecError, Result};

use crate::Level;

/// What a raw-deflate decompression call produced.
pub(crate) enum Inflated {
    /// The stream ended: `consumed` input bytes gave `written` output bytes.
    Done { consumed: usize, written: usize },
    /// The output buffer filled up before the stream ended.
    OutputFull,
}

struct Decompressor(NonNull<sys::libdeflate_decompressor>);

impl Decompressor {
    fn new() -> Result<Self> {
        // SAFETY: a plain allocation call; a null result is handled below.
        let raw = unsafe { sys::libdeflate_alloc_decompressor() };
        NonNull::new(raw)
            .map(Self)
            .ok_or_else(|| CodecError::out_of_range("gzip: out of memory for a decompressor"))
    }
}

impl Drop for Decompressor {
    fn drop(&mut self) {
        // SAFETY: the pointer came from libdeflate_alloc_decompressor and is freed once.
        unsafe { sys::libdeflate_free_decompressor(self.0.as_ptr()) }
    }
}

struct Compressor(NonNull<sys::libdeflate_compressor>);

/// The libdeflate level used for each Zarr gzip level.
///
/// From level 5 up, libdeflate's levels compress a little harder than zlib's of the same
/// number. Zarr's levels come from zlib (numcodecs and zarr-python write with it), so levels
/// 5-7 use the libdeflate level below, which gives zlib's size (within 2% on the benchmark
/// data: libdeflate 4 against zlib 5) at 2.6-3x zlib's speed; 0-4, 8 and 9 map unchanged.
const LIBDEFLATE_LEVEL: [i32; 10] = [0, 1, 2, 3, 4, 4, 5, 6, 8, 9];

impl Compressor {
    fn new(level: Level) -> Result<Self> {
        let level = LIBDEFLATE_LEVEL[usize::from(level.get())];
        // SAFETY: a plain allocation call (levels 0..=12 are all valid); null is handled below.
        let raw = unsafe { sys::libdeflate_alloc_compressor(level) };
        NonNull::new(raw)
            .map(Self)
            .ok_or_else(|| CodecError::out_of_range("gzip: out of memory for a compressor"))
    }
}

impl Drop for Compressor {
    fn drop(&mut self) {
        // SAFETY: the pointer came from libdeflate_alloc_compressor and is freed once.
        unsafe { sys::libdeflate_free_compressor(self.0.as_ptr()) }
    }
}

thread_local! {
    static DECOMPRESSOR: RefCell<Option<Decompressor>> = const { RefCell::new(None) };
    static COMPRESSORS: RefCell<[Option<Compressor>; 10]> = RefCell::new(Default::default());
}

/// Inflate one raw-deflate stream from the start of `input` into `out`.
///
/// `out` may be uninitialised: libdeflate only writes it, and on success its first `written`
/// bytes are initialised.
pub(crate) fn inflate(input: &[u8], out: &mut [MaybeUninit<u8>]) -> Result<Inflated> {
    DECOMPRESSOR.with(|cell| {
        let mut slot = cell.borrow_mut();
        if slot.is_none() {
            *slot = Some(Decompressor::new()?);
        }
        let decompressor = slot.as_ref().map_or(std::ptr::null_mut(), |d| d.0.as_ptr());
        let (mut consumed, mut written) = (0usize, 0usize);
        // SAFETY: `decompressor` is a live decompressor owned by this thread; `input` and `out`
        // are valid for their lengths; libdeflate reads at most `input.len()` bytes, writes at
        // most `out.len()` bytes, and writes the two counts through valid pointers.
        let status = unsafe {
            sys::libdeflate_deflate_decompress_ex(
                decompressor,
                input.as_ptr().cast::<c_void>(),
                input.len(),
                out.as_mut_ptr().cast::<c_void>(),
                out.len(),
                &raw mut consumed,
                &raw mut written,
            )
        };
        match status {
            sys::libdeflate_result_LIBDEFLATE_SUCCESS => Ok(Inflated::Done { consumed, written }),
            sys::libdeflate_result_LIBDEFLATE_INSUFFICIENT_SPACE => Ok(Inflated::OutputFull),
            _ => Err(CodecError::corrupt(
                "deflate: invalid or truncated compressed data",
            )),
        }
    })
}

fn with_compressor<T>(
    level: Level,
    work: impl FnOnce(*mut sys::libdeflate_compressor) -> T,
) -> Result<T> {
    COMPRESSORS.with(|cell| {
        let mut cache = cell.borrow_mut();
        let slot = &mut cache[usize::from(level.get())];
        if slot.is_none() {
            *slot = Some(Compressor::new(level)?);
        }
        let compressor = slot.as_ref().map_or(std::ptr::null_mut(), |c| c.0.as_ptr());
        Ok(work(compressor))
    })
}

/// libdeflate's bound function for one container format.
type BoundFn = unsafe extern "C" fn(*mut sys::libdeflate_compressor, usize) -> usize;
/// libdeflate's compression function for one container format.
type CompressFn = unsafe extern "C" fn(
    *mut sys::libdeflate_compressor,
    *const c_void,
    usize,
    *mut c_void,
    usize,
) -> usize;

fn bound(level: Level, len: usize, format: BoundFn) -> Result<usize> {
    // SAFETY: `compressor` is a live compressor owned by this thread; the call only reads it.
    with_compressor(level, |compressor| unsafe { format(compressor, len) })
}

fn compress(
    level: Level,
    input: &[u8],
    out: &mut [MaybeUninit<u8>],
    format: CompressFn,
) -> Result<Option<usize>> {
    // SAFETY: `compressor` is a live compressor owned by this thread; `input` and `out` are
    // valid for their lengths and libdeflate writes at most `out.len()` bytes.
    let written = with_compressor(level, |compressor| unsafe {
        format(
            compressor,
            input.as_ptr().cast::<c_void>(),
            input.len(),
            out.as_mut_ptr().cast::<c_void>(),
            out.len(),
        )
    })?;
    Ok((written != 0).then_some(written))
}

/// The two container formats libdeflate writes around a deflate stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Container {
    /// One gzip member (RFC 1952). libdeflate writes a fixed header (no name, mtime 0, OS
    /// "unknown"), so the output depends only on the input and the level.
    Gzip,
    /// One zlib stream (RFC 1950).
    Zlib,
}

impl Container {
    /// The most bytes a stream of `len` input bytes can take at `level`.
    pub(crate) fn bound(self, level: Level, len: usize) -> Result<usize> {
        match self {
            Self::Gzip => bound(level, len, sys::libdeflate_gzip_compress_bound),
            Self::Zlib => bound(level, len, sys::libdeflate_zlib_compress_bound),
        }
    }

    /// Compress `input` as one stream into `out`; `None` if `out` is too small.
    fn compress(
        self,
        level: Level,
        input: &[u8],
        out: &mut [MaybeUninit<u8>],
    ) -> Result<Option<usize>> {
        match self {
            Self::Gzip => compress(level, input, out, sys::libdeflate_gzip_compress),
            Self::Zlib => compress(level, input, out, sys::libdeflate_zlib_compress),
        }
    }

    /// Compress `input` into one stream at `level`, in a new `Vec` of the bound's capacity.
    pub(crate) fn encode(self, input: &[u8], level: Level) -> Result<Vec<u8>> {
        let bound = self.bound(level, input.len())?;
        let mut out = Vec::with_capacity(bound);
        let written = self
            .compress(level, input, &mut out.spare_capacity_mut()[..bound])?
            .ok_or(CodecError::OutputLimit { limit: bound })?;
        // SAFETY: libdeflate initialised the first `written` bytes of the spare capacity.
        unsafe { out.set_len(written) };
        Ok(out)
    }

    /// Compress `input` into `out`, which need not be initialised; [`CodecError::OutputLimit`]
    /// if it does not fit.
    pub(crate) fn encode_into_uninit(
        self,
        input: &[u8],
        level: Level,
        out: &mut [MaybeUninit<u8>],
    ) -> Result<usize> {
        let limit = out.len();
        self.compress(level, input, out)?
            .ok_or(CodecError::OutputLimit { limit })
    }
}

/// CRC-32 (the gzip polynomial) of `data`.
pub(crate) fn crc32(data: &[u8]) -> u32 {
    // SAFETY: libdeflate reads exactly `data.len()` bytes from a valid slice.
    unsafe { sys::libdeflate_crc32(0, data.as_ptr().cast::<c_void>(), data.len()) }
}

/// Adler-32 (the zlib checksum) of `data`.
pub(crate) fn adler32(data: &[u8]) -> u32 {
    // SAFETY: libdeflate reads exactly `data.len()` bytes from a valid slice.
    unsafe { sys::libdeflate_adler32(1, data.as_ptr().cast::<c_void>(), data.len()) }
}

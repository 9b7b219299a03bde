//! Copies into arrays larger than the caches, with non-temporal stores.
//!
//! A read of a large array writes each decoded row once into an output that no cache holds.
//! With ordinary stores every cache line written is first read from memory (to own it), a third
//! more memory traffic, and the lines then push out of the cache what the next chunk's decode
//! is about to use (its scratch, the compressed bytes). Non-temporal stores send whole lines
//! straight to memory. Only for targets of at least [`stream_above`] bytes (the last-level
//! cache): a smaller array is likely still in cache when the caller reads it, which ordinary
//! stores keep.

use std::sync::OnceLock;

/// Arrays of at least this many bytes are always written with non-temporal stores (several
/// times any last-level cache share a thread can count on), however large the cache.
const STREAM_ABOVE_AT_MOST: usize = 32 << 20;

/// The least size taken from a cache size (a guard against a nonsense figure).
const STREAM_ABOVE_AT_LEAST: usize = 1 << 20;

/// The size of arrays from which [`copy`] is worth its non-temporal stores: this machine's
/// last-level cache (read once), within [`STREAM_ABOVE_AT_LEAST`] and
/// [`STREAM_ABOVE_AT_MOST`]; the latter where the cache's size is not known.
pub(crate) fn stream_above() -> usize {
    static ABOVE: OnceLock<usize> = OnceLock::new();
    *ABOVE.get_or_init(|| {
        last_level_cache().map_or(STREAM_ABOVE_AT_MOST, |size| {
            size.clamp(STREAM_ABOVE_AT_LEAST, STREAM_ABOVE_AT_MOST)
        })
    })
}

/// The size of the first CPU's largest (last-level) cache, as Linux describes it in sysfs.
fn last_level_cache() -> Option<usize> {
    let caches = std::fs::read_dir("/sys/devices/system/cpu/cpu0/cache").ok()?;
    caches
        .filter_map(|entry| {
            let dir = entry.ok()?.path();
            let level: u32 = std::fs::read_to_string(dir.join("level"))
                .ok()?
                .trim()
                .parse()
                .ok()?;
            let size = cache_size(&std::fs::read_to_string(dir.join("size")).ok()?)?;
            Some((level, size))
        })
        .max()
        .map(|(_, size)| size)
}

/// A sysfs cache size (`"8192K"`, `"32M"`, `"512"`) in bytes.
fn cache_size(text: &str) -> Option<usize> {
    let text = text.trim();
    let (digits, unit) = match text.char_indices().last()? {
        (at, 'K') => (&text[..at], 1 << 10),
        (at, 'M') => (&text[..at], 1 << 20),
        (at, 'G') => (&text[..at], 1 << 30),
        _ => (text, 1),
    };
    digits.parse::<usize>().ok()?.checked_mul(unit)
}

/// Rows shorter than this are copied with ordinary stores (a partial line written
/// non-temporally costs more than it saves).
const STREAM_ROW: usize = 256;

/// Copies `len` bytes from `from` to `to`, with non-temporal stores where the target allows.
/// Call [`fence`] before another thread may read what was written.
///
/// # Safety
/// `from` is readable and `to` writable for `len` bytes, and the two do not overlap.
pub(crate) unsafe fn copy(from: *const u8, to: *mut u8, len: usize) {
    #[cfg(target_arch = "x86_64")]
    if len >= STREAM_ROW {
        // SAFETY: the caller's contract.
        unsafe { copy_x86_64(from, to, len) };
        return;
    }
    // SAFETY: the caller's contract.
    unsafe { std::ptr::copy_nonoverlapping(from, to, len) };
}

/// Orders the non-temporal stores of [`copy`] before everything this thread writes after it
/// (they are weakly ordered: a lock or atomic released later does not cover them).
pub(crate) fn fence() {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: SSE2 (and with it `sfence`) is part of the x86-64 baseline.
    unsafe {
        std::arch::x86_64::_mm_sfence();
    }
}

/// [`copy`] with SSE2 (every x86-64 CPU): ordinary stores up to the first 16-byte boundary of
/// the target, 16-byte non-temporal stores, ordinary stores for the tail.
///
/// # Safety
/// As [`copy`].
#[cfg(target_arch = "x86_64")]
unsafe fn copy_x86_64(from: *const u8, to: *mut u8, len: usize) {
    use std::arch::x86_64::{__m128i, _mm_loadu_si128, _mm_stream_si128};
    let head = to.align_offset(16).min(len);
    let body = (len - head) / 64 * 64;
    // SAFETY: the caller's contract: every offset below is less than `len`; the stores in the
    // loop go to 16-byte aligned addresses (`to + head` is aligned, steps are multiples of 16),
    // the loads are unaligned ones.
    unsafe {
        std::ptr::copy_nonoverlapping(from, to, head);
        let mut done = head;
        while done < head + body {
            #[expect(clippy::cast_ptr_alignment, reason = "read by unaligned loads")]
            let source = from.add(done).cast::<__m128i>();
            #[expect(clippy::cast_ptr_alignment, reason = "16-byte aligned: `to + head` is")]
            let target = to.add(done).cast::<__m128i>();
            let lanes = [
                _mm_loadu_si128(source),
                _mm_loadu_si128(source.add(1)),
                _mm_loadu_si128(source.add(2)),
                _mm_loadu_si128(source.add(3)),
            ];
            for (lane, value) in lanes.into_iter().enumerate() {
                _mm_stream_si128(target.add(lane), value);
            }
            done += 64;
        }
        std::ptr::copy_nonoverlapping(from.add(done), to.add(done), len - done);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cache_sizes_read_as_sysfs_writes_them() {
        assert_eq!(cache_size("8192K\n"), Some(8 << 20));
        assert_eq!(cache_size("32M"), Some(32 << 20));
        assert_eq!(cache_size("1G"), Some(1 << 30));
        assert_eq!(cache_size("512"), Some(512));
        for nonsense in ["", "K", "-1K", "12Q", "99999999999999999999G"] {
            assert_eq!(cache_size(nonsense), None, "{nonsense:?}");
        }
    }

    #[test]
    fn arrays_stream_from_at_most_32_mib() {
        let above = stream_above();
        assert!((STREAM_ABOVE_AT_LEAST..=STREAM_ABOVE_AT_MOST).contains(&above));
        if let Some(cache) = last_level_cache() {
            assert_eq!(
                above,
                cache.clamp(STREAM_ABOVE_AT_LEAST, STREAM_ABOVE_AT_MOST)
            );
        }
    }

    #[test]
    fn copies_every_length_and_alignment_exactly() {
        let source: Vec<u8> = (0..2048u32)
            .map(|i| (i * 7 + i / 256).to_le_bytes()[0])
            .collect();
        for len in [0, 1, 15, 16, 63, 64, 255, 256, 257, 1000, 1024, 1999] {
            for from_offset in [0, 1, 8, 15] {
                for to_offset in [0, 1, 3, 16, 17] {
                    let mut target = vec![0xAAu8; 2100];
                    // SAFETY: both ranges lie within their vectors, which are distinct.
                    unsafe {
                        copy(
                            source.as_ptr().add(from_offset),
                            target.as_mut_ptr().add(to_offset),
                            len,
                        );
                    }
                    fence();
                    assert_eq!(
                        &target[to_offset..to_offset + len],
                        &source[from_offset..from_offset + len]
                    );
                    assert!(target[..to_offset].iter().all(|&b| b == 0xAA));
                    assert!(target[to_offset + len..].iter().all(|&b| b == 0xAA));
                }
            }
        }
    }
}

//! One array element as the low bits of a `u64`: how element-wise codecs read and write
//! arrays of any data type of up to 8 bytes (elements are native-endian in memory).

/// The native-endian element in `bytes` (1 to 8 of them) as the low bits of a `u64`.
///
/// # Panics
///
/// If `bytes` is longer than 8 (a caller bug: element sizes are at most 8 here).
pub fn read_bits(bytes: &[u8]) -> u64 {
    let mut buffer = [0u8; 8];
    if cfg!(target_endian = "little") {
        buffer[..bytes.len()].copy_from_slice(bytes);
        u64::from_le_bytes(buffer)
    } else {
        buffer[8 - bytes.len()..].copy_from_slice(bytes);
        u64::from_be_bytes(buffer)
    }
}

/// Writes the low `target.len()` bytes of `bits` in native order.
///
/// # Panics
///
/// If `target` is longer than 8.
pub fn write_bits(bits: u64, target: &mut [u8]) {
    let len = target.len();
    if cfg!(target_endian = "little") {
        target.copy_from_slice(&bits.to_le_bytes()[..len]);
    } else {
        target.copy_from_slice(&bits.to_be_bytes()[8 - len..]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_every_width() {
        for len in 1..=8 {
            let value = 0x0123_4567_89ab_cdefu64 & (u64::MAX >> (64 - 8 * len));
            let mut bytes = vec![0u8; len];
            write_bits(value, &mut bytes);
            assert_eq!(read_bits(&bytes), value);
        }
    }
}

//! The layout numcodecs' vlen codecs share: a little-endian `u32` item count, then for each
//! item a little-endian `u32` byte length and that many bytes. Bytes after the last item are
//! ignored, as numcodecs ignores them.

use zarr_codec_shapes::{CodecError, Result};

/// The items' bytes in numcodecs' layout; `OutOfRange` for more than `u32::MAX` items or an
/// item longer than `u32::MAX` bytes (the layout's limits).
pub fn encode<'a, I>(items: I) -> Result<Vec<u8>>
where
    I: IntoIterator<Item = &'a [u8]>,
    I::IntoIter: Clone,
{
    let items = items.into_iter();
    let mut total = 4usize;
    let mut count = 0usize;
    for item in items.clone() {
        u32::try_from(item.len()).map_err(|_| {
            CodecError::out_of_range(format!(
                "vlen: an item of {} bytes (the most is 2^32 - 1)",
                item.len()
            ))
        })?;
        total = total
            .checked_add(4 + item.len())
            .ok_or_else(|| CodecError::out_of_range("vlen: the encoded items overflow memory"))?;
        count += 1;
    }
    let count = u32::try_from(count).map_err(|_| {
        CodecError::out_of_range(format!("vlen: {count} items (the most is 2^32 - 1)"))
    })?;
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(&count.to_le_bytes());
    for item in items {
        // Each length was checked to fit above.
        out.extend_from_slice(&u32::try_from(item.len()).unwrap_or(u32::MAX).to_le_bytes());
        out.extend_from_slice(item);
    }
    Ok(out)
}

/// Items written one at a time into numcodecs' layout, for items that are not all at hand at
/// once (strings lent one by one by their owner).
#[derive(Debug)]
pub struct Writer {
    out: Vec<u8>,
    declared: usize,
    written: usize,
}

impl Writer {
    /// A writer of `count` items; `OutOfRange` for more than `u32::MAX`.
    pub fn new(count: usize) -> Result<Self> {
        let declared = u32::try_from(count).map_err(|_| {
            CodecError::out_of_range(format!("vlen: {count} items (the most is 2^32 - 1)"))
        })?;
        let mut out = Vec::with_capacity(4 + 8 * count.min(1 << 20));
        out.extend_from_slice(&declared.to_le_bytes());
        Ok(Self {
            out,
            declared: count,
            written: 0,
        })
    }

    /// Appends the next item; `OutOfRange` for one longer than `u32::MAX` bytes or one more
    /// than declared.
    pub fn push(&mut self, item: &[u8]) -> Result<()> {
        if self.written == self.declared {
            return Err(CodecError::out_of_range(format!(
                "vlen: more than the {} items declared",
                self.declared
            )));
        }
        let len = u32::try_from(item.len()).map_err(|_| {
            CodecError::out_of_range(format!(
                "vlen: an item of {} bytes (the most is 2^32 - 1)",
                item.len()
            ))
        })?;
        self.out.extend_from_slice(&len.to_le_bytes());
        self.out.extend_from_slice(item);
        self.written += 1;
        Ok(())
    }

    /// The encoded items; `OutOfRange` when fewer were pushed than declared.
    pub fn finish(self) -> Result<Vec<u8>> {
        if self.written != self.declared {
            return Err(CodecError::out_of_range(format!(
                "vlen: {} of the {} items declared",
                self.written, self.declared
            )));
        }
        Ok(self.out)
    }
}

/// The item count a buffer declares; `Corrupt` when the header is missing or the count is more
/// than the buffer could hold (every item takes at least its 4 length bytes).
pub fn count(input: &[u8]) -> Result<usize> {
    let Some(header) = input.first_chunk::<4>() else {
        return Err(CodecError::corrupt(
            "vlen: corrupt buffer, missing or truncated header",
        ));
    };
    let count = u32::from_le_bytes(*header) as usize;
    if count > (input.len() - 4) / 4 {
        return Err(CodecError::corrupt(format!(
            "vlen: corrupt buffer, {count} items declared in {} bytes (data seem truncated)",
            input.len()
        )));
    }
    Ok(count)
}

/// Each item's bytes, in order; `Corrupt` when the header or an item is truncated.
pub fn decode(input: &[u8]) -> Result<Vec<&[u8]>> {
    let count = count(input)?;
    let mut items = Vec::with_capacity(count);
    let mut rest = &input[4..];
    for index in 0..count {
        let truncated = || {
            CodecError::corrupt(format!(
                "vlen: corrupt buffer, item {index} of {count}: data seem truncated"
            ))
        };
        let (length, tail) = rest.split_first_chunk::<4>().ok_or_else(truncated)?;
        let length = u32::from_le_bytes(*length) as usize;
        if length > tail.len() {
            return Err(truncated());
        }
        let (item, tail) = tail.split_at(length);
        items.push(item);
        rest = tail;
    }
    Ok(items)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_writer_writes_what_encode_writes_and_counts() -> Result<()> {
        let items: [&[u8]; 3] = [b"ab", b"", b"xyz"];
        let mut writer = Writer::new(3)?;
        for item in items {
            writer.push(item)?;
        }
        assert_eq!(writer.finish()?, encode(items)?);
        let mut short = Writer::new(2)?;
        short.push(b"a")?;
        assert!(short.finish().is_err());
        let mut full = Writer::new(1)?;
        full.push(b"a")?;
        assert!(full.push(b"b").is_err());
        Ok(())
    }

    #[test]
    fn round_trips_and_refuses_truncation() -> Result<()> {
        let items: [&[u8]; 3] = [b"ab", b"", b"xyz"];
        let encoded = encode(items)?;
        assert_eq!(
            encoded,
            [
                3, 0, 0, 0, 2, 0, 0, 0, b'a', b'b', 0, 0, 0, 0, 3, 0, 0, 0, b'x', b'y', b'z'
            ]
        );
        assert_eq!(decode(&encoded)?, items);
        let mut trailing = encoded.clone();
        trailing.push(9);
        assert_eq!(decode(&trailing)?, items);
        for cut in 0..encoded.len() {
            assert!(decode(&encoded[..cut]).is_err(), "{cut}");
        }
        // A count the buffer cannot hold is refused before anything is allocated.
        assert!(decode(&[0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0]).is_err());
        assert_eq!(decode(&[0, 0, 0, 0])?, Vec::<&[u8]>::new());
        Ok(())
    }
}

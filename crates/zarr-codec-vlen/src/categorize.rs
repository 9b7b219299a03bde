//! numcodecs' `categorize` (`Categorize(labels, dtype, astype="u1")`): strings as integer
//! codes, `1 + ` the position of the label equal to each (the last such label where labels
//! repeat, as numcodecs assigns them in turn), 0 for a string that is none of them; decoding
//! gives each code's label, and the empty string for 0 or any code that names none.
//!
//! One hash lookup per item (numcodecs compares the whole array against each label in turn).
//! Strings come as UTF-8 (`str` items, numpy object arrays) or as numpy's fixed-width
//! `U` items (UCS-4 code points, trailing zeros not part of the string, as numpy compares them).

use std::collections::HashMap;

use zarr_codec_shapes::{CodecError, Result};

/// The numcodecs id (Zarr v2 only: zarr-python registers no v3 name for it).
pub const CATEGORIZE_ID: &str = "categorize";

/// The labels, and each one's code, by its UTF-8 and by its code points.
#[derive(Debug, Clone)]
pub struct Categorize {
    labels: Vec<String>,
    by_text: HashMap<String, u64>,
    by_chars: HashMap<Vec<u32>, u64>,
}

impl Categorize {
    /// A codec of these `labels`, in order (code `i + 1` for `labels[i]`).
    #[must_use]
    pub fn new(labels: Vec<String>) -> Self {
        let mut by_text = HashMap::with_capacity(labels.len());
        let mut by_chars = HashMap::with_capacity(labels.len());
        for (code, label) in (1u64..).zip(&labels) {
            // A later equal label takes the code, as numcodecs' assignments in turn leave it.
            by_text.insert(label.clone(), code);
            by_chars.insert(numpy_chars(label), code);
        }
        Self {
            labels,
            by_text,
            by_chars,
        }
    }

    /// The labels, in order.
    #[must_use]
    pub fn labels(&self) -> &[String] {
        &self.labels
    }

    /// The largest code encoding can give (the number of labels).
    #[must_use]
    pub fn max_code(&self) -> u64 {
        self.labels.len() as u64
    }

    /// The code of a string (`None`: a missing or non-string item, code 0).
    #[must_use]
    pub fn code(&self, item: Option<&str>) -> u64 {
        item.and_then(|text| self.by_text.get(text))
            .copied()
            .unwrap_or(0)
    }

    /// The code of a numpy `U` item: its code points, trailing zeros ignored.
    #[must_use]
    pub fn code_of_chars(&self, item: &[u32]) -> u64 {
        let end = item
            .iter()
            .rposition(|&c| c != 0)
            .map_or(0, |last| last + 1);
        self.by_chars.get(&item[..end]).copied().unwrap_or(0)
    }

    /// Codes for numpy `U` items of `width` code points each, laid end to end in `chars`.
    pub fn encode_chars(&self, chars: &[u32], width: usize, out: &mut [u64]) -> Result<()> {
        let Some(items) = chars.len().checked_div(width) else {
            // Zero-width items are all the empty string.
            out.fill(self.code_of_chars(&[]));
            return Ok(());
        };
        if !chars.len().is_multiple_of(width) || items != out.len() {
            return Err(CodecError::OutputSize {
                expected: items,
                actual: out.len(),
            });
        }
        for (item, code) in chars.chunks_exact(width).zip(out.iter_mut()) {
            *code = self.code_of_chars(item);
        }
        Ok(())
    }

    /// The label of `code`, or `None` (decoded as the empty string) for 0 or a code that
    /// names no label.
    #[must_use]
    pub fn label(&self, code: u64) -> Option<&str> {
        let index = usize::try_from(code.checked_sub(1)?).ok()?;
        self.labels.get(index).map(String::as_str)
    }
}

/// A label's code points as numpy compares fixed-width strings: trailing zeros dropped.
fn numpy_chars(label: &str) -> Vec<u32> {
    let mut chars: Vec<u32> = label.chars().map(u32::from).collect();
    while chars.last() == Some(&0) {
        chars.pop();
    }
    chars
}

#[cfg(test)]
mod tests {
    use super::*;

    fn codec() -> Categorize {
        Categorize::new(vec![
            "female".into(),
            "male".into(),
            "ü".into(),
            "male".into(),
        ])
    }

    #[test]
    fn codes_follow_numcodecs_assignment_order() {
        let codec = codec();
        assert_eq!(codec.code(Some("female")), 1);
        assert_eq!(codec.code(Some("male")), 4); // the last equal label
        assert_eq!(codec.code(Some("ü")), 3);
        assert_eq!(codec.code(Some("unexpected")), 0);
        assert_eq!(codec.code(None), 0);
        assert_eq!(codec.max_code(), 4);
    }

    #[test]
    fn fixed_width_items_ignore_trailing_zeros() -> Result<()> {
        let codec = codec();
        let chars: Vec<u32> = "male\0\0female\u{fc}\0\0\0\0\0xyz\0\0\0"
            .chars()
            .map(u32::from)
            .collect();
        let mut out = [9u64; 4];
        codec.encode_chars(&chars, 6, &mut out)?;
        assert_eq!(out, [4, 1, 3, 0]);
        assert!(codec.encode_chars(&chars, 5, &mut out).is_err());
        Ok(())
    }

    #[test]
    fn labels_of_codes() {
        let codec = codec();
        assert_eq!(codec.label(1), Some("female"));
        assert_eq!(codec.label(4), Some("male"));
        assert_eq!(codec.label(0), None);
        assert_eq!(codec.label(5), None);
        assert_eq!(codec.label(u64::MAX), None);
    }
}

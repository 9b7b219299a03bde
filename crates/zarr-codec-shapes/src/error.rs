//! The one error type of every zarr-codecs crate.
//!
//! Each [`CodecError`] variant belongs to one [`ErrorKind`]; language bindings map the kind
//! to their own error classes (the Python glue raises `ConfigurationError`,
//! `CorruptInputError`, `OutOfRangeError`, `OutputSizeError` and `UnsupportedError`, all
//! subclasses of `CodecError(ValueError)`).

use std::fmt;

/// A failure of a codec, of a data type or fill value conversion, or of configuration parsing.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum CodecError {
    /// Configuration JSON that cannot be accepted: an unknown or missing key, a value of the
    /// wrong type or outside its allowed set, a codec name that does not match.
    Configuration(String),
    /// Encoded input that cannot be decoded: truncated, malformed or failing a checksum.
    Corrupt(String),
    /// A value that the target type cannot represent (an integer out of range, infinity for a
    /// data type without infinity, a size that overflows `usize`).
    OutOfRange(String),
    /// An output buffer of the wrong size was passed to an `*_into` method.
    OutputSize {
        /// The number of bytes the output needs (for bytes-to-bytes codecs, at least this many).
        expected: usize,
        /// The number of bytes the buffer passed in has.
        actual: usize,
    },
    /// Output that would exceed a bound: the caller's buffer in an `*_into` method, or a size
    /// limit the caller set (a decompression bomb stops here, before the memory is used).
    OutputLimit {
        /// The most bytes the output could take.
        limit: usize,
    },
    /// A request the implementation does not support, such as a data type a codec cannot
    /// handle or a codec without a Zarr v2 form.
    Unsupported(String),
}

/// The category of a [`CodecError`], without its details.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// See [`CodecError::Configuration`].
    Configuration,
    /// See [`CodecError::Corrupt`].
    Corrupt,
    /// See [`CodecError::OutOfRange`].
    OutOfRange,
    /// See [`CodecError::OutputSize`].
    OutputSize,
    /// See [`CodecError::Unsupported`].
    Unsupported,
}

/// The result type of this crate and of the codec crates built on it.
pub type Result<T> = std::result::Result<T, CodecError>;

impl CodecError {
    /// The category of this error.
    pub fn kind(&self) -> ErrorKind {
        match self {
            Self::Configuration(_) => ErrorKind::Configuration,
            Self::Corrupt(_) => ErrorKind::Corrupt,
            Self::OutOfRange(_) => ErrorKind::OutOfRange,
            Self::OutputSize { .. } | Self::OutputLimit { .. } => ErrorKind::OutputSize,
            Self::Unsupported(_) => ErrorKind::Unsupported,
        }
    }

    /// The message without the category prefix that [`Display`](fmt::Display) adds: for
    /// wrapping an error in another's message without saying "invalid configuration" twice.
    pub fn detail(&self) -> String {
        match self {
            Self::Configuration(message)
            | Self::Corrupt(message)
            | Self::OutOfRange(message)
            | Self::Unsupported(message) => message.clone(),
            Self::OutputSize { .. } | Self::OutputLimit { .. } => self.to_string(),
        }
    }

    /// The same error with `place` (where it happened: "inner chunk [1, 0]") in front of its
    /// message. The two size errors carry numbers, not a message, and come back unchanged.
    #[must_use]
    pub fn at(self, place: &str) -> Self {
        match self {
            Self::Configuration(message) => Self::Configuration(format!("{place}: {message}")),
            Self::Corrupt(message) => Self::Corrupt(format!("{place}: {message}")),
            Self::OutOfRange(message) => Self::OutOfRange(format!("{place}: {message}")),
            Self::Unsupported(message) => Self::Unsupported(format!("{place}: {message}")),
            Self::OutputSize { .. } | Self::OutputLimit { .. } => self,
        }
    }

    /// Shorthand for [`CodecError::Configuration`].
    pub fn configuration(message: impl Into<String>) -> Self {
        Self::Configuration(message.into())
    }

    /// Shorthand for [`CodecError::Corrupt`].
    pub fn corrupt(message: impl Into<String>) -> Self {
        Self::Corrupt(message.into())
    }

    /// Shorthand for [`CodecError::OutOfRange`].
    pub fn out_of_range(message: impl Into<String>) -> Self {
        Self::OutOfRange(message.into())
    }

    /// Shorthand for [`CodecError::Unsupported`].
    pub fn unsupported(message: impl Into<String>) -> Self {
        Self::Unsupported(message.into())
    }
}

impl fmt::Display for CodecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Configuration(message) => write!(f, "invalid configuration: {message}"),
            Self::Corrupt(message) => write!(f, "corrupt input: {message}"),
            Self::OutOfRange(message) => write!(f, "value out of range: {message}"),
            Self::OutputSize { expected, actual } => write!(
                f,
                "wrong output buffer size: {expected} bytes needed, buffer has {actual}"
            ),
            Self::OutputLimit { limit } => {
                write!(f, "output exceeds its limit: more than {limit} bytes")
            }
            Self::Unsupported(message) => write!(f, "unsupported: {message}"),
        }
    }
}

impl std::error::Error for CodecError {}

impl From<serde_json::Error> for CodecError {
    fn from(error: serde_json::Error) -> Self {
        Self::Configuration(error.to_string())
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Configuration => "configuration",
            Self::Corrupt => "corrupt input",
            Self::OutOfRange => "out of range",
            Self::OutputSize => "output size",
            Self::Unsupported => "unsupported",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_match_variants() {
        let cases = [
            (CodecError::configuration("x"), ErrorKind::Configuration),
            (CodecError::corrupt("x"), ErrorKind::Corrupt),
            (CodecError::out_of_range("x"), ErrorKind::OutOfRange),
            (
                CodecError::OutputSize {
                    expected: 2,
                    actual: 1,
                },
                ErrorKind::OutputSize,
            ),
            (CodecError::OutputLimit { limit: 4 }, ErrorKind::OutputSize),
            (CodecError::unsupported("x"), ErrorKind::Unsupported),
        ];
        for (error, kind) in cases {
            assert_eq!(error.kind(), kind);
        }
    }

    #[test]
    fn display_is_informative() {
        let error = CodecError::OutputSize {
            expected: 16,
            actual: 8,
        };
        assert_eq!(
            error.to_string(),
            "wrong output buffer size: 16 bytes needed, buffer has 8"
        );
        assert_eq!(
            CodecError::corrupt("truncated header").to_string(),
            "corrupt input: truncated header"
        );
    }

    #[test]
    fn serde_json_errors_are_configuration_errors() {
        let json_error = serde_json::from_str::<u8>("300").expect_err("300 overflows u8");
        let error = CodecError::from(json_error);
        assert_eq!(error.kind(), ErrorKind::Configuration);
    }
}

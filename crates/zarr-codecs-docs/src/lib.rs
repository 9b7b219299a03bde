//! The Rust examples of the docs site (`docs/`), compiled and run by `cargo test` as this
//! crate's doc-tests: a page's ```` ```rust ```` block that stops compiling fails the tests.
//! Nothing here is published; the crate has no code of its own.

/// `docs/rust.md`.
#[cfg(doctest)]
#[doc = include_str!("../../../docs/rust.md")]
pub struct RustGuide;

/// `docs/writing-a-codec.md`.
#[cfg(doctest)]
#[doc = include_str!("../../../docs/writing-a-codec.md")]
pub struct WritingACodec;

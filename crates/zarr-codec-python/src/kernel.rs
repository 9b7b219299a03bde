//! Kernels: one compiled codec's decoding or encoding, callable from another wheel's extension
//! module through a C ABI, so that the runtime (`zarr_codec_runtime`, exported to Python once,
//! by the `zarr-codec-runtime` wheel) runs a whole chain of codecs from several wheels in
//! Rust, chunk after chunk, with no Python call in between.
//!
//! A kernel travels as a Python capsule named [`CAPSULE`]. The capsule holds a `#[repr(C)]`
//! [`Kernel`] header (an ABI version and one `extern "C"` function) followed by the codec's
//! own state, which only the module that made it reads: a Rust trait object's layout is not
//! stable between separately compiled modules, a C struct's is. The capsule's destructor, the
//! making module's code, frees the state.

use std::ffi::CStr;
use std::panic::{AssertUnwindSafe, catch_unwind};

use crate::run::panic_detail;
use pyo3::prelude::*;
use pyo3::types::PyCapsule;
pub use zarr_codec_kernel::Target;
use zarr_codec_shapes::{CodecError, Result as CodecResult};

/// The name every kernel capsule carries; the version changes with [`Kernel`]'s layout.
pub const CAPSULE: &CStr = c"zarr_codec_shapes.kernel.v1";

/// [`Kernel::abi`] of this layout.
const ABI: u32 = 1;

/// Longest error message carried back through [`Outcome`]; longer ones are cut.
const MESSAGE: usize = 480;

/// What a kernel call reports: bytes written, or an error as its kind and details.
#[repr(C)]
pub struct Outcome {
    written: usize,
    /// 0: success; otherwise an [`ErrorCode`].
    error: u32,
    /// `OutputSize`'s expected and actual sizes, `OutputLimit`'s limit.
    sizes: [usize; 2],
    message_len: usize,
    message: [u8; MESSAGE],
}

/// [`Outcome::error`] values.
#[repr(u32)]
enum ErrorCode {
    Configuration = 1,
    Corrupt = 2,
    OutOfRange = 3,
    OutputSize = 4,
    OutputLimit = 5,
    Unsupported = 6,
    Panic = 7,
}

impl Outcome {
    fn new() -> Self {
        Self {
            written: 0,
            error: 0,
            sizes: [0; 2],
            message_len: 0,
            message: [0; MESSAGE],
        }
    }

    fn set_message(&mut self, message: &str) {
        let mut end = message.len().min(MESSAGE);
        while !message.is_char_boundary(end) {
            end -= 1;
        }
        self.message[..end].copy_from_slice(&message.as_bytes()[..end]);
        self.message_len = end;
    }

    fn set_error(&mut self, err: &CodecError) {
        let (code, message) = match err {
            CodecError::Configuration(m) => (ErrorCode::Configuration, m.as_str()),
            CodecError::Corrupt(m) => (ErrorCode::Corrupt, m.as_str()),
            CodecError::OutOfRange(m) => (ErrorCode::OutOfRange, m.as_str()),
            CodecError::Unsupported(m) => (ErrorCode::Unsupported, m.as_str()),
            CodecError::OutputSize { expected, actual } => {
                self.sizes = [*expected, *actual];
                (ErrorCode::OutputSize, "")
            }
            CodecError::OutputLimit { limit } => {
                self.sizes = [*limit, 0];
                (ErrorCode::OutputLimit, "")
            }
            // A kind added to `zarr_codec_shapes` after this ABI: its message, as corrupt input.
            other => {
                self.error = ErrorCode::Corrupt as u32;
                self.set_message(&other.to_string());
                return;
            }
        };
        self.error = code as u32;
        self.set_message(message);
    }

    /// The call's result, the error rebuilt as the kernel's module raised it.
    fn into_result(self) -> CodecResult<usize> {
        let length = self.message_len.min(MESSAGE);
        let message = String::from_utf8_lossy(&self.message[..length]).into_owned();
        let [first, second] = self.sizes;
        match self.error {
            0 => Ok(self.written),
            1 => Err(CodecError::Configuration(message)),
            2 => Err(CodecError::Corrupt(message)),
            3 => Err(CodecError::OutOfRange(message)),
            4 => Err(CodecError::OutputSize {
                expected: first,
                actual: second,
            }),
            5 => Err(CodecError::OutputLimit { limit: first }),
            6 => Err(CodecError::Unsupported(message)),
            // A panic in the kernel's module, re-raised here: `run` reports it as the
            // internal error it is.
            _ => panic!("{message}"),
        }
    }
}

/// [`Kernel::max_output_len`]'s answer for a kernel whose output size its caller states.
const EXACT: usize = usize::MAX;

/// The part of a kernel every module may read: a C layout.
#[repr(C)]
pub struct Kernel {
    abi: u32,
    /// Run the kernel on `input` into `output` (initialised memory when `initialized`); the
    /// result goes to `outcome`.
    run: unsafe extern "C" fn(
        kernel: *const Kernel,
        input: *const u8,
        input_len: usize,
        output: *mut u8,
        output_len: usize,
        initialized: bool,
        outcome: *mut Outcome,
    ),
    /// The most bytes the kernel can write for `input_len` input bytes, or [`EXACT`].
    max_output_len: unsafe extern "C" fn(kernel: *const Kernel, input_len: usize) -> usize,
}

/// The most bytes a kernel writes for some input length, `None` when its caller states it.
type MaxLen = Option<Box<dyn Fn(usize) -> usize + Send + Sync>>;

/// A kernel's header and the state only its own module reads.
#[repr(C)]
struct Cell<F> {
    header: Kernel,
    run: F,
    max_len: MaxLen,
}

/// # Safety
/// `kernel` is the header of a live `Cell<F>` (the capsule keeps it alive), `input` and
/// `output` are valid for their lengths and do not overlap, `output` is initialised when
/// `initialized` says so, and `outcome` is writable.
unsafe extern "C" fn run_cell<F>(
    kernel: *const Kernel,
    input: *const u8,
    input_len: usize,
    output: *mut u8,
    output_len: usize,
    initialized: bool,
    outcome: *mut Outcome,
) where
    F: Fn(&[u8], Target<'_>) -> CodecResult<usize> + Send + Sync,
{
    // SAFETY: the caller's contract above; `header` is the first field of the repr(C) cell.
    let (cell, input, outcome) = unsafe {
        (
            &*kernel.cast::<Cell<F>>(),
            std::slice::from_raw_parts(input, input_len),
            &mut *outcome,
        )
    };
    let target = if initialized {
        // SAFETY: valid and initialised for `output_len` bytes (the contract).
        Target::Init(unsafe { std::slice::from_raw_parts_mut(output, output_len) })
    } else {
        // SAFETY: valid for `output_len` bytes (the contract).
        Target::Uninit(unsafe { std::slice::from_raw_parts_mut(output.cast(), output_len) })
    };
    // A panic must not unwind into another module's frames: it becomes an error.
    match catch_unwind(AssertUnwindSafe(|| (cell.run)(input, target))) {
        Ok(Ok(written)) => outcome.written = written,
        Ok(Err(err)) => outcome.set_error(&err),
        Err(panic) => {
            outcome.error = ErrorCode::Panic as u32;
            outcome.set_message(&format!("a codec panicked: {}", panic_detail(&*panic)));
        }
    }
}

/// # Safety
/// `kernel` is the header of a live `Cell<F>`.
unsafe extern "C" fn max_len_cell<F>(kernel: *const Kernel, input_len: usize) -> usize {
    // SAFETY: the contract above; `header` is the first field of the repr(C) cell.
    let cell = unsafe { &*kernel.cast::<Cell<F>>() };
    catch_unwind(AssertUnwindSafe(|| {
        cell.max_len.as_ref().map_or(EXACT, |max| max(input_len))
    }))
    .unwrap_or(EXACT)
}

fn capsule<F>(py: Python<'_>, run: F, max_len: MaxLen) -> PyResult<Bound<'_, PyCapsule>>
where
    F: Fn(&[u8], Target<'_>) -> CodecResult<usize> + Send + Sync + 'static,
{
    let cell = Cell {
        header: Kernel {
            abi: ABI,
            run: run_cell::<F>,
            max_output_len: max_len_cell::<F>,
        },
        run,
        max_len,
    };
    PyCapsule::new_with_value(py, cell, CAPSULE)
}

/// A capsule holding `decode` as a kernel: `decode(input, output)` decodes one chunk into the
/// start of `output` and returns the bytes written.
pub fn decode_kernel<F>(py: Python<'_>, decode: F) -> PyResult<Bound<'_, PyCapsule>>
where
    F: Fn(&[u8], &mut [u8]) -> CodecResult<usize> + Send + Sync + 'static,
{
    capsule(
        py,
        move |input: &[u8], target: Target<'_>| decode(input, target.into_init()),
        None,
    )
}

/// A capsule holding a decoding that knows the most it writes: `decode(input, output)` as
/// for [`decode_kernel`], writing at most `max_len(input.len())` bytes (a checksum's), so
/// that it may run outside another bytes codec.
pub fn bounded_decode_kernel<F, M>(
    py: Python<'_>,
    decode: F,
    max_len: M,
) -> PyResult<Bound<'_, PyCapsule>>
where
    F: Fn(&[u8], &mut [u8]) -> CodecResult<usize> + Send + Sync + 'static,
    M: Fn(usize) -> usize + Send + Sync + 'static,
{
    capsule(
        py,
        move |input: &[u8], target: Target<'_>| decode(input, target.into_init()),
        Some(Box::new(max_len)),
    )
}

/// A capsule holding an element-wise array transformation (a cast, scale and offset, in
/// either direction) as a kernel: `apply(input, output)` fills all of `output`, whose size the
/// chain states.
pub fn array_kernel<F>(py: Python<'_>, apply: F) -> PyResult<Bound<'_, PyCapsule>>
where
    F: Fn(&[u8], &mut [u8]) -> CodecResult<()> + Send + Sync + 'static,
{
    decode_kernel(py, move |input: &[u8], output: &mut [u8]| {
        apply(input, output)?;
        Ok(output.len())
    })
}

/// A capsule holding a compressor's encoding as a kernel: `encode(input, target)` writes one
/// chunk's stream at the start of `target` (which has `max_len(input.len())` bytes of room)
/// and returns its length.
pub fn encode_kernel<F, M>(py: Python<'_>, encode: F, max_len: M) -> PyResult<Bound<'_, PyCapsule>>
where
    F: Fn(&[u8], Target<'_>) -> CodecResult<usize> + Send + Sync + 'static,
    M: Fn(usize) -> usize + Send + Sync + 'static,
{
    capsule(py, encode, Some(Box::new(max_len)))
}

/// A kernel made by any of our wheels, from its capsule (checked by name and ABI version),
/// usable by the runtime on any thread: it holds the capsule, so the kernel outlives it.
pub struct ForeignKernel {
    kernel: *const Kernel,
    _capsule: Py<PyCapsule>,
}

// SAFETY: a kernel's state is `Send + Sync` (`capsule`'s bound), its header is plain data and
// function pointers, and the capsule (which keeps it alive) is only released, never used.
unsafe impl Send for ForeignKernel {}
// SAFETY: as above.
unsafe impl Sync for ForeignKernel {}

impl ForeignKernel {
    /// The kernel in `capsule`.
    pub fn new(capsule: &Bound<'_, PyAny>) -> PyResult<Self> {
        let capsule = capsule.cast::<PyCapsule>()?;
        let pointer = capsule.pointer_checked(Some(CAPSULE))?;
        // SAFETY: a capsule of this name holds a `Cell` whose repr(C) header is a `Kernel`,
        // alive as long as the capsule, which `Self` holds.
        let kernel = unsafe { pointer.cast::<Kernel>().as_ref() };
        if kernel.abi != ABI {
            let message = format!(
                "a codec kernel of ABI {} cannot run here (ABI {ABI}): install zarr-codecs \
                 wheels of one version",
                kernel.abi
            );
            return Err(pyo3::exceptions::PyTypeError::new_err(message));
        }
        Ok(Self {
            kernel: std::ptr::from_ref(kernel),
            _capsule: capsule.clone().unbind(),
        })
    }
}

impl zarr_codec_kernel::Kernel for ForeignKernel {
    fn run(&self, input: &[u8], output: Target<'_>) -> CodecResult<usize> {
        let mut outcome = Outcome::new();
        let (pointer, len, initialized) = match output {
            Target::Init(bytes) => (bytes.as_mut_ptr(), bytes.len(), true),
            Target::Uninit(bytes) => (bytes.as_mut_ptr().cast(), bytes.len(), false),
        };
        // SAFETY: the slices are valid for their lengths and cannot overlap (one is shared,
        // the other exclusive), `initialized` says what the output holds, and `self.kernel`
        // is a checked kernel kept alive by the capsule held.
        unsafe {
            ((*self.kernel).run)(
                self.kernel,
                input.as_ptr(),
                input.len(),
                pointer,
                len,
                initialized,
                &raw mut outcome,
            );
        }
        outcome.into_result()
    }

    fn max_output_len(&self, input_len: usize) -> Option<usize> {
        // SAFETY: `self.kernel` is a checked live kernel.
        let max = unsafe { ((*self.kernel).max_output_len)(self.kernel, input_len) };
        (max != EXACT).then_some(max)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_cross_the_abi_as_they_were() {
        let errors = [
            CodecError::Configuration("bad level".into()),
            CodecError::Corrupt("truncated".into()),
            CodecError::OutOfRange("too big".into()),
            CodecError::Unsupported("no v2".into()),
            CodecError::OutputSize {
                expected: 10,
                actual: 3,
            },
            CodecError::OutputLimit { limit: 7 },
        ];
        for err in errors {
            let mut outcome = Outcome::new();
            outcome.set_error(&err);
            assert_eq!(outcome.into_result().expect_err("an error"), err);
        }
    }

    #[test]
    fn long_messages_are_cut_on_a_character_boundary() {
        let mut outcome = Outcome::new();
        outcome.set_error(&CodecError::Corrupt("é".repeat(400)));
        let Err(CodecError::Corrupt(message)) = outcome.into_result() else {
            panic!("not corrupt")
        };
        assert_eq!(message, "é".repeat(MESSAGE / 2));
    }
}

//! The bindings every array-to-bytes codec wheel shares (pcodec, zfpy): a whole numpy array
//! encoded as one chunk, and a stream decoded into a caller's array, the chunk's shape and type
//! taken from the array, the GIL released while the codec works.

use pyo3::prelude::*;
use pyo3::types::PyBytes;
use std::sync::OnceLock;
use zarr_codec_shapes::{ArrayToBytesCodec, ChunkSpec, CodecFromJson};

use crate::{ArrayInput, ArrayOutput, BytesInput, IntoPyResult, parse_codec_json, run};

/// `array` (anything numpy converts to native, C-order elements) as one chunk of its own shape
/// and type, encoded by the codec of metadata `json`.
pub fn encode_array<'py, C>(
    json: &str,
    zarr_format: u8,
    array: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyBytes>>
where
    C: CodecFromJson + ArrayToBytesCodec,
{
    let py = array.py();
    let codec: C = parse_codec_json(py, json, zarr_format)?;
    let input = ArrayInput::new(array)?;
    let spec = ChunkSpec::with_default_fill_value(input.shape().to_vec(), input.data_type())
        .into_py_result(py)?;
    let bytes = input.as_bytes();
    let encoded = run(py, || codec.encode(bytes, &spec))?;
    Ok(PyBytes::new(py, &encoded))
}

/// `data` decoded by the codec of metadata `json` into `out` (a C-contiguous, writable numpy
/// array), the chunk being of `out`'s shape and type. The codec is parsed once and kept in
/// `parsed` (the macro below gives each wheel one): decoding reads no configuration.
pub fn decode_array_into<C>(
    parsed: &OnceLock<C>,
    json: &str,
    zarr_format: u8,
    data: &Bound<'_, PyAny>,
    out: &Bound<'_, PyAny>,
) -> PyResult<()>
where
    C: CodecFromJson + ArrayToBytesCodec,
{
    let py = data.py();
    let codec = if let Some(codec) = parsed.get() {
        codec
    } else {
        let codec: C = parse_codec_json(py, json, zarr_format)?;
        parsed.get_or_init(|| codec)
    };
    let input = BytesInput::new(data)?;
    let mut output = ArrayOutput::new(out)?;
    let spec = ChunkSpec::with_default_fill_value(output.shape().to_vec(), output.data_type())
        .into_py_result(py)?;
    let copy = output
        .overlaps(input.as_slice())
        .then(|| input.as_slice().to_vec());
    let bytes = copy.as_deref().unwrap_or(input.as_slice());
    let target = output.as_mut_bytes();
    run(py, || codec.decode_into(bytes, target, &spec).map(|_| ()))
}

/// A wheel's `encode(json, zarr_format, array)` and `decode_into(data, out)` functions for the
/// array-to-bytes codec type `$codec` (decoding needs no configuration: `$json` is the
/// codec's default metadata), for its `#[pymodule]` to add with `wrap_pyfunction!`.
#[macro_export]
macro_rules! array_bytes_functions {
    ($codec:ty, $json:expr) => {
        /// `array` (anything numpy converts to native, C-order elements) encoded as one chunk
        /// of its own shape and type by the codec of metadata `json`.
        #[pyo3::pyfunction]
        fn encode<'py>(
            json: &str,
            zarr_format: u8,
            array: &pyo3::Bound<'py, pyo3::PyAny>,
        ) -> pyo3::PyResult<pyo3::Bound<'py, pyo3::types::PyBytes>> {
            $crate::encode_array::<$codec>(json, zarr_format, array)
        }

        /// `data` decoded into `out` (C-contiguous, writable), the chunk being of `out`'s
        /// shape and type, which the stored data must state.
        #[pyo3::pyfunction]
        fn decode_into(
            data: &pyo3::Bound<'_, pyo3::PyAny>,
            out: &pyo3::Bound<'_, pyo3::PyAny>,
        ) -> pyo3::PyResult<()> {
            static PARSED: std::sync::OnceLock<$codec> = std::sync::OnceLock::new();
            $crate::decode_array_into::<$codec>(&PARSED, $json, 2, data, out)
        }
    };
}

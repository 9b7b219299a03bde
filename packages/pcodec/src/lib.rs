//! `zarr_codec_pcodec._pcodec`: the compiled half of the `zarr-codec-pcodec` wheel, over
//! `crates/zarr-codec-pcodec` (pco 1.1). Each call works with the GIL released.
//!
//! - `encode(json, zarr_format, array)`: an array of numbers as one pco file;
//! - `decode_into(data, out)`: a pco file's numbers into a caller's array of their type and
//!   count;
//! - `stored_type(data)`: the Zarr data type a pco file holds.

use pyo3::prelude::*;
use pyo3::types::PyBytes;
use std::sync::Arc;

use numpy::PyUntypedArray;
use zarr_codec_pcodec::{PCodec, PcodecElements};
use zarr_codec_python::{
    BytesInput, IntoPyResult, PyBytesCodec, dtype_of, new_array, parse_codec_json, run,
};
use zarr_codec_shapes::DataType;

zarr_codec_python::array_bytes_functions!(PCodec, r#"{"id": "pcodec"}"#);

/// All the numbers of pco `data` as `(data type name, bytes)` (`None`: a file of none), as
/// numcodecs decodes without an output array.
#[pyfunction]
fn decode_all<'py>(data: &Bound<'py, PyAny>) -> PyResult<Option<(String, Bound<'py, PyBytes>)>> {
    let py = data.py();
    let input = BytesInput::new(data)?;
    let bytes = input.as_slice();
    let found = run(py, || PCodec::decode_all(bytes, None))?;
    Ok(found.map(|(data_type, bytes)| (data_type.to_string(), PyBytes::new(py, &bytes))))
}

/// The codec of metadata `json` over chunks of `data_type` (a Zarr data type name) as a
/// compiled bytes codec of their element bytes (this machine's order), for codec chains.
#[pyfunction]
fn element_codec(
    py: Python<'_>,
    json: &str,
    zarr_format: u8,
    data_type: &str,
) -> PyResult<PyBytesCodec> {
    let codec: PCodec = parse_codec_json(py, json, zarr_format)?;
    let data_type = DataType::from_name(data_type).into_py_result(py)?;
    let elements = PcodecElements::new(codec, data_type).into_py_result(py)?;
    PyBytesCodec::new(Arc::new(elements)).into_py_result(py)
}

/// pco `data` as a new array of the numbers it holds, its type and count from the file's
/// header (a file that does not fill it exactly is corrupt); `None` for a file of no numbers
/// or one that states no count (then `decode_all`). One call: numcodecs' `decode` without
/// an output array.
#[pyfunction]
fn decode<'py>(data: &Bound<'py, PyAny>) -> PyResult<Option<Bound<'py, PyUntypedArray>>> {
    let py = data.py();
    let input = BytesInput::new(data)?;
    let bytes = input.as_slice();
    let Some((data_type, count)) = PCodec::stored_type_and_count(bytes).into_py_result(py)? else {
        return Ok(None);
    };
    let dtype = dtype_of(py, data_type)?;
    let mut array = new_array(&dtype, &[count])?;
    let out = array.as_mut_bytes();
    run(py, || PCodec::decode_numbers_into(bytes, data_type, out))?;
    Ok(Some(array.into_array()))
}

/// How many numbers pco `data` says it holds (0: no hint), to size an output.
#[pyfunction]
fn count_hint(data: &Bound<'_, PyAny>) -> PyResult<usize> {
    let input = BytesInput::new(data)?;
    PCodec::count_hint(input.as_slice()).into_py_result(data.py())
}

/// The Zarr data type name of the numbers pco `data` holds (`None`: a file of none).
#[pyfunction]
fn stored_type(data: &Bound<'_, PyAny>) -> PyResult<Option<String>> {
    let input = BytesInput::new(data)?;
    let found = PCodec::stored_type(input.as_slice()).into_py_result(data.py())?;
    Ok(found.map(|data_type| data_type.to_string()))
}

/// `X86_64_V3_FEATURES` and `x86_64_v3_supported()` from one list of CPU features.
macro_rules! x86_64_v3_features {
    ($($feature:tt),+) => {
        /// The CPU features of the `x86-64-v3` build, as its `RUSTFLAGS` enable them
        /// (`scripts/build_wheels.py`): the `pcodec` wheel's own set.
        const X86_64_V3_FEATURES: &[&str] = &[$($feature),+];

        /// Whether this CPU runs the `x86-64-v3` build: every one of `X86_64_V3_FEATURES`.
        #[pyfunction]
        fn x86_64_v3_supported() -> bool {
            #[cfg(target_arch = "x86_64")]
            {
                true $(&& std::arch::is_x86_feature_detected!($feature))+
            }
            #[cfg(not(target_arch = "x86_64"))]
            {
                false
            }
        }
    };
}

x86_64_v3_features!("avx2", "bmi1", "bmi2", "lzcnt");

/// The module, built twice for x86-64 wheels: `_pcodec` for every CPU, and with the
/// `x86-64-v3` feature (and the CPU features above) `_pcodec_x86_64_v3`, which the package
/// imports instead where the CPU has them. pco's decoder needs them to run at the `pcodec`
/// wheel's speed (its offsets loop vectorises with AVX2 gathers, its bit reads use BMI2).
#[pymodule]
#[cfg_attr(feature = "x86-64-v3", pyo3(name = "_pcodec_x86_64_v3"))]
fn _pcodec(module: &Bound<'_, PyModule>) -> PyResult<()> {
    let build = if cfg!(feature = "x86-64-v3") {
        "x86-64-v3"
    } else {
        "baseline"
    };
    module.add("ENGINE", "pco 1.1.0")?;
    module.add("BUILD", build)?;
    module.add("X86_64_V3_FEATURES", X86_64_V3_FEATURES.to_vec())?;
    for function in [
        wrap_pyfunction!(encode, module)?,
        wrap_pyfunction!(decode_into, module)?,
        wrap_pyfunction!(decode, module)?,
        wrap_pyfunction!(stored_type, module)?,
        wrap_pyfunction!(decode_all, module)?,
        wrap_pyfunction!(element_codec, module)?,
        wrap_pyfunction!(count_hint, module)?,
        wrap_pyfunction!(x86_64_v3_supported, module)?,
    ] {
        module.add_function(function)?;
    }
    Ok(())
}

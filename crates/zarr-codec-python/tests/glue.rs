//! The glue against a real embedded Python with numpy and `zarr_codec_shapes` installed.

use std::path::PathBuf;
use std::sync::Arc;

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use zarr_codec_python::kernel::ForeignKernel;
use zarr_codec_python::{
    ArrayInput, BytesInput, BytesOutput, data_type_of, dtype_of, new_array, numpy_from_vec, run,
    to_py_err,
};
use zarr_codec_runtime::{Output, Plan, Step};
use zarr_codec_shapes::{CodecError, DataType};

// SAFETY: CPython's `int PyGILState_Check(void)` (stable ABI) only reads the calling thread's
// state; pyo3 does not re-export it for abi3 builds.
unsafe extern "C" {
    safe fn PyGILState_Check() -> std::ffi::c_int;
}

/// The project's site-packages: `$ZARR_CODEC_TEST_SITE`, else the repository's `.venv`.
fn site_packages() -> PathBuf {
    if let Some(dir) = std::env::var_os("ZARR_CODEC_TEST_SITE") {
        return PathBuf::from(dir);
    }
    let venv = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../.venv/lib");
    std::fs::read_dir(&venv)
        .expect("run scripts/setup first: no .venv")
        .filter_map(Result::ok)
        .map(|entry| entry.path().join("site-packages"))
        .find(|path| path.is_dir())
        .expect("no site-packages in .venv")
}

fn with_python(test: impl for<'py> FnOnce(Python<'py>) -> PyResult<()>) {
    Python::attach(|py| {
        let site = site_packages();
        py.import("site")?
            .call_method1("addsitedir", (site.to_string_lossy().as_ref(),))?;
        test(py)
    })
    .unwrap_or_else(|err| panic!("Python error: {err}"));
}

fn eval<'py>(py: Python<'py>, code: &str) -> PyResult<Bound<'py, PyAny>> {
    let globals = PyDict::new(py);
    globals.set_item("np", py.import("numpy")?)?;
    let code = std::ffi::CString::new(code).expect("no NUL in test code");
    py.eval(&code, Some(&globals), None)
}

/// `numpy.asarray(expr).tobytes(order=order)`: "C", or "A" (memory order when contiguous).
fn bytes_in_order(py: Python<'_>, expr: &str, order: char) -> PyResult<Vec<u8>> {
    let code = format!("np.asarray({expr}).tobytes(order='{order}')");
    Ok(eval(py, &code)?.cast_into::<PyBytes>()?.as_bytes().to_vec())
}

#[test]
fn contiguous_inputs_are_borrowed_without_copying() {
    with_python(|py| {
        let array = eval(py, "np.arange(12, dtype='<f4')")?;
        let input = BytesInput::new(&array)?;
        let address: usize = array.getattr("ctypes")?.getattr("data")?.extract()?;
        assert_eq!(input.as_slice().as_ptr() as usize, address);
        assert_eq!(input.len(), 48);
        for source in ["b'zarr'", "bytearray(b'zarr')", "memoryview(b'zarr')"] {
            assert_eq!(BytesInput::new(&eval(py, source)?)?.as_slice(), b"zarr");
        }
        assert!(BytesInput::new(&eval(py, "b''")?)?.is_empty());
        Ok(())
    });
}

#[test]
fn fortran_ordered_inputs_are_borrowed_in_memory_order() {
    // numcodecs serialises a contiguous array in its memory order; Zarr v2 arrays with order
    // "F" are stored that way, so a C-order copy would store every chunk transposed.
    with_python(|py| {
        for expr in [
            "np.asfortranarray(np.arange(24, dtype='<f8').reshape(4, 6))",
            "np.arange(24, dtype='<u2').reshape(2, 3, 4, order='F')",
        ] {
            let array = eval(py, expr)?;
            let input = BytesInput::new(&array)?;
            let address: usize = array.getattr("ctypes")?.getattr("data")?.extract()?;
            assert_eq!(input.as_slice().as_ptr() as usize, address, "{expr}");
            assert_eq!(input.as_slice(), bytes_in_order(py, expr, 'A')?.as_slice());
            assert_ne!(input.as_slice(), bytes_in_order(py, expr, 'C')?.as_slice());
        }
        Ok(())
    });
}

#[test]
fn datetimes_are_read_as_their_int64_bytes() {
    with_python(|py| {
        for expr in [
            "np.arange(5, dtype='i8').view('M8[ns]')",
            "np.arange(6, dtype='i8').view('m8[s]').reshape(2, 3, order='F')",
        ] {
            let input = BytesInput::new(&eval(py, expr)?)?;
            let int64 = format!("({expr}).view('i8')");
            assert_eq!(
                input.as_slice(),
                bytes_in_order(py, &int64, 'A')?.as_slice()
            );
        }
        let out = eval(py, "np.zeros(2, dtype='M8[ms]')")?;
        BytesOutput::new(&out)?.as_mut_slice()[0] = 7;
        assert_eq!(
            out.call_method1("view", ("i8",))?
                .get_item(0)?
                .extract::<i64>()?,
            7
        );
        Ok(())
    });
}

#[test]
fn object_arrays_are_refused_as_inputs_and_outputs() {
    // Their buffers hold pointers: compressing them stores addresses, and decoding into them
    // writes over pointers the interpreter later follows.
    with_python(|py| {
        let errors = py.import("zarr_codec_shapes.errors")?;
        let class = errors.getattr("BufferTypeError")?;
        for expr in [
            "np.array(['a', 'b'], dtype=object)",
            "np.empty(10, dtype=object)",
            "np.empty(3, dtype=[('a', 'i4'), ('b', 'O')])",
            "np.array(None, dtype=object)",
        ] {
            let obj = eval(py, expr)?;
            let err = BytesInput::new(&obj).err().expect(expr);
            assert!(err.is_instance(py, &class), "{expr}");
            assert!(err.is_instance_of::<pyo3::exceptions::PyTypeError>(py));
            let err = BytesOutput::new(&obj).err().expect(expr);
            assert!(err.is_instance(py, &class), "{expr}");
        }
        // A field whose name holds an "O" is not an object field.
        let named = "np.zeros(2, dtype=[('Offset', '<i4')])";
        assert_eq!(BytesInput::new(&eval(py, named)?)?.len(), 8);
        Ok(())
    });
}

#[test]
fn strided_inputs_are_copied_in_c_order() {
    with_python(|py| {
        for expr in [
            "np.arange(60, dtype='<i2').reshape(6, 10)[::2, 1::3]",
            "np.asfortranarray(np.arange(24, dtype='<f8').reshape(4, 6))[::2]",
            "np.arange(10, dtype='u1')[::-1]",
            "np.arange(8, dtype='>u4')[::2]",
            "np.zeros((3, 0))[:, ::2]",
            "np.array(7.5, dtype='>f8')",
        ] {
            let input = BytesInput::new(&eval(py, expr)?)?;
            assert_eq!(
                input.as_slice(),
                bytes_in_order(py, expr, 'C')?.as_slice(),
                "{expr}"
            );
        }
        Ok(())
    });
}

#[test]
fn objects_without_a_buffer_are_type_errors() {
    with_python(|py| {
        let class = py
            .import("zarr_codec_shapes.errors")?
            .getattr("BufferTypeError")?;
        for expr in ["[1, 2, 3]", "'text'", "None"] {
            let err = BytesInput::new(&eval(py, expr)?).err().expect(expr);
            assert!(err.is_instance_of::<pyo3::exceptions::PyTypeError>(py));
            assert!(err.is_instance(py, &class), "{expr}");
            assert!(BytesOutput::new(&eval(py, expr)?).is_err(), "{expr}");
        }
        Ok(())
    });
}

#[test]
fn outputs_must_be_writable_and_contiguous() {
    with_python(|py| {
        // Fortran order is contiguous too: written in memory order, as numcodecs writes it.
        let fortran = eval(py, "np.zeros((2, 2), dtype='u1', order='F')")?;
        BytesOutput::new(&fortran)?
            .as_mut_slice()
            .copy_from_slice(&[1, 2, 3, 4]);
        // Element [i, j] of a Fortran-ordered 2x2 array is byte i + 2j.
        let columns: Vec<Vec<u8>> = fortran.getattr("T")?.call_method0("tolist")?.extract()?;
        assert_eq!(columns, [[1, 2], [3, 4]]);
        let target = eval(py, "bytearray(4)")?;
        BytesOutput::new(&target)?
            .as_mut_slice()
            .copy_from_slice(b"abcd");
        assert_eq!(target.extract::<Vec<u8>>()?, b"abcd");
        let errors = py.import("zarr_codec_shapes.errors")?;
        for bad in [
            "b'abcd'",
            "np.zeros(8, dtype='u1')[::2]",
            "memoryview(bytearray(4)).toreadonly()",
            "np.zeros((), dtype='u1')",
        ] {
            let err = BytesOutput::new(&eval(py, bad)?).err().expect(bad);
            assert!(
                err.is_instance(py, &errors.getattr("OutputSizeError")?),
                "{bad}"
            );
        }
        Ok(())
    });
}

#[test]
fn errors_become_the_zarr_codec_classes() {
    with_python(|py| {
        let errors = py.import("zarr_codec_shapes.errors")?;
        let cases = [
            (CodecError::configuration("bad level"), "ConfigurationError"),
            (CodecError::corrupt("bad crc"), "CorruptInputError"),
            (CodecError::out_of_range("too big"), "OutOfRangeError"),
            (
                CodecError::OutputSize {
                    expected: 4,
                    actual: 2,
                },
                "OutputSizeError",
            ),
            (CodecError::unsupported("no int4"), "UnsupportedError"),
        ];
        for (error, class) in cases {
            let raised = to_py_err(py, &error);
            assert!(raised.is_instance(py, &errors.getattr(class)?), "{class}");
            assert!(raised.is_instance(py, &errors.getattr("CodecError")?));
            assert!(raised.is_instance_of::<pyo3::exceptions::PyValueError>(py));
            assert_eq!(raised.value(py).str()?.to_string(), error.to_string());
        }
        Ok(())
    });
}

#[test]
fn run_releases_the_gil_and_catches_panics() {
    with_python(|py| {
        let held = run(py, || Ok(PyGILState_Check()))?;
        assert_eq!(held, 0, "the GIL was held during codec work");
        let err = run(py, || -> zarr_codec_shapes::Result<()> {
            Err(CodecError::corrupt("x"))
        })
        .expect_err("an error");
        assert!(
            err.is_instance(
                py,
                &py.import("zarr_codec_shapes")?
                    .getattr("CorruptInputError")?
            )
        );
        let err =
            run(py, || -> zarr_codec_shapes::Result<()> { panic!("boom") }).expect_err("panic");
        assert!(err.is_instance(py, &py.import("zarr_codec_shapes")?.getattr("CodecError")?));
        assert!(err.value(py).str()?.to_string().contains("boom"));
        Ok(())
    });
}

#[test]
fn arrays_become_native_c_order_element_bytes() {
    with_python(|py| {
        for (expr, data_type) in [
            ("np.arange(6, dtype='<f4').reshape(2, 3)", DataType::Float32),
            ("np.arange(6, dtype='>f4').reshape(2, 3)", DataType::Float32),
            (
                "np.asfortranarray(np.arange(6, dtype='i8').reshape(2, 3))",
                DataType::Int64,
            ),
            ("np.array(True)", DataType::Bool),
            ("np.arange(20, dtype='>u2')[::3]", DataType::UInt16),
        ] {
            let input = ArrayInput::new(&eval(py, expr)?)?;
            assert_eq!(input.data_type(), data_type, "{expr}");
            let native = format!("np.asarray({expr}, dtype=({expr}).dtype.newbyteorder('='))");
            assert_eq!(
                input.as_bytes(),
                bytes_in_order(py, &native, 'C')?.as_slice(),
                "{expr}"
            );
            let shape: Vec<usize> = eval(py, &format!("({expr}).shape"))?.extract()?;
            assert_eq!(input.shape(), shape.as_slice());
        }
        let listed = ArrayInput::new(&eval(py, "[1.5, 2.5]")?)?;
        assert_eq!(listed.data_type(), DataType::Float64);
        Ok(())
    });
}

#[test]
fn extension_dtypes_map_by_name() {
    with_python(|py| {
        if py.import("ml_dtypes").is_err() {
            return Ok(()); // ml_dtypes is optional; the core types are covered above
        }
        // Their kinds and sizes can be numpy's own (int4 is one signed byte): by name, not
        // by the fast path for numpy's built-in types.
        for (name, data_type) in [
            ("bfloat16", DataType::BFloat16),
            ("int4", DataType::Int4),
            ("uint4", DataType::UInt4),
            ("int2", DataType::Int2),
        ] {
            let dtype = eval(py, &format!("np.dtype(__import__('ml_dtypes').{name})"))?;
            let descr = dtype.cast_into::<numpy::PyArrayDescr>()?;
            assert_eq!(data_type_of(&descr)?, data_type, "{name}");
        }
        Ok(())
    });
}

#[test]
fn numpy_dtypes_and_data_types_map_both_ways() {
    with_python(|py| {
        // Every Zarr type numpy itself names (the others are `ml_dtypes`', above, which once
        // imported name theirs too: those are left out by their scalar type's module).
        let numpy_dtype = eval(
            py,
            "lambda name: (lambda d: d if d.type.__module__ == 'numpy' else None)(np.dtype(name))",
        )?;
        let mut checked = 0;
        for data_type in DataType::ALL {
            let Ok(named) = numpy_dtype.call1((data_type.name(),)) else {
                continue;
            };
            if named.is_none() {
                continue;
            }
            let descr = dtype_of(py, data_type)?;
            assert!(descr.as_any().eq(&named)?, "{data_type}");
            assert_eq!(data_type_of(&descr)?, data_type);
            let swapped = named.call_method0("newbyteorder")?;
            let swapped = swapped.cast_into::<numpy::PyArrayDescr>()?;
            assert_eq!(data_type_of(&swapped)?, data_type, "{data_type} swapped");
            checked += 1;
        }
        // bool, 8 integer, 3 float and 2 complex types.
        assert_eq!(checked, 14);
        let long_double = eval(py, "np.dtype('longdouble')")?;
        assert!(data_type_of(&long_double.cast_into::<numpy::PyArrayDescr>()?).is_err());
        Ok(())
    });
}

#[test]
fn unsupported_dtypes_are_codec_errors() {
    with_python(|py| {
        let err = ArrayInput::new(&eval(py, "np.array(['a'])")?)
            .err()
            .expect("strings");
        assert!(
            err.is_instance(
                py,
                &py.import("zarr_codec_shapes")?
                    .getattr("ConfigurationError")?
            )
        );
        Ok(())
    });
}

#[test]
fn new_bytes_are_filled_with_the_gil_released_or_dropped() {
    with_python(|py| {
        let filled = zarr_codec_python::new_bytes_with(py, 3, |target| {
            for (slot, value) in target.iter_mut().zip([7u8, 8, 9]) {
                slot.write(value);
            }
            Ok(PyGILState_Check() == 0)
        })?;
        assert_eq!(filled.expect("filled").as_bytes(), [7, 8, 9]);
        let declined = zarr_codec_python::new_bytes_with(py, 3, |_| Ok(false))?;
        assert!(declined.is_none());
        let failed = zarr_codec_python::new_bytes_with(py, 3, |_| Err(CodecError::corrupt("x")));
        let err = failed.expect_err("an error");
        assert!(
            err.is_instance(
                py,
                &py.import("zarr_codec_shapes")?
                    .getattr("CorruptInputError")?
            )
        );
        Ok(())
    });
}

#[test]
fn new_arrays_and_vec_outputs() {
    with_python(|py| {
        let dtype = eval(py, "np.dtype('<u2')")?.cast_into::<numpy::PyArrayDescr>()?;
        let mut fresh = new_array(&dtype, &[2, 2])?;
        fresh
            .as_mut_bytes()
            .copy_from_slice(&[1, 0, 2, 0, 3, 0, 4, 0]);
        let array = fresh.into_array();
        let values: Vec<u16> = array
            .call_method0("ravel")?
            .call_method0("tolist")?
            .extract()?;
        assert_eq!(values, [1, 2, 3, 4]);
        let moved = numpy_from_vec(py, vec![9, 8, 7]);
        assert_eq!(
            moved.call_method0("tobytes")?.extract::<Vec<u8>>()?,
            [9, 8, 7]
        );
        Ok(())
    });
}

// -- chains of kernels ------------------------------------------------------------------

/// Kernels for the chain tests: one adding 1 to each byte, one writing each byte twice, and
/// one failing on a first byte of 0 (corrupt) or 1 (a panic).
fn test_kernels(py: Python<'_>) -> PyResult<[Bound<'_, PyAny>; 3]> {
    let add_one = zarr_codec_python::decode_kernel(py, |input: &[u8], output: &mut [u8]| {
        let target = output
            .get_mut(..input.len())
            .ok_or(CodecError::OutputSize {
                expected: input.len(),
                actual: 0,
            })?;
        target
            .iter_mut()
            .zip(input)
            .for_each(|(o, i)| *o = i.wrapping_add(1));
        Ok(input.len())
    })?;
    let twice = zarr_codec_python::decode_kernel(py, |input: &[u8], output: &mut [u8]| {
        for (pair, byte) in output.chunks_exact_mut(2).zip(input) {
            pair.fill(*byte);
        }
        Ok(input.len() * 2)
    })?;
    let failing =
        zarr_codec_python::decode_kernel(py, |input: &[u8], _: &mut [u8]| match input.first() {
            Some(0) => Err(CodecError::Corrupt("test: a zero".into())),
            Some(1) => panic!("test: a one"),
            _ => Ok(0),
        })?;
    Ok([add_one.into_any(), twice.into_any(), failing.into_any()])
}

/// The runtime steps of `(name, kernel capsule or element size to swap, output bytes or -1)`
/// tuples: the kernels of other modules run by the runtime through the ABI.
fn steps_of(py: Python<'_>, steps: &Bound<'_, PyAny>) -> PyResult<Vec<Step>> {
    steps
        .try_iter()?
        .map(|step| {
            let (name, kernel, len): (String, Bound<'_, PyAny>, i64) = step?.extract()?;
            let output = usize::try_from(len).map_or(Output::Bounded, Output::Exact);
            match (kernel.extract::<usize>(), output) {
                (Ok(size), Output::Exact(len)) => {
                    Step::swap(size, len).map_err(|err| to_py_err(py, &err))
                }
                _ => Ok(Step::kernel(
                    name,
                    Arc::new(ForeignKernel::new(&kernel)?),
                    output,
                )),
            }
        })
        .collect()
}

/// Each chunk through the plan of `steps` (a Python description) into an output of
/// `out_len` bytes, as the runtime's `Plan.run_into` does: errors as Python's.
fn run_chain(
    py: Python<'_>,
    steps: &Bound<'_, PyAny>,
    chunks: &[&[u8]],
    out_len: usize,
) -> PyResult<Vec<Vec<u8>>> {
    let plan = Plan::new(steps_of(py, steps)?, None);
    chunks
        .iter()
        .map(|chunk| {
            let mut out = vec![0; out_len];
            zarr_codec_python::run(py, || plan.run_exact(chunk, &mut out))?;
            Ok(out)
        })
        .collect()
}

#[test]
fn a_chain_runs_every_step_in_order_into_each_output() {
    with_python(|py| {
        let [add_one, twice, _] = test_kernels(py)?;
        // Decoding order: +1 (3 bytes), each byte twice (6), then the `bytes` codec
        // swapping 2-byte elements, written into the 6-byte outputs.
        let steps = pyo3::types::PyList::new(
            py,
            [
                ("a", add_one.clone(), 3usize).into_pyobject(py)?.into_any(),
                ("b", twice, 6usize).into_pyobject(py)?.into_any(),
                ("bytes", 2usize.into_pyobject(py)?.into_any(), 6usize)
                    .into_pyobject(py)?
                    .into_any(),
            ],
        )?;
        let chunks: Vec<Vec<u8>> = (0u8..9)
            .map(|i| vec![i * 3, i * 3 + 1, i * 3 + 2])
            .collect();
        let refs: Vec<&[u8]> = chunks.iter().map(Vec::as_slice).collect();
        let decoded = run_chain(py, &steps.into_any(), &refs, 6)?;
        for (chunk, out) in chunks.iter().zip(&decoded) {
            let expected: Vec<u8> = chunk.iter().flat_map(|b| [b + 1, b + 1]).collect();
            assert_eq!(out, &expected); // pairs of equal bytes: the swap leaves them
        }
        // A single step writes straight into the output.
        let one = pyo3::types::PyList::new(py, [("a", add_one, 3usize)])?;
        assert_eq!(
            run_chain(py, &one.into_any(), &[&[7, 8, 9]], 3)?,
            [vec![8, 9, 10]]
        );
        Ok(())
    });
}

#[test]
fn a_swap_step_reverses_each_element() {
    with_python(|py| {
        let [add_one, ..] = test_kernels(py)?;
        let steps = pyo3::types::PyList::new(
            py,
            [
                ("a", add_one, 4usize).into_pyobject(py)?.into_any(),
                ("bytes", 4usize.into_pyobject(py)?.into_any(), 4usize)
                    .into_pyobject(py)?
                    .into_any(),
            ],
        )?;
        assert_eq!(
            run_chain(py, &steps.into_any(), &[&[0, 1, 2, 3]], 4)?,
            [vec![4, 3, 2, 1]]
        );
        Ok(())
    });
}

fn list<'py>(
    py: Python<'py>,
    items: Vec<(&str, Bound<'py, PyAny>, usize)>,
) -> PyResult<Bound<'py, PyAny>> {
    pyo3::types::PyList::new(py, items).map(Bound::into_any)
}

#[test]
fn chain_errors_are_the_codecs_exceptions() {
    with_python(|py| {
        let [add_one, twice, failing] = test_kernels(py)?;
        let errors = py.import("zarr_codec_shapes.errors")?;
        let raised = |steps: Bound<'_, PyAny>, chunk: &[u8], out_len: usize| {
            run_chain(py, &steps, &[chunk], out_len).expect_err("an error")
        };
        // A kernel's own error, as its kind.
        let err = raised(list(py, vec![("f", failing.clone(), 4)])?, &[0], 4);
        assert!(err.is_instance(py, &errors.getattr("CorruptInputError")?));
        assert!(err.to_string().contains("test: a zero"), "{err}");
        // A kernel's panic: an internal CodecError, the process unharmed.
        let err = raised(list(py, vec![("f", failing, 4)])?, &[1], 4);
        assert!(err.is_instance(py, &errors.getattr("CodecError")?));
        assert!(err.to_string().contains("test: a one"), "{err}");
        // A step writing fewer bytes than the next expects: corrupt.
        let err = raised(
            list(py, vec![("a", add_one.clone(), 5), ("b", twice, 10)])?,
            &[1, 2],
            10,
        );
        assert!(err.is_instance(py, &errors.getattr("CorruptInputError")?));
        assert!(
            err.to_string()
                .contains("a: the chunk decodes to 2 bytes, 5 expected")
        );
        // An output of another size than the last step writes.
        let err = raised(list(py, vec![("a", add_one.clone(), 3)])?, &[1, 2, 3], 4);
        assert!(
            err.is_instance(py, &errors.getattr("OutputSizeError")?),
            "{err}"
        );
        // Not a kernel, a zero element size.
        let not_kernel = eval(py, "b'abc'")?;
        assert!(run_chain(py, &list(py, vec![("x", not_kernel, 3)])?, &[&[1]], 3).is_err());
        let zero = 0usize.into_pyobject(py)?.into_any();
        assert!(run_chain(py, &list(py, vec![("bytes", zero, 0)])?, &[&[1]], 1).is_err());
        // No steps: chunks pass as they are.
        assert_eq!(run_chain(py, &list(py, vec![])?, &[&[1]], 1)?, [vec![1]]);
        Ok(())
    });
}

#[test]
fn an_encoding_chain_ends_in_new_bytes_of_the_streams_length() {
    with_python(|py| {
        let [add_one, ..] = test_kernels(py)?;
        // A "compressor": the input's bytes reversed after a length byte, bound len + 1.
        let compress = zarr_codec_python::encode_kernel(
            py,
            |input: &[u8], target: zarr_codec_python::Target<'_>| {
                let out = target.into_init();
                out[0] = u8::try_from(input.len()).unwrap_or(u8::MAX);
                for (o, i) in out[1..].iter_mut().zip(input.iter().rev()) {
                    *o = *i;
                }
                Ok(input.len() + 1)
            },
            |len| len + 1,
        )?;
        let steps = pyo3::types::PyList::new(
            py,
            [
                ("a", add_one, 3i64).into_pyobject(py)?.into_any(),
                ("c", compress.into_any(), -1i64)
                    .into_pyobject(py)?
                    .into_any(),
            ],
        )?;
        let chunks = pyo3::types::PyList::new(
            py,
            [PyBytes::new(py, &[1, 2, 3]), PyBytes::new(py, &[7, 8, 9])],
        )?;
        let plan = Plan::new(steps_of(py, steps.as_any())?, None);
        let encoded: Vec<Vec<u8>> = chunks
            .iter()
            .map(|chunk| {
                let chunk: Vec<u8> = chunk.extract()?;
                zarr_codec_python::run(py, || plan.run_to_vec(&chunk))
            })
            .collect::<PyResult<_>>()?;
        assert_eq!(encoded, [vec![3, 4, 3, 2], vec![3, 10, 9, 8]]);
        Ok(())
    });
}

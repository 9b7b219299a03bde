//! What an array codec knows about a chunk: its shape, data type and fill value.
//!
//! See the [array-to-array and array-to-bytes codecs](https://zarr-specs.readthedocs.io/en/latest/v3/core/index.html#codecs)
//! of the Zarr v3 core specification.

use crate::data_type::DataType;
use crate::error::{CodecError, Result};
use crate::fill_value::FillValue;

/// The shape, data type and fill value of one chunk.
///
/// The data type is the fill value's; the total size in bytes is checked to fit in `isize`
/// when the spec is made, so [`num_elements`](Self::num_elements) and
/// [`num_bytes`](Self::num_bytes) cannot fail.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ChunkSpec {
    shape: Vec<usize>,
    fill_value: FillValue,
}

impl ChunkSpec {
    /// A chunk of `shape` (C order, possibly zero-dimensional) and `data_type`, filled with
    /// `fill_value`.
    ///
    /// Errors: [`CodecError::Configuration`] when `fill_value` is of another data type;
    /// [`CodecError::OutOfRange`] when the chunk's size in bytes overflows `isize`.
    pub fn new(shape: Vec<usize>, data_type: DataType, fill_value: FillValue) -> Result<Self> {
        if fill_value.data_type() != data_type {
            return Err(CodecError::configuration(format!(
                "fill value of data type {} for a chunk of data type {data_type}",
                fill_value.data_type()
            )));
        }
        let too_large = || {
            CodecError::out_of_range(format!(
                "a chunk of shape {shape:?} and data type {data_type} is too large"
            ))
        };
        let num_elements = shape
            .iter()
            .try_fold(1usize, |product, &extent| product.checked_mul(extent))
            .ok_or_else(too_large)?;
        let num_bytes = num_elements
            .checked_mul(data_type.size())
            .ok_or_else(too_large)?;
        if isize::try_from(num_bytes).is_err() {
            return Err(too_large());
        }
        Ok(Self { shape, fill_value })
    }

    /// A chunk of `shape` and `data_type` with the default (all-zero) fill value.
    pub fn with_default_fill_value(shape: Vec<usize>, data_type: DataType) -> Result<Self> {
        Self::new(shape, data_type, FillValue::default_for(data_type))
    }

    /// The extent of each dimension, in C order.
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    /// The data type of the elements.
    pub fn data_type(&self) -> DataType {
        self.fill_value.data_type()
    }

    /// The fill value.
    pub fn fill_value(&self) -> &FillValue {
        &self.fill_value
    }

    /// The number of elements: the product of the shape (1 for zero dimensions).
    pub fn num_elements(&self) -> usize {
        // Checked not to overflow in `new`.
        self.shape.iter().product()
    }

    /// The size of the chunk in bytes: elements times [`DataType::size`].
    pub fn num_bytes(&self) -> usize {
        // Checked not to overflow in `new`.
        self.num_elements() * self.data_type().size()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() -> Result<()> {
        let spec = ChunkSpec::with_default_fill_value(vec![2, 3, 4], DataType::Float64)?;
        assert_eq!(spec.num_elements(), 24);
        assert_eq!(spec.num_bytes(), 192);
        assert_eq!(spec.shape(), &[2, 3, 4]);
        let scalar = ChunkSpec::with_default_fill_value(vec![], DataType::Int4)?;
        assert_eq!((scalar.num_elements(), scalar.num_bytes()), (1, 1));
        let empty = ChunkSpec::with_default_fill_value(vec![5, 0], DataType::Complex128)?;
        assert_eq!(empty.num_bytes(), 0);
        Ok(())
    }

    #[test]
    fn overflow_and_mismatch_are_errors() {
        let error = ChunkSpec::with_default_fill_value(vec![usize::MAX, 2], DataType::UInt8)
            .expect_err("overflow");
        assert_eq!(error.kind(), crate::ErrorKind::OutOfRange);
        let error = ChunkSpec::with_default_fill_value(vec![usize::MAX / 4], DataType::Float32)
            .expect_err("overflow");
        assert_eq!(error.kind(), crate::ErrorKind::OutOfRange);
        let error = ChunkSpec::new(
            vec![1],
            DataType::Int8,
            FillValue::default_for(DataType::UInt8),
        )
        .expect_err("mismatch");
        assert_eq!(error.kind(), crate::ErrorKind::Configuration);
    }
}

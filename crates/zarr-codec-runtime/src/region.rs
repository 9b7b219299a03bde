//! Regions of arrays, and the caller's output array that a batch writes into from several
//! threads.
//!
//! A [`Region`] is a strided box of elements, one [`Span`] per dimension: the part of a chunk
//! a read needs, or the place in the output it goes to. [`OutArray`] is the output: raw
//! memory with a shape and byte strides (any numpy array's layout), written only inside
//! regions that a batch has checked to be in bounds and, for writes on several threads,
//! disjoint.

use std::marker::PhantomData;

use zarr_codec_shapes::{CodecError, Result};

/// Elements `start`, `start + step`, ... (`count` of them) along one dimension.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Span {
    /// The first index.
    pub start: usize,
    /// The distance between indices, at least 1.
    pub step: usize,
    /// How many indices.
    pub count: usize,
}

impl Span {
    /// `count` indices from `start`, one apart.
    #[must_use]
    pub const fn run(start: usize, count: usize) -> Self {
        Self {
            start,
            step: 1,
            count,
        }
    }

    /// One past the last index (`start` when empty); `None` on overflow.
    fn end(self) -> Option<usize> {
        if self.count == 0 {
            return Some(self.start);
        }
        (self.count - 1)
            .checked_mul(self.step)?
            .checked_add(self.start)?
            .checked_add(1)
    }
}

/// A strided box of elements: one [`Span`] per dimension, in C order.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Region {
    /// The spans, outermost dimension first.
    pub spans: Vec<Span>,
}

impl Region {
    /// All of an array of `shape`.
    #[must_use]
    pub fn whole(shape: &[usize]) -> Self {
        Self {
            spans: shape.iter().map(|&len| Span::run(0, len)).collect(),
        }
    }

    /// The block of `shape` elements from `start`.
    #[must_use]
    pub fn block(start: &[usize], shape: &[usize]) -> Self {
        Self {
            spans: start
                .iter()
                .zip(shape)
                .map(|(&start, &len)| Span::run(start, len))
                .collect(),
        }
    }

    /// The number of elements.
    #[must_use]
    pub fn len(&self) -> usize {
        self.spans.iter().map(|span| span.count).product()
    }

    /// Whether the region holds no element.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether this is all of an array of `shape`.
    #[must_use]
    pub fn is_whole(&self, shape: &[usize]) -> bool {
        self.spans.len() == shape.len()
            && self.spans.iter().zip(shape).all(|(span, &len)| {
                span.start == 0 && span.count == len && (span.step == 1 || len < 2)
            })
    }

    /// Checks that the region lies within an array of `shape` (the `what` of an error).
    pub fn check_within(&self, shape: &[usize], what: &str) -> Result<()> {
        if self.spans.len() != shape.len() {
            return Err(CodecError::configuration(format!(
                "{what}: a region of {} dimensions in an array of {}",
                self.spans.len(),
                shape.len()
            )));
        }
        for (span, &len) in self.spans.iter().zip(shape) {
            let inside =
                span.step >= 1 && span.end().is_some_and(|end| end <= len || span.count == 0);
            if !inside {
                return Err(CodecError::configuration(format!(
                    "{what}: {span:?} is outside a dimension of {len}"
                )));
            }
        }
        Ok(())
    }

    /// The counts per dimension.
    #[must_use]
    pub fn counts(&self) -> Vec<usize> {
        self.spans.iter().map(|span| span.count).collect()
    }

    /// The smallest box holding the region: `(first, one past the last)` per dimension;
    /// `None` for an empty region.
    fn bounds(&self) -> Option<Vec<(usize, usize)>> {
        if self.is_empty() {
            return None;
        }
        self.spans
            .iter()
            .map(|span| span.end().map(|end| (span.start, end)))
            .collect()
    }
}

/// Whether any two of `regions` may share an element (their bounding boxes meet).
#[must_use]
pub fn any_overlap(regions: &[&Region]) -> bool {
    let mut boxes: Vec<Vec<(usize, usize)>> = regions
        .iter()
        .filter_map(|region| region.bounds())
        .collect();
    boxes.sort_unstable_by_key(|bounds| bounds.first().map_or(0, |&(start, _)| start));
    for (index, first) in boxes.iter().enumerate() {
        let end = first.first().map_or(usize::MAX, |&(_, end)| end);
        for second in &boxes[index + 1..] {
            if second.first().is_some_and(|&(start, _)| start >= end) {
                break;
            }
            if first
                .iter()
                .zip(second)
                .all(|(&(a0, a1), &(b0, b1))| a0 < b1 && b0 < a1)
            {
                return true;
            }
        }
    }
    false
}

/// The caller's output array: memory with a shape, byte strides and an element size,
/// written by the threads of a batch inside checked regions only.
pub struct OutArray<'a> {
    base: *mut u8,
    shape: Vec<usize>,
    strides: Vec<isize>,
    item: usize,
    _memory: PhantomData<&'a mut [u8]>,
}

// SAFETY: an `OutArray` is a `&mut [u8]` in disguise (it borrows the memory exclusively for
// 'a); threads write through it only inside regions a batch has checked to be disjoint.
unsafe impl Send for OutArray<'_> {}
// SAFETY: as above.
unsafe impl Sync for OutArray<'_> {}

impl<'a> OutArray<'a> {
    /// A C-contiguous array of `shape` with elements of `item` bytes over all of `bytes`.
    pub fn contiguous(bytes: &'a mut [u8], shape: &[usize], item: usize) -> Result<Self> {
        let mut strides = vec![0isize; shape.len()];
        let mut stride = item;
        for (dim, &len) in shape.iter().enumerate().rev() {
            strides[dim] = isize::try_from(stride)
                .map_err(|_| CodecError::configuration("an array larger than memory"))?;
            stride = stride.saturating_mul(len);
        }
        // SAFETY: `bytes` is exclusively borrowed for 'a; `from_raw` checks the extent.
        unsafe { Self::from_raw(bytes.as_mut_ptr(), bytes.len(), 0, shape, &strides, item) }
    }

    /// An array whose element `[0, ..., 0]` is `offset` bytes into the `len` bytes at
    /// `memory`, with `shape`, byte `strides` and elements of `item` bytes. Every element must
    /// lie within the memory (checked).
    ///
    /// # Safety
    /// `memory` is valid for reads and writes of `len` bytes for 'a, and nothing else reads or
    /// writes it meanwhile.
    pub unsafe fn from_raw(
        memory: *mut u8,
        len: usize,
        offset: usize,
        shape: &[usize],
        strides: &[isize],
        item: usize,
    ) -> Result<Self> {
        let bad = |message: &str| {
            Err(CodecError::configuration(format!(
                "output array: {message}"
            )))
        };
        if shape.len() != strides.len() || item == 0 {
            return bad("shape, strides and element size do not agree");
        }
        if shape.contains(&0) {
            // No element: nothing is ever written.
        } else {
            let (mut low, mut high) = (i128::try_from(offset).unwrap_or(i128::MAX), 0i128);
            high += low;
            for (&count, &stride) in shape.iter().zip(strides) {
                let reach = i128::try_from(stride).unwrap_or(i128::MAX)
                    * i128::try_from(count - 1).unwrap_or(i128::MAX);
                if reach < 0 {
                    low += reach;
                } else {
                    high += reach;
                }
            }
            let item = i128::try_from(item).unwrap_or(i128::MAX);
            if low < 0 || high + item > i128::try_from(len).unwrap_or(i128::MAX) {
                return bad("an element lies outside its memory");
            }
        }
        Ok(Self {
            // SAFETY: `offset` is within the memory (checked above, or no element is written).
            base: unsafe { memory.add(offset.min(len)) },
            shape: shape.to_vec(),
            strides: strides.to_vec(),
            item,
            _memory: PhantomData,
        })
    }

    /// The shape.
    #[must_use]
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    /// The element size in bytes.
    #[must_use]
    pub fn item(&self) -> usize {
        self.item
    }

    /// The byte offset of the element at `index` from element `[0, ..., 0]`.
    fn offset(&self, index: impl Iterator<Item = usize>) -> isize {
        index
            .zip(&self.strides)
            .map(|(i, &stride)| {
                isize::try_from(i)
                    .unwrap_or(isize::MAX)
                    .wrapping_mul(stride)
            })
            .fold(0isize, isize::wrapping_add)
    }

    /// The bytes of `region` (within the array) when they are one contiguous run in C order.
    ///
    /// # Safety
    /// `region` is within the array, and no other thread uses its elements meanwhile.
    // `&self` hands out `&mut` to disjoint parts on several threads: the point of the type;
    // the caller's contract (checked regions, disjoint between threads) makes it sound.
    #[allow(clippy::mut_from_ref)]
    pub(crate) unsafe fn contiguous_part(&self, region: &Region) -> Option<&mut [u8]> {
        let mut expected = isize::try_from(self.item).ok()?;
        for (span, &stride) in region.spans.iter().zip(&self.strides).rev() {
            if span.count > 1 {
                if span.step != 1 || stride != expected {
                    return None;
                }
                expected = expected.checked_mul(isize::try_from(span.count).ok()?)?;
            }
        }
        let start = self.offset(region.spans.iter().map(|span| span.start));
        let len = region.len() * self.item;
        // SAFETY: the region lies within the array, whose elements lie within its memory
        // (`from_raw`), and its elements are exactly these `len` bytes; the caller keeps
        // other threads off them.
        Some(unsafe { std::slice::from_raw_parts_mut(self.base.offset(start), len) })
    }

    /// Every element of `region` (within the array) given by `element`, called with each
    /// element's position in the region, in C order, and the element's bytes.
    ///
    /// # Safety
    /// `region` is within the array, and no other thread uses its elements meanwhile.
    pub(crate) unsafe fn write_rows(
        &self,
        region: &Region,
        mut row: impl FnMut(usize, RowTarget<'_>),
    ) {
        if region.is_empty() {
            return;
        }
        let dims = region.spans.len();
        let Some(last) = region.spans.last().copied() else {
            // A 0-dimensional array: its one element.
            // SAFETY: the array's one element lies within its memory (`from_raw`).
            let bytes = unsafe { std::slice::from_raw_parts_mut(self.base, self.item) };
            row(0, RowTarget::Contiguous(bytes));
            return;
        };
        let last_stride = self.strides[dims - 1] * isize::try_from(last.step).unwrap_or(0);
        let contiguous = last.count == 1 || last_stride == isize::try_from(self.item).unwrap_or(0);
        let mut index: Vec<usize> = region.spans.iter().map(|span| span.start).collect();
        let mut position = 0;
        loop {
            let start = self.offset(index.iter().copied());
            // SAFETY: the row's elements lie within the array (the region does), so within
            // its memory; the caller keeps other threads off them.
            let target = unsafe {
                if contiguous {
                    RowTarget::Contiguous(std::slice::from_raw_parts_mut(
                        self.base.offset(start),
                        last.count * self.item,
                    ))
                } else {
                    RowTarget::Strided {
                        first: self.base.offset(start),
                        stride: last_stride,
                        count: last.count,
                        item: self.item,
                        _row: PhantomData,
                    }
                }
            };
            row(position, target);
            position += last.count;
            // The next row: the odometer over every dimension but the last.
            let mut dim = dims - 1;
            loop {
                if dim == 0 {
                    return;
                }
                dim -= 1;
                let span = region.spans[dim];
                index[dim] += span.step;
                if index[dim] < span.start + span.count * span.step {
                    break;
                }
                index[dim] = span.start;
            }
        }
    }
}

/// One row of a region in the output: the last dimension's elements.
pub(crate) enum RowTarget<'a> {
    /// One after another.
    Contiguous(&'a mut [u8]),
    /// `count` elements of `item` bytes, `stride` bytes apart from `first`.
    Strided {
        first: *mut u8,
        stride: isize,
        count: usize,
        item: usize,
        _row: PhantomData<&'a mut [u8]>,
    },
}

impl RowTarget<'_> {
    /// The row's elements from `source` (as many elements, one after another).
    pub(crate) fn copy_from(self, source: &[u8]) {
        match self {
            Self::Contiguous(bytes) => bytes.copy_from_slice(&source[..bytes.len()]),
            Self::Strided {
                first,
                stride,
                count,
                item,
                ..
            } => {
                for (element, from) in source.chunks_exact(item).take(count).enumerate() {
                    // SAFETY: element `element` of the row lies within the output (the row
                    // was made from a checked region), and `from` holds `item` bytes.
                    unsafe {
                        let to = first.offset(stride * isize::try_from(element).unwrap_or(0));
                        std::ptr::copy_nonoverlapping(from.as_ptr(), to, item);
                    }
                }
            }
        }
    }

    /// Every element of the row set to `value` (one element's bytes).
    pub(crate) fn fill(self, value: &[u8]) {
        match self {
            Self::Contiguous(bytes) => fill_with(bytes, value),
            Self::Strided {
                first,
                stride,
                count,
                item,
                ..
            } => {
                for element in 0..count {
                    // SAFETY: as in `copy_from`.
                    unsafe {
                        let to = first.offset(stride * isize::try_from(element).unwrap_or(0));
                        std::ptr::copy_nonoverlapping(value.as_ptr(), to, item);
                    }
                }
            }
        }
    }
}

/// `bytes` filled with copies of `value` (one element).
pub(crate) fn fill_with(bytes: &mut [u8], value: &[u8]) {
    if value.iter().all(|&byte| byte == value[0]) {
        bytes.fill(value[0]);
    } else {
        for element in bytes.chunks_exact_mut(value.len()) {
            element.copy_from_slice(value);
        }
    }
}

/// Rows (the last dimension's elements) of a region of a C-order array in memory, found by
/// their number in the region.
pub(crate) struct SourceRows<'a> {
    source: &'a [u8],
    strides: Vec<usize>,
    region: &'a Region,
    item: usize,
}

impl<'a> SourceRows<'a> {
    /// The rows of `region` (within `shape`) of the array in `source`.
    pub(crate) fn new(source: &'a [u8], shape: &[usize], region: &'a Region, item: usize) -> Self {
        let mut strides = vec![item; shape.len()];
        for dim in (0..shape.len().saturating_sub(1)).rev() {
            strides[dim] = strides[dim + 1] * shape[dim + 1];
        }
        Self {
            source,
            strides,
            region,
            item,
        }
    }

    /// Row `number` of the region, one element after another (gathered into `scratch` when
    /// its elements are apart in the source).
    pub(crate) fn row<'s>(&'s self, number: usize, scratch: &'s mut Vec<u8>) -> &'s [u8]
    where
        'a: 's,
    {
        let spans = &self.region.spans;
        let Some(last) = spans.last() else {
            return &self.source[..self.item];
        };
        let mut rest = number;
        let mut start = last.start * self.strides[spans.len() - 1];
        for dim in (0..spans.len() - 1).rev() {
            let span = spans[dim];
            let index = rest % span.count;
            rest /= span.count;
            start += (span.start + index * span.step) * self.strides[dim];
        }
        if last.step == 1 || last.count == 1 {
            return &self.source[start..start + last.count * self.item];
        }
        scratch.clear();
        for element in 0..last.count {
            let at = start + element * last.step * self.item;
            scratch.extend_from_slice(&self.source[at..at + self.item]);
        }
        scratch
    }
}

//! Regions of arrays, and the caller's arrays that a batch reads from and writes into from
//! several threads.
//!
//! A [`Region`] is a strided box of elements, one [`Span`] per dimension: the part of a chunk
//! a read needs, or the place in the output it goes to. [`OutArray`] is a read's output and
//! [`InArray`] a write's values: raw memory with a shape and byte strides (any numpy array's
//! layout, broadcast ones included), used only inside regions that a batch has checked to be in
//! bounds and, for writes on several threads, disjoint. `copy_region` moves the elements of
//! one region to another of the same counts, row by row (whole rows at once where both are
//! contiguous).

use std::marker::PhantomData;

use zarr_codec_shapes::{CodecError, Result};

use crate::streaming;

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

    /// Checks that `place` holds as many elements per dimension as this part of a `stored`
    /// (`"chunk"`, `"shard"`); `what` begins the error.
    pub(crate) fn check_same_counts(&self, place: &Region, what: &str, stored: &str) -> Result<()> {
        if self.counts() != place.counts() {
            return Err(CodecError::configuration(format!(
                "{what}: {:?} elements of a {stored} and a place of {:?}",
                self.counts(),
                place.counts()
            )));
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

/// Where an array's elements lie in its memory: a shape, byte strides and an element size.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layout {
    shape: Vec<usize>,
    strides: Vec<isize>,
    item: usize,
}

impl Layout {
    /// C order (last dimension fastest), elements of `item` bytes.
    pub fn c_order(shape: &[usize], item: usize) -> Result<Self> {
        let mut strides = vec![0isize; shape.len()];
        let mut stride = item;
        for (dim, &len) in shape.iter().enumerate().rev() {
            strides[dim] = isize::try_from(stride)
                .map_err(|_| CodecError::configuration("an array larger than memory"))?;
            stride = stride
                .checked_mul(len)
                .ok_or_else(|| CodecError::configuration("an array larger than memory"))?;
        }
        Self::new(shape, &strides, item)
    }

    /// A layout of `shape`, byte `strides` and elements of `item` bytes (at least one).
    pub fn new(shape: &[usize], strides: &[isize], item: usize) -> Result<Self> {
        if shape.len() != strides.len() || item == 0 {
            return Err(CodecError::configuration(
                "an array's shape, strides and element size do not agree",
            ));
        }
        Ok(Self {
            shape: shape.to_vec(),
            strides: strides.to_vec(),
            item,
        })
    }

    /// The shape.
    #[must_use]
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    /// The byte strides.
    #[must_use]
    pub fn strides(&self) -> &[isize] {
        &self.strides
    }

    /// The element size in bytes.
    #[must_use]
    pub fn item(&self) -> usize {
        self.item
    }

    /// The bytes its elements take (saturating): how large an array this is.
    fn byte_len(&self) -> usize {
        self.shape
            .iter()
            .fold(self.item, |len, &n| len.saturating_mul(n))
    }

    /// The lowest and one past the highest byte any element occupies, relative to element
    /// `[0, ..., 0]`; `None` for an array without elements or one too large to address.
    fn extent(&self) -> Option<(i128, i128)> {
        if self.shape.contains(&0) {
            return None;
        }
        let (mut low, mut high) = (0i128, 0i128);
        for (&len, &stride) in self.shape.iter().zip(&self.strides) {
            let reach = i128::try_from(stride).ok()? * i128::try_from(len - 1).ok()?;
            if reach < 0 {
                low += reach;
            } else {
                high += reach;
            }
        }
        Some((low, high + i128::try_from(self.item).ok()?))
    }

    /// Checks that every element lies within `len` bytes of memory whose element `[0, ..., 0]`
    /// is `offset` bytes in.
    fn check_memory(&self, len: usize, offset: usize) -> Result<()> {
        let Some((low, high)) = self.extent() else {
            return Ok(()); // no element: nothing is ever read or written
        };
        let offset = i128::try_from(offset).unwrap_or(i128::MAX);
        if offset + low < 0 || offset + high > i128::try_from(len).unwrap_or(i128::MAX) {
            return Err(CodecError::configuration(
                "an array's element lies outside its memory",
            ));
        }
        Ok(())
    }

    /// The byte offset of `region`'s first element and of each dimension's step in it.
    fn walk(&self, region: &Region) -> (isize, Vec<isize>) {
        let mut first = 0isize;
        let mut steps = Vec::with_capacity(region.spans.len());
        for (span, &stride) in region.spans.iter().zip(&self.strides) {
            let start = isize::try_from(span.start).unwrap_or(isize::MAX);
            let step = isize::try_from(span.step).unwrap_or(isize::MAX);
            first = first.wrapping_add(start.wrapping_mul(stride));
            steps.push(step.wrapping_mul(stride));
        }
        (first, steps)
    }

    /// The bytes from the first element of `region` (within an array of non-negative strides)
    /// to the end of its last; `None` for an empty region.
    pub(crate) fn byte_range(&self, region: &Region) -> Option<std::ops::Range<usize>> {
        if region.is_empty() {
            return None;
        }
        let (first, steps) = self.walk(region);
        let last = region
            .spans
            .iter()
            .zip(&steps)
            .try_fold(first, |offset, (span, &step)| {
                offset.checked_add(step.checked_mul(isize::try_from(span.count - 1).ok()?)?)
            })?;
        let start = usize::try_from(first).ok()?;
        let end = usize::try_from(last).ok()?.checked_add(self.item)?;
        Some(start..end)
    }

    /// The byte range of `region` (within the array) when its elements are one contiguous run
    /// in C order.
    fn contiguous_range(&self, region: &Region) -> Option<std::ops::Range<isize>> {
        let mut expected = isize::try_from(self.item).ok()?;
        for (span, &stride) in region.spans.iter().zip(&self.strides).rev() {
            if span.count > 1 {
                if span.step != 1 || stride != expected {
                    return None;
                }
                expected = expected.checked_mul(isize::try_from(span.count).ok()?)?;
            }
        }
        let (first, _) = self.walk(region);
        let len = isize::try_from(region.len().checked_mul(self.item)?).ok()?;
        Some(first..first + len)
    }
}

/// The caller's output array: memory with a [`Layout`], written by the threads of a batch
/// inside checked regions only.
pub struct OutArray<'a> {
    base: *mut u8,
    layout: Layout,
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
        let layout = Layout::c_order(shape, item)?;
        layout.check_memory(bytes.len(), 0)?;
        Ok(Self {
            base: bytes.as_mut_ptr(),
            layout,
            _memory: PhantomData,
        })
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
        let layout = Layout::new(shape, strides, item)?;
        layout.check_memory(len, offset)?;
        Ok(Self {
            // SAFETY: `offset` is within the memory (checked, or no element is ever written).
            base: unsafe { memory.add(offset.min(len)) },
            layout,
            _memory: PhantomData,
        })
    }

    /// The layout.
    #[must_use]
    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    /// The shape.
    #[must_use]
    pub fn shape(&self) -> &[usize] {
        self.layout.shape()
    }

    /// The element size in bytes.
    #[must_use]
    pub fn item(&self) -> usize {
        self.layout.item()
    }

    /// The bytes of `region` (within the array) when they are one contiguous run in C order.
    ///
    /// # Safety
    /// `region` is within the array, and no other thread uses its elements meanwhile.
    // `&self` hands out `&mut` to disjoint parts on several threads: the point of the type;
    // the caller's contract (checked regions, disjoint between threads) makes it sound.
    #[allow(clippy::mut_from_ref)]
    pub(crate) unsafe fn contiguous_part(&self, region: &Region) -> Option<&mut [u8]> {
        let range = self.layout.contiguous_range(region)?;
        let len = usize::try_from(range.end - range.start).ok()?;
        // SAFETY: the region lies within the array, whose elements lie within its memory
        // (`from_raw`), and its elements are exactly these bytes; the caller keeps other
        // threads off them.
        Some(unsafe { std::slice::from_raw_parts_mut(self.base.offset(range.start), len) })
    }

    /// Every element of `region` (within the array) set to `value` (one element's bytes).
    ///
    /// # Safety
    /// `region` is within the array, and no other thread uses its elements meanwhile.
    pub(crate) unsafe fn fill(&self, region: &Region, value: &[u8]) {
        // SAFETY: the caller's contract.
        if let Some(bytes) = unsafe { self.contiguous_part(region) } {
            fill_with(bytes, value);
            return;
        }
        let item = self.layout.item;
        let (first, steps) = self.layout.walk(region);
        for_each_element(region, first, &steps, |offset| {
            // SAFETY: every element of the region lies within the memory (the caller's
            // contract and `from_raw`'s check).
            unsafe {
                std::ptr::copy_nonoverlapping(value.as_ptr(), self.base.offset(offset), item);
            };
        });
    }

    /// The memory and layout to copy into.
    pub(crate) fn target(&self) -> (*mut u8, &Layout) {
        (self.base, &self.layout)
    }
}

/// The caller's values to write: memory with a [`Layout`] (a broadcast one too: strides of
/// 0), read by the threads of a batch inside checked regions only.
pub struct InArray<'a> {
    base: *const u8,
    layout: Layout,
    _memory: PhantomData<&'a [u8]>,
}

// SAFETY: an `InArray` is a `&[u8]` in disguise; it is only read.
unsafe impl Send for InArray<'_> {}
// SAFETY: as above.
unsafe impl Sync for InArray<'_> {}

impl<'a> InArray<'a> {
    /// A C-contiguous array of `shape` with elements of `item` bytes over all of `bytes`.
    pub fn contiguous(bytes: &'a [u8], shape: &[usize], item: usize) -> Result<Self> {
        let layout = Layout::c_order(shape, item)?;
        layout.check_memory(bytes.len(), 0)?;
        Ok(Self {
            base: bytes.as_ptr(),
            layout,
            _memory: PhantomData,
        })
    }

    /// As [`OutArray::from_raw`], for reading.
    ///
    /// # Safety
    /// `memory` is valid for reads of `len` bytes for 'a, and nothing writes it meanwhile.
    pub unsafe fn from_raw(
        memory: *const u8,
        len: usize,
        offset: usize,
        shape: &[usize],
        strides: &[isize],
        item: usize,
    ) -> Result<Self> {
        let layout = Layout::new(shape, strides, item)?;
        layout.check_memory(len, offset)?;
        Ok(Self {
            // SAFETY: `offset` is within the memory (checked, or no element is ever read).
            base: unsafe { memory.add(offset.min(len)) },
            layout,
            _memory: PhantomData,
        })
    }

    /// The layout.
    #[must_use]
    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    /// The bytes of `region` (within the array) when they are one contiguous run in C order.
    ///
    /// # Safety
    /// `region` lies within the array.
    pub(crate) unsafe fn contiguous_part(&self, region: &Region) -> Option<&[u8]> {
        let range = self.layout.contiguous_range(region)?;
        let len = usize::try_from(range.end - range.start).ok()?;
        // SAFETY: the region lies within the array (the caller's contract), whose elements
        // lie within its memory (`from_raw`).
        Some(unsafe { std::slice::from_raw_parts(self.base.offset(range.start), len) })
    }

    /// The memory and layout to copy from.
    pub(crate) fn source(&self) -> (*const u8, &Layout) {
        (self.base, &self.layout)
    }
}

/// `visit(offset)` for the byte offset of every element of `region` whose first element is at
/// `first` and whose dimensions step by `steps` bytes, in C order.
fn for_each_element(region: &Region, first: isize, steps: &[isize], mut visit: impl FnMut(isize)) {
    for_each_row(region, first, steps, |row, step, count| {
        let mut offset = row;
        for _ in 0..count {
            visit(offset);
            offset = offset.wrapping_add(step);
        }
    });
}

/// `visit(offset, step, count)` for every row (the last dimension's elements) of `region`
/// whose first element is at `first` and whose dimensions step by `steps` bytes, in C order.
fn for_each_row(
    region: &Region,
    first: isize,
    steps: &[isize],
    mut visit: impl FnMut(isize, isize, usize),
) {
    if region.is_empty() {
        return;
    }
    let Some(last) = region.spans.last() else {
        visit(first, 0, 1); // 0 dimensions: one element
        return;
    };
    let dims = region.spans.len();
    let row_step = steps[dims - 1];
    let mut index = vec![0usize; dims - 1];
    let mut offset = first;
    loop {
        visit(offset, row_step, last.count);
        let mut dim = dims - 1;
        loop {
            if dim == 0 {
                return;
            }
            dim -= 1;
            index[dim] += 1;
            offset = offset.wrapping_add(steps[dim]);
            if index[dim] < region.spans[dim].count {
                break;
            }
            let back = isize::try_from(index[dim]).unwrap_or(isize::MAX);
            offset = offset.wrapping_sub(back.wrapping_mul(steps[dim]));
            index[dim] = 0;
        }
    }
}

/// The elements of `from_region` of the array at `from` into `to_region` (of the same counts
/// per dimension) of the array at `to`, row by row, whole rows at once where both rows are
/// contiguous.
///
/// # Safety
/// Both regions lie within their arrays, whose elements lie within valid memory (readable at
/// `from`, writable at `to`); the elements written overlap no element read and are used by
/// no other thread meanwhile; both arrays have elements of the same size.
pub(crate) unsafe fn copy_region(
    (from, from_layout): (*const u8, &Layout),
    from_region: &Region,
    (to, to_layout): (*mut u8, &Layout),
    to_region: &Region,
) {
    let item = to_layout.item;
    let (from_first, from_steps) = from_layout.walk(from_region);
    let (to_first, to_steps) = to_layout.walk(to_region);
    let rows = |first: isize, steps: &[isize]| {
        let mut starts = Vec::new();
        for_each_row(from_region, first, steps, |row, _, _| starts.push(row));
        starts
    };
    // Rows of the source in order, paired with the target's (the regions' counts agree).
    let sources = rows(from_first, &from_steps);
    let from_step = from_steps.last().copied().unwrap_or(0);
    let to_step = to_steps.last().copied().unwrap_or(0);
    let whole_rows = isize::try_from(item).is_ok_and(|item| from_step == item && to_step == item);
    let stream = whole_rows && to_layout.byte_len() >= streaming::stream_above();
    let mut next = sources.into_iter();
    for_each_row(to_region, to_first, &to_steps, |to_row, _, count| {
        let Some(from_row) = next.next() else { return };
        // SAFETY: the caller's contract: every element of both rows lies within its memory,
        // and they do not overlap.
        unsafe {
            if stream {
                streaming::copy(from.offset(from_row), to.offset(to_row), count * item);
            } else if whole_rows {
                std::ptr::copy_nonoverlapping(
                    from.offset(from_row),
                    to.offset(to_row),
                    count * item,
                );
            } else {
                for element in 0..isize::try_from(count).unwrap_or(0) {
                    std::ptr::copy_nonoverlapping(
                        from.offset(from_row.wrapping_add(element.wrapping_mul(from_step))),
                        to.offset(to_row.wrapping_add(element.wrapping_mul(to_step))),
                        item,
                    );
                }
            }
        }
    });
    if stream {
        streaming::fence();
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

//! The `sharding_indexed` codec ([the spec](https://zarr-specs.readthedocs.io/en/latest/v3/codecs/sharding-indexed/)):
//! batches of shards read and written through their inner chunks.
//!
//! A batch of shards is flattened to the inner chunks it touches, so that every inner chunk of
//! every shard runs on the pool at once, through the inner chain (or, for nested sharding,
//! the inner [`Sharding`]):
//!
//! - **Reads** first load each shard on its own thread: a shard in memory is sliced; a shard
//!   file that is read whole is read by its index and then its inner chunks, in runs of
//!   adjacent ones (when there are whole shard files enough for every thread, each thread
//!   takes a shard and reads each run into its own reused buffer, decoding the run's inner
//!   chunks while they are in cache, before taking the next); for a part of a shard, only its
//!   index is read (one range at its start or end), then only the inner chunks the part
//!   needs, neighbours closer than [`COALESCE_GAP`] read as one range. Missing shards and
//!   missing inner chunks are the fill value.
//! - **Writes** encode the inner chunks written (merged with the old inner chunk where only
//!   part of one is written), keep the old bytes of the inner chunks not written, and lay the
//!   present ones out in the shard's write order (Morton by default, as zarr-python), the
//!   index at the start or the end. An inner chunk left all fill value is not stored; a shard
//!   without any is deleted.

use std::borrow::Cow;
use std::fs::File;
use std::ops::Range;
use std::path::Path;

use zarr_codec_shapes::{CodecError, Result};

use crate::files::{
    ChunkError, ChunkResult, make_directories, open_chunk, read_chunk_file, read_file_range,
    stage_pieces, with_file_range,
};
use crate::grid::Grid;
use crate::plan::Plan;
use crate::pool::parallel_map;
use crate::read::{ReadItem, Source, read_batch_at};
use crate::region::{InArray, OutArray, Region};
use crate::shard_index::{IndexLocation, ShardIndex};
use crate::target::Target;
use crate::write::{BufferWriteItem, Change, EmptyRule, WriteItem, write_buffers};

/// Inner chunks of a shard file closer than this are read as one range.
pub const COALESCE_GAP: usize = 64 << 10;

/// A whole shard file read on one thread is read in runs of adjacent inner chunks of up to
/// this many bytes (an inner chunk larger than this alone): few reads for small inner chunks,
/// and each run still in the core's own cache when its chunks are decoded, where a whole
/// shard read at once would have been pushed out to memory by then.
const RUN_BYTES: usize = 256 << 10;

/// An inner chunk of a shard file to read: its bytes' range in the file, the part of it
/// needed, that part's place in the output, and its number in the shard.
type InnerJob = (Range<usize>, Region, Region, usize);

/// `jobs` (sorted by where their bytes start) cut into runs of adjacent ones, each with the
/// bytes it spans in its file: a run's bytes follow one another with no gap, and span at most
/// `most` bytes unless the run is one job.
fn runs(jobs: &[InnerJob], most: usize) -> impl Iterator<Item = (Range<usize>, &[InnerJob])> {
    let mut rest = jobs;
    std::iter::from_fn(move || {
        let first = rest.first()?;
        let (start, mut end) = (first.0.start, first.0.end);
        let mut len = 1;
        for (stored, ..) in &rest[1..] {
            if stored.start != end || stored.end.saturating_sub(start) > most {
                break;
            }
            end = stored.end;
            len += 1;
        }
        let (run, after) = rest.split_at(len);
        rest = after;
        Some((start..end, run))
    })
}

/// What a shard's inner chunks are encoded with.
#[derive(Clone)]
pub enum Inner {
    /// A chain: its decoding and encoding plans.
    Chain {
        /// Stored bytes to elements.
        decode: Plan,
        /// Elements to stored bytes.
        encode: Plan,
    },
    /// Sharding again (nested shards).
    Sharded(Box<Sharding>),
}

/// The order the present inner chunks of a shard are laid out in (zarr-python's
/// `subchunk_write_order`; readers follow the index, whatever the order).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WriteOrder {
    /// Z order over the inner chunk grid (zarr-python's default).
    Morton,
    /// C order.
    Lexicographic,
    /// Fortran order.
    Colexicographic,
}

/// One shard of a write kept in memory: its old bytes (`None`: there are none), the part of
/// it written, and where the values for that part are.
#[derive(Debug, Clone)]
pub struct ShardWrite<'a> {
    /// The shard's stored bytes before the write, if any.
    pub old: Option<&'a [u8]>,
    /// The part of the shard written (within the shard's shape).
    pub chunk: Region,
    /// Where its values are in the caller's array (as many elements per dimension).
    pub values: Region,
}

/// One shard of a read from a store read by byte ranges: its encoded index (`None`: there is
/// no shard) and the inner chunks fetched (see [`Sharding::needed`]), the part of it needed and
/// where that goes.
#[derive(Debug, Clone)]
pub struct FetchedRead<'a> {
    /// The shard's encoded index, if there is a shard.
    pub index: Option<&'a [u8]>,
    /// `(inner chunk, its stored bytes)` for each inner chunk fetched.
    pub chunks: Vec<(usize, &'a [u8])>,
    /// The part of the shard needed.
    pub chunk: Region,
    /// Where it goes in the output.
    pub out: Region,
}

/// One inner chunk of part of a shard, for a reader that fetches the shard's bytes itself
/// (see [`Sharding::inner_reads`]): the part of it needed, where that goes, and where its
/// stored bytes lie in the shard (`None`: not stored, the fill value).
#[derive(Debug, Clone)]
pub struct InnerRead {
    /// The part of the decoded inner chunk needed.
    pub chunk: Region,
    /// Where it goes in the output.
    pub out: Region,
    /// Its stored bytes' range within the shard.
    pub stored: Option<Range<usize>>,
}

/// The `sharding_indexed` codec bound to its shards' shape: inner chunk shape, inner codecs,
/// index codecs and where the index is.
#[derive(Clone)]
pub struct Sharding {
    shard_shape: Vec<usize>,
    inner_shape: Vec<usize>,
    /// The inner chunks of a shard.
    grid: Grid,
    inner: Inner,
    index_decode: Plan,
    index_encode: Plan,
    index_len: usize,
    location: IndexLocation,
    /// Every inner chunk's C-order number, in write order.
    order: Vec<usize>,
}

impl Sharding {
    /// Shards of `shard_shape` in inner chunks of `inner_shape` (which must divide it)
    /// encoded by `inner`, with an index encoded by `index_encode` and decoded by
    /// `index_decode` (fixed-size codecs: `bytes`, checksums) at `location`.
    pub fn new(
        shard_shape: &[usize],
        inner_shape: &[usize],
        inner: Inner,
        (index_decode, index_encode): (Plan, Plan),
        location: IndexLocation,
        order: WriteOrder,
    ) -> Result<Self> {
        let divides = shard_shape.len() == inner_shape.len()
            && shard_shape
                .iter()
                .zip(inner_shape)
                .all(|(&shard, &inner)| inner > 0 && shard % inner == 0);
        if !divides {
            return Err(CodecError::configuration(format!(
                "sharding_indexed: inner chunks of {inner_shape:?} do not divide shards of \
                 {shard_shape:?}"
            )));
        }
        let grid: Vec<usize> = shard_shape
            .iter()
            .zip(inner_shape)
            .map(|(&shard, &inner)| shard / inner)
            .collect();
        let chunks = grid.iter().try_fold(1usize, |n, &len| n.checked_mul(len));
        let chunks =
            chunks.ok_or_else(|| CodecError::configuration("sharding: too many inner chunks"))?;
        let decoded_len = ShardIndex::decoded_len(chunks)?;
        if index_decode
            .output_len()
            .is_some_and(|len| len != decoded_len)
        {
            return Err(CodecError::configuration(format!(
                "sharding_indexed: the index codecs decode {:?} bytes, an index of {chunks} \
                 inner chunks is {decoded_len}",
                index_decode.output_len()
            )));
        }
        let index_len = ShardIndex::encoded_len(&index_encode, chunks)?;
        let order = write_order(&grid, order);
        let grid = Grid::new(inner_shape, &grid)?;
        Ok(Self {
            shard_shape: shard_shape.to_vec(),
            inner_shape: inner_shape.to_vec(),
            grid,
            inner,
            index_decode,
            index_encode,
            index_len,
            location,
            order,
        })
    }

    /// The shape of every shard.
    #[must_use]
    pub fn shard_shape(&self) -> &[usize] {
        &self.shard_shape
    }

    /// The shape of every inner chunk.
    #[must_use]
    pub fn inner_shape(&self) -> &[usize] {
        &self.inner_shape
    }

    /// The stored size of a shard's index.
    #[must_use]
    pub fn index_len(&self) -> usize {
        self.index_len
    }

    /// Where each shard's index is.
    #[must_use]
    pub fn index_location(&self) -> IndexLocation {
        self.location
    }

    /// Checks a read of part `part` of a shard into place `place` of an output of `shape`, as
    /// [`Sharding::read`] does before anything is written.
    pub fn check_read(&self, part: &Region, place: &Region, shape: &[usize]) -> Result<()> {
        self.check_part(part, place, shape, "read")
    }

    /// The index of a shard of `shard_len` bytes from its stored index alone (`stored`, read
    /// apart from the rest), each entry checked to lie within the shard's data.
    pub fn index_of(&self, stored: &[u8], shard_len: usize) -> Result<ShardIndex> {
        self.check_index_len(stored)?;
        ShardIndex::read(
            stored,
            &self.index_decode,
            self.chunk_count(),
            shard_len,
            self.location,
        )
    }

    /// Checks that `stored` is an index's length.
    fn check_index_len(&self, stored: &[u8]) -> Result<()> {
        if stored.len() == self.index_len {
            return Ok(());
        }
        Err(CodecError::Corrupt(format!(
            "sharding: an index of {} bytes, not {}",
            stored.len(),
            self.index_len
        )))
    }

    /// Every inner chunk that part `part` of a shard with `index`, placed at `place`, touches:
    /// the ones not stored first, then the stored ones by where they lie in the shard. Decode
    /// each with [`Sharding::read_inner`] once its bytes are in.
    #[must_use]
    pub fn inner_reads(&self, index: &ShardIndex, part: &Region, place: &Region) -> Vec<InnerRead> {
        let mut reads = Vec::new();
        self.each_inner(part, place, |chunk, inner, out| {
            reads.push(InnerRead {
                chunk: inner,
                out,
                stored: index.chunks().get(chunk).cloned().flatten(),
            });
        });
        reads.sort_by_key(|read| read.stored.as_ref().map(|range| range.start));
        reads
    }

    /// Decodes inner chunks of a shard (each item an inner chunk's stored bytes, or
    /// `Source::Missing` for the fill value) into their places, on this thread.
    pub fn read_inner(
        &self,
        items: &[ReadItem<'_>],
        out: &OutArray<'_>,
        fill: &[u8],
    ) -> ChunkResult<Vec<bool>> {
        self.inner_read(items, None, out, fill, 1)
    }

    fn chunk_count(&self) -> usize {
        self.order.len()
    }

    /// Reads a batch of shards: each shard's part `read.chunk` into its place `read.out` of
    /// `out`, missing shards and inner chunks as `fill` (one element's bytes), on up to
    /// `threads` threads; for each shard, whether it was there. Everything is checked before
    /// anything is written, as [`read_batch`](crate::read_batch) does.
    pub fn read(
        &self,
        items: &[ReadItem<'_>],
        out: &OutArray<'_>,
        fill: &[u8],
        threads: usize,
    ) -> ChunkResult<Vec<bool>> {
        for read in items {
            self.check_part(&read.chunk, &read.out, out.shape(), "read")?;
        }
        let mut jobs: Vec<&ReadItem<'_>> = items.iter().collect();
        if items.iter().all(|read| self.reads_whole_file(read)) {
            if let [read] = items
                && threads > 1
            {
                // One whole shard file: its index, then each inner chunk read and decoded by
                // whichever thread takes it (no thread waits for the whole file to be read).
                return Ok(vec![
                    self.read_file_by_inner_chunks(read, out, fill, threads)?,
                ]);
            }
            if items.len() >= threads {
                // Enough whole shard files for every thread: each reads a shard into its own
                // reused buffer and decodes it, then takes the next. No shard is held longer
                // than it is decoded, and no fresh memory is faulted in for it on every call.
                return parallel_map(&mut jobs, threads, |read| {
                    self.read_whole_file(read, out, fill)
                })
                .into_iter()
                .collect();
            }
        }
        let loaded: Vec<Loaded<'_>> = parallel_map(&mut jobs, threads, |read| self.load(read))
            .into_iter()
            .collect::<ChunkResult<_>>()?;
        let parts = items.iter().map(|read| (&read.chunk, &read.out));
        self.read_loaded(parts, &loaded, out, fill, threads)
    }

    /// Whether `read` is a whole shard in a file.
    fn reads_whole_file(&self, read: &ReadItem<'_>) -> bool {
        matches!(read.source, Source::File(_)) && read.chunk.is_whole(&self.shard_shape)
    }

    /// A whole shard file read on this thread (a missing file: the fill value): its index,
    /// then runs of adjacent inner chunks of up to [`RUN_BYTES`], each read into this thread's
    /// file buffer and decoded while its bytes are still in cache; whether it was there.
    fn read_whole_file(
        &self,
        read: &ReadItem<'_>,
        out: &OutArray<'_>,
        fill: &[u8],
    ) -> ChunkResult<bool> {
        let Some((shard, path, mut present)) = self.open_shard_file(read, out, fill, 1)? else {
            return Ok(false);
        };
        present.sort_by_key(|(stored, ..)| stored.start);
        for (span, run) in runs(&present, RUN_BYTES) {
            with_file_range(&shard, path, span.clone(), |bytes| {
                let items: Vec<ReadItem<'_>> = run
                    .iter()
                    .map(|(stored, part, place, _)| ReadItem {
                        source: Source::Bytes(
                            &bytes[stored.start - span.start..stored.end - span.start],
                        ),
                        chunk: part.clone(),
                        out: place.clone(),
                    })
                    .collect();
                let numbers: Vec<usize> = run.iter().map(|job| job.3).collect();
                self.inner_read(&items, Some(&numbers), out, fill, 1)
            })?;
        }
        Ok(true)
    }

    /// The part `read.chunk` of a shard file (a missing file: the fill value) read by
    /// `threads` threads at once: its index, then each inner chunk the part needs read at its
    /// place into the reading thread's file buffer and decoded there; whether it was there.
    fn read_file_by_inner_chunks(
        &self,
        read: &ReadItem<'_>,
        out: &OutArray<'_>,
        fill: &[u8],
        threads: usize,
    ) -> ChunkResult<bool> {
        let Some((shard, path, mut present)) = self.open_shard_file(read, out, fill, threads)?
        else {
            return Ok(false);
        };
        let shard = &shard;
        parallel_map(&mut present, threads, |(stored, part, place, number)| {
            with_file_range(shard, path, stored.clone(), |bytes| {
                let item = ReadItem {
                    source: Source::Bytes(bytes),
                    chunk: part.clone(),
                    out: place.clone(),
                };
                self.inner_read(&[item], Some(&[*number]), out, fill, 1)
            })
        })
        .into_iter()
        .collect::<ChunkResult<Vec<_>>>()?;
        Ok(true)
    }

    /// The shard file of `read` opened and its index read; the inner chunks of the part
    /// `read.chunk` stored there (their bytes' range in the file, the part of each needed and
    /// its place); those not stored already set to the fill value, on up to `threads` threads.
    /// `None` when there is no file (its place is then the fill value).
    fn open_shard_file<'p>(
        &self,
        read: &ReadItem<'p>,
        out: &OutArray<'_>,
        fill: &[u8],
        threads: usize,
    ) -> ChunkResult<Option<(File, &'p Path, Vec<InnerJob>)>> {
        let Source::File(path) = read.source else {
            return Err(CodecError::configuration("sharding: a file read of no file").into());
        };
        let Some((mut shard, size)) = open_chunk(path)? else {
            let part = std::iter::once((&read.chunk, &read.out));
            self.read_loaded(part, &[Loaded::missing()], out, fill, threads)?;
            return Ok(None);
        };
        let index = self.file_index(&mut shard, path, size)?;
        let mut present = Vec::new();
        let mut missing = Vec::new();
        self.each_inner(&read.chunk, &read.out, |chunk, part, place| {
            match index.chunks().get(chunk).cloned().flatten() {
                Some(stored) => present.push((stored, part, place, chunk)),
                None => missing.push(ReadItem {
                    source: Source::Missing,
                    chunk: part,
                    out: place,
                }),
            }
        });
        if !missing.is_empty() {
            self.inner_read(&missing, None, out, fill, threads)?;
        }
        Ok(Some((shard, path, present)))
    }

    /// The index of the open shard file `file` (`path`, `size` bytes).
    fn file_index(&self, file: &mut File, path: &Path, size: u64) -> ChunkResult<ShardIndex> {
        let size = usize::try_from(size).unwrap_or(usize::MAX);
        let index_range = match self.location {
            IndexLocation::Start => Some(0..self.index_len),
            IndexLocation::End => size.checked_sub(self.index_len).map(|start| start..size),
        }
        .filter(|range| range.end <= size)
        .ok_or_else(|| {
            CodecError::Corrupt(format!(
                "sharding: shard file {} of {size} bytes cannot hold an index of {}",
                path.display(),
                self.index_len
            ))
        })?;
        let stored = read_file_range(file, path, index_range)?;
        let index = ShardIndex::read(
            &stored,
            &self.index_decode,
            self.chunk_count(),
            size,
            self.location,
        )?;
        Ok(index)
    }

    /// Inner chunks read with the inner codecs. Where their `numbers` in the shard are given,
    /// an inner chunk's error says which one it was ("inner chunk [1, 0]").
    fn inner_read(
        &self,
        items: &[ReadItem<'_>],
        numbers: Option<&[usize]>,
        out: &OutArray<'_>,
        fill: &[u8],
        threads: usize,
    ) -> ChunkResult<Vec<bool>> {
        match &self.inner {
            Inner::Chain { decode, .. } => {
                read_batch_at(decode, &self.inner_shape, items, out, fill, threads).map_err(
                    |(position, err)| match (err, position.zip(numbers)) {
                        (ChunkError::Codec(err), Some((position, numbers))) => {
                            match numbers.get(position) {
                                Some(&number) => ChunkError::Codec(self.at_inner(err, number)),
                                None => ChunkError::Codec(err),
                            }
                        }
                        (err, _) => err,
                    },
                )
            }
            Inner::Sharded(sharding) => sharding.read(items, out, fill, threads),
        }
    }

    /// `err` of inner chunk `number`, with that chunk's grid coordinates in the shard.
    fn at_inner(&self, err: CodecError, number: usize) -> CodecError {
        err.at(&format!("inner chunk {:?}", self.grid.coordinates(number)))
    }

    /// Checks a shard's part and its place in the caller's array of `shape`.
    fn check_part(&self, part: &Region, place: &Region, shape: &[usize], what: &str) -> Result<()> {
        part.check_within(&self.shard_shape, &format!("{what}: the part of a shard"))?;
        place.check_within(shape, &format!("{what}: the place in the array"))?;
        part.check_same_counts(place, what, "shard")
    }

    /// The index and the bytes of the inner chunks that `read` needs.
    fn load<'a>(&self, read: &ReadItem<'a>) -> ChunkResult<Loaded<'a>> {
        match read.source {
            Source::Missing => Ok(Loaded::missing()),
            Source::Bytes(shard) => self.whole(Cow::Borrowed(shard)).map_err(ChunkError::from),
            Source::File(path) if read.chunk.is_whole(&self.shard_shape) => {
                match read_chunk_file(path)? {
                    Some(shard) => self.whole(Cow::Owned(shard)).map_err(ChunkError::from),
                    None => Ok(Loaded::missing()),
                }
            }
            Source::File(path) => self.part_of_file(path, &read.chunk),
        }
    }

    /// A whole shard and its index.
    fn whole<'a>(&self, shard: Cow<'a, [u8]>) -> Result<Loaded<'a>> {
        let index = ShardIndex::of_shard(
            &shard,
            &self.index_decode,
            self.chunk_count(),
            self.index_len,
            self.location,
        )?;
        let chunks = index
            .chunks()
            .iter()
            .map(|range| range.clone().map(|range| (0, range)))
            .collect();
        Ok(Loaded {
            present: true,
            buffers: vec![shard],
            chunks,
        })
    }

    /// The index of shard file `path` and the inner chunks of its part `part`, each read as a
    /// range (neighbours together).
    fn part_of_file(&self, path: &Path, part: &Region) -> ChunkResult<Loaded<'static>> {
        let Some((mut file, size)) = open_chunk(path)? else {
            return Ok(Loaded::missing());
        };
        let index = self.file_index(&mut file, path, size)?;
        let needed = self.needed_by(&index, part);
        let mut chunks = vec![None; self.chunk_count()];
        let mut buffers = Vec::new();
        let mut group: Vec<(usize, Range<usize>)> = Vec::new();
        let mut read_group = |group: &mut Vec<(usize, Range<usize>)>| -> ChunkResult<()> {
            let (Some(first), Some(end)) = (
                group.first().map(|(_, range)| range.start),
                group.iter().map(|(_, range)| range.end).max(),
            ) else {
                return Ok(());
            };
            buffers.push(Cow::Owned(read_file_range(&mut file, path, first..end)?));
            for (chunk, range) in group.drain(..) {
                chunks[chunk] = Some((buffers.len() - 1, range.start - first..range.end - first));
            }
            Ok(())
        };
        for (chunk, range) in needed {
            let end = group.iter().map(|(_, range)| range.end).max();
            if end.is_some_and(|end| range.start > end.saturating_add(COALESCE_GAP)) {
                read_group(&mut group)?;
            }
            group.push((chunk, range));
        }
        read_group(&mut group)?;
        Ok(Loaded {
            present: true,
            buffers,
            chunks,
        })
    }

    /// The stored inner chunks that part `part` of a shard with `index` needs, by where they
    /// lie in the shard.
    fn needed_by(&self, index: &ShardIndex, part: &Region) -> Vec<(usize, Range<usize>)> {
        let mut needed: Vec<(usize, Range<usize>)> = Vec::new();
        self.each_inner(part, part, |chunk, _, _| {
            if let Some(Some(range)) = index.chunks().get(chunk) {
                needed.push((chunk, range.clone()));
            }
        });
        needed.sort_by_key(|(_, range)| range.start);
        needed
    }

    /// For a store read by byte ranges: the stored inner chunks that part `part` (within the
    /// shard) needs, as `(inner chunk, byte range in the shard)`, given the shard's encoded
    /// index `stored` alone (the shard's size unknown: entries are checked against the
    /// index's place only). Fetch them, then [`Sharding::read_fetched`].
    pub fn needed(&self, stored: &[u8], part: &Region) -> Result<Vec<(usize, Range<usize>)>> {
        part.check_within(&self.shard_shape, "read: the part of a shard")?;
        Ok(self.needed_by(&self.unsized_index(stored)?, part))
    }

    /// A shard's index read from its encoded bytes alone.
    fn unsized_index(&self, stored: &[u8]) -> Result<ShardIndex> {
        self.check_index_len(stored)?;
        let mut decoded = vec![0u8; ShardIndex::decoded_len(self.chunk_count())?];
        self.index_decode.run_exact(stored, &mut decoded)?;
        // Entries must not point into the index at the start; the end is unknown.
        let data = match self.location {
            IndexLocation::Start => self.index_len..usize::MAX,
            IndexLocation::End => 0..usize::MAX,
        };
        ShardIndex::parse(&decoded, data)
    }

    /// Reads a batch of shards fetched in parts (see [`Sharding::needed`]): each one's index
    /// (`None`: no shard) and the inner chunks fetched, into places of `out` as
    /// [`Sharding::read`] does; an inner chunk the index lists but not fetched is an error.
    pub fn read_fetched(
        &self,
        items: &[FetchedRead<'_>],
        out: &OutArray<'_>,
        fill: &[u8],
        threads: usize,
    ) -> ChunkResult<Vec<bool>> {
        for read in items {
            self.check_part(&read.chunk, &read.out, out.shape(), "read")?;
        }
        let mut loaded = Vec::with_capacity(items.len());
        for read in items {
            let Some(stored) = read.index else {
                loaded.push(Loaded::missing());
                continue;
            };
            let index = self.unsized_index(stored)?;
            let mut chunks = vec![None; self.chunk_count()];
            let mut buffers = Vec::with_capacity(read.chunks.len());
            for &(chunk, data) in &read.chunks {
                let expected = index.chunks().get(chunk).cloned().flatten();
                if expected.as_ref().map(Range::len) != Some(data.len()) {
                    return Err(CodecError::Corrupt(format!(
                        "sharding: {} bytes fetched for inner chunk {chunk}, whose index entry \
                         is {expected:?}",
                        data.len()
                    ))
                    .into());
                }
                chunks[chunk] = Some((buffers.len(), 0..data.len()));
                buffers.push(Cow::Borrowed(data));
            }
            for (chunk, _) in self.needed_by(&index, &read.chunk) {
                if chunks[chunk].is_none() {
                    return Err(CodecError::configuration(format!(
                        "sharding: inner chunk {chunk} is needed but was not fetched"
                    ))
                    .into());
                }
            }
            loaded.push(Loaded {
                present: true,
                buffers,
                chunks,
            });
        }
        let parts = items.iter().map(|read| (&read.chunk, &read.out));
        self.read_loaded(parts, &loaded, out, fill, threads)
    }

    /// Shards loaded for a read: each one's part `(part, place)` decoded from the inner
    /// chunks it touches, all of them in one batch; whether each shard was there.
    fn read_loaded<'r>(
        &self,
        parts: impl Iterator<Item = (&'r Region, &'r Region)>,
        loaded: &[Loaded<'_>],
        out: &OutArray<'_>,
        fill: &[u8],
        threads: usize,
    ) -> ChunkResult<Vec<bool>> {
        let mut inner_items = Vec::new();
        let mut numbers = Vec::new();
        for ((part, place), shard) in parts.zip(loaded) {
            self.each_inner(part, place, |index, chunk, place| {
                inner_items.push(ReadItem {
                    source: shard.source(index),
                    chunk,
                    out: place,
                });
                numbers.push(index);
            });
        }
        self.inner_read(&inner_items, Some(&numbers), out, fill, threads)?;
        Ok(loaded.iter().map(|shard| shard.present).collect())
    }

    /// `visit(inner chunk, part of it, place)` for each inner chunk that part `part` of a shard
    /// touches, `place` being where that part's elements are.
    fn each_inner(&self, part: &Region, place: &Region, visit: impl FnMut(usize, Region, Region)) {
        self.grid.for_each_chunk(part, place, visit);
    }

    /// A batch of shards written in memory: each shard's part from `values`, merged with its
    /// old inner chunks where only part of one is written, the rest of its old inner chunks
    /// kept. For each shard, its new bytes, or `None` when no inner chunk is left to store (the
    /// shard is deleted). Everything is checked before any work.
    pub fn write_buffers(
        &self,
        items: &[ShardWrite<'_>],
        values: &InArray<'_>,
        fill: &[u8],
        empty: EmptyRule,
        threads: usize,
    ) -> Result<Vec<Option<Vec<u8>>>> {
        for write in items {
            self.check_part(
                &write.chunk,
                &write.values,
                values.layout().shape(),
                "write",
            )?;
        }
        // The old inner chunks of the shards only partly written.
        let olds = self.old_indexes(items, threads)?;
        if let Inner::Chain { encode, decode } = &self.inner
            && items.len() >= threads.max(2)
        {
            // As many shards as threads: each thread encodes whole shards, inner chunk by
            // inner chunk straight into the shard's bytes, with no buffer per inner chunk.
            let mut jobs: Vec<usize> = (0..items.len()).collect();
            return parallel_map(&mut jobs, threads, |shard| {
                let old = |chunk: usize| Self::old_chunk(items, &olds, *shard, chunk);
                let plans = (encode, decode);
                self.encode_shard(&items[*shard], old, plans, values, fill, empty)
            })
            .into_iter()
            .collect();
        }
        let written = self.encode_inner_chunks(items, &olds, values, fill, empty, threads)?;
        let mut shards: Vec<(usize, Vec<Written>)> = written.into_iter().enumerate().collect();
        parallel_map(&mut shards, threads, |(shard, written)| {
            self.assemble(|chunk| match &written[chunk] {
                Some(data) => data.as_deref(),
                None => Self::old_chunk(items, &olds, *shard, chunk),
            })
        })
        .into_iter()
        .collect()
    }

    /// The stored bytes of inner chunk `chunk` of the old shard of `items[shard]` (whose index
    /// is `olds[shard]`), if any.
    fn old_chunk<'o>(
        items: &[ShardWrite<'o>],
        olds: &[Option<ShardIndex>],
        shard: usize,
        chunk: usize,
    ) -> Option<&'o [u8]> {
        let range = olds[shard].as_ref()?.chunks().get(chunk)?.clone()?;
        items[shard].old?.get(range)
    }

    /// Every inner chunk written, of every shard, in one batch (the old shards' indexes
    /// `olds`): for each shard, each inner chunk's new stored bytes where written.
    fn encode_inner_chunks(
        &self,
        items: &[ShardWrite<'_>],
        olds: &[Option<ShardIndex>],
        values: &InArray<'_>,
        fill: &[u8],
        empty: EmptyRule,
        threads: usize,
    ) -> Result<Vec<Vec<Written>>> {
        let mut parts = Vec::new();
        let mut owners = Vec::new();
        for (shard, write) in items.iter().enumerate() {
            self.each_inner(&write.chunk, &write.values, |chunk, part, place| {
                let whole = part.is_whole(&self.inner_shape);
                parts.push(ShardWrite {
                    old: if whole {
                        None
                    } else {
                        Self::old_chunk(items, olds, shard, chunk)
                    },
                    chunk: part,
                    values: place,
                });
                owners.push((shard, chunk));
            });
        }
        let encoded = self.inner_write(&parts, values, fill, empty, threads)?;
        // Each shard's inner chunks: new where written, old elsewhere.
        let mut written: Vec<Vec<Written>> = vec![vec![None; self.chunk_count()]; items.len()];
        for ((shard, chunk), data) in owners.into_iter().zip(encoded) {
            written[shard][chunk] = Some(data);
        }
        Ok(written)
    }

    /// [`Sharding::old_index`] of every shard of `items`, on up to `threads` threads.
    fn old_indexes(
        &self,
        items: &[ShardWrite<'_>],
        threads: usize,
    ) -> Result<Vec<Option<ShardIndex>>> {
        let mut jobs: Vec<&ShardWrite<'_>> = items.iter().collect();
        parallel_map(&mut jobs, threads, |write| self.old_index(write))
            .into_iter()
            .collect()
    }

    /// The index of the old shard of `write` where only part of it is written (its other inner
    /// chunks are kept); `None` where it is written whole or there is none.
    fn old_index(&self, write: &ShardWrite<'_>) -> Result<Option<ShardIndex>> {
        match write.old {
            Some(old) if !write.chunk.is_whole(&self.shard_shape) => ShardIndex::of_shard(
                old,
                &self.index_decode,
                self.chunk_count(),
                self.index_len,
                self.location,
            )
            .map(Some),
            _ => Ok(None),
        }
    }

    /// One shard of a write, its inner chunks encoded in write order straight into the shard's
    /// bytes (merged with `old(chunk)` where only part of one is written), the inner chunks
    /// not written copied from `old`.
    fn encode_shard<'o>(
        &self,
        write: &ShardWrite<'_>,
        old: impl Fn(usize) -> Option<&'o [u8]>,
        (encode, decode): (&Plan, &Plan),
        values: &InArray<'_>,
        fill: &[u8],
        empty: EmptyRule,
    ) -> Result<Option<Vec<u8>>> {
        let mut parts: Vec<Option<(Region, Region)>> = vec![None; self.chunk_count()];
        self.each_inner(&write.chunk, &write.values, |chunk, part, place| {
            parts[chunk] = Some((part, place));
        });
        let decoded_len = self
            .inner_shape
            .iter()
            .product::<usize>()
            .checked_mul(fill.len())
            .ok_or_else(|| CodecError::configuration("a chunk larger than memory"))?;
        let room = encode.room(decoded_len)?;
        // Room for the whole shard at once (pages never written are never touched).
        let written = parts.iter().filter(|part| part.is_some()).count();
        let kept: usize = (0..parts.len())
            .filter(|&chunk| parts[chunk].is_none())
            .filter_map(|chunk| old(chunk).map(<[u8]>::len))
            .sum();
        let capacity = room
            .checked_mul(written)
            .and_then(|len| len.checked_add(kept))
            .and_then(|len| len.checked_add(self.index_len))
            .ok_or_else(|| CodecError::configuration("a shard larger than memory"))?;
        let mut shard = Vec::new();
        shard
            .try_reserve_exact(capacity)
            .map_err(|_| CodecError::OutputLimit { limit: capacity })?;
        if self.location == IndexLocation::Start {
            shard.resize(self.index_len, 0);
        }
        let mut ranges = vec![None; self.chunk_count()];
        for &chunk in &self.order {
            let start = shard.len();
            let len = if let Some((part, place)) = &parts[chunk] {
                let whole = part.is_whole(&self.inner_shape);
                let mut item = [BufferWriteItem {
                    old: if whole { None } else { old(chunk) },
                    chunk: part.clone(),
                    values: place.clone(),
                    target: Target::Uninit(&mut shard.spare_capacity_mut()[..room]),
                }];
                let shape = &self.inner_shape;
                let stored =
                    write_buffers(encode, decode, shape, &mut item, values, fill, empty, 1)?;
                let Some(Some(len)) = stored.first().copied() else {
                    continue; // not stored
                };
                // SAFETY: the encoding succeeded and initialised the first `len` bytes of the
                // spare capacity (at most the `room` it was given).
                unsafe { shard.set_len(start + len) };
                len
            } else {
                let Some(bytes) = old(chunk) else { continue };
                shard.extend_from_slice(bytes);
                bytes.len()
            };
            ranges[chunk] = Some(start..start + len);
        }
        self.finish(shard, ranges)
    }

    /// A shard's bytes with the index of `ranges` put in its place; `None` when no inner chunk
    /// is stored.
    fn finish(
        &self,
        mut shard: Vec<u8>,
        ranges: Vec<Option<Range<usize>>>,
    ) -> Result<Option<Vec<u8>>> {
        if ranges.iter().all(Option::is_none) {
            return Ok(None);
        }
        let index = self.encoded_index(ranges)?;
        match self.location {
            IndexLocation::Start => shard[..self.index_len].copy_from_slice(&index),
            IndexLocation::End => shard.extend_from_slice(&index),
        }
        shard.shrink_to_fit();
        Ok(Some(shard))
    }

    /// The stored index of inner chunks at `ranges` (in the shard's bytes).
    fn encoded_index(&self, ranges: Vec<Option<Range<usize>>>) -> Result<Vec<u8>> {
        let index = ShardIndex::new(ranges).encode(&self.index_encode)?;
        if index.len() != self.index_len {
            return Err(CodecError::configuration(format!(
                "sharding_indexed: the index codecs wrote {} bytes, not the {} planned (they \
                 must be fixed-size)",
                index.len(),
                self.index_len
            )));
        }
        Ok(index)
    }

    /// Inner chunks written with the inner codecs: each one's new stored bytes, or `None`
    /// when it is not to be stored.
    fn inner_write(
        &self,
        parts: &[ShardWrite<'_>],
        values: &InArray<'_>,
        fill: &[u8],
        empty: EmptyRule,
        threads: usize,
    ) -> Result<Vec<Option<Vec<u8>>>> {
        let (encode, decode) = match &self.inner {
            Inner::Sharded(sharding) => {
                return sharding.write_buffers(parts, values, fill, empty, threads);
            }
            Inner::Chain { encode, decode } => (encode, decode),
        };
        let decoded_len = self
            .inner_shape
            .iter()
            .product::<usize>()
            .checked_mul(fill.len())
            .ok_or_else(|| CodecError::configuration("a chunk larger than memory"))?;
        let room = encode.room(decoded_len)?;
        let mut outputs: Vec<Vec<u8>> = Vec::with_capacity(parts.len());
        for _ in parts {
            let mut output = Vec::new();
            output
                .try_reserve_exact(room)
                .map_err(|_| CodecError::OutputLimit { limit: room })?;
            outputs.push(output);
        }
        let mut items: Vec<BufferWriteItem<'_>> = parts
            .iter()
            .zip(outputs.iter_mut())
            .map(|(part, output)| BufferWriteItem {
                old: part.old,
                chunk: part.chunk.clone(),
                values: part.values.clone(),
                target: Target::Uninit(&mut output.spare_capacity_mut()[..room]),
            })
            .collect();
        let written = write_buffers(
            encode,
            decode,
            &self.inner_shape,
            &mut items,
            values,
            fill,
            empty,
            threads,
        )?;
        drop(items);
        Ok(outputs
            .into_iter()
            .zip(written)
            .map(|(mut output, written)| {
                written.map(|len| {
                    // SAFETY: the encoding succeeded and initialised the first `len` bytes of
                    // the output's spare capacity (at most its `room`).
                    unsafe { output.set_len(len) };
                    output
                })
            })
            .collect())
    }

    /// A shard of the inner chunks `chunk(i)` gives (`None`: not stored), laid out in write
    /// order with its index; `None` when there is none to store.
    fn assemble<'c>(&self, chunk: impl Fn(usize) -> Option<&'c [u8]>) -> Result<Option<Vec<u8>>> {
        let Some(pieces) = self.laid_out(chunk)? else {
            return Ok(None);
        };
        let len = pieces.iter().map(|piece| piece.len()).sum::<usize>();
        let mut shard = Vec::new();
        shard
            .try_reserve_exact(len)
            .map_err(|_| CodecError::OutputLimit { limit: len })?;
        for piece in &pieces {
            shard.extend_from_slice(piece);
        }
        Ok(Some(shard))
    }

    /// The pieces of a shard of the inner chunks `chunk(i)` gives (`None`: not stored), in
    /// the order they are stored: the inner chunks in write order, the index first or last;
    /// `None` when there is none to store.
    fn laid_out<'c>(
        &self,
        chunk: impl Fn(usize) -> Option<&'c [u8]>,
    ) -> Result<Option<Vec<Cow<'c, [u8]>>>> {
        let mut offset = match self.location {
            IndexLocation::Start => self.index_len,
            IndexLocation::End => 0,
        };
        let mut ranges = vec![None; self.chunk_count()];
        let mut pieces = vec![Cow::Borrowed(&[][..])]; // the index's place, when first
        for &i in &self.order {
            if let Some(data) = chunk(i) {
                ranges[i] = Some(offset..offset + data.len());
                offset += data.len();
                pieces.push(Cow::Borrowed(data));
            }
        }
        if ranges.iter().all(Option::is_none) {
            return Ok(None);
        }
        let index = Cow::Owned(self.encoded_index(ranges)?);
        match self.location {
            IndexLocation::Start => pieces[0] = index,
            IndexLocation::End => pieces.push(index),
        }
        Ok(Some(pieces))
    }

    /// [`Sharding::write_buffers`] for shard files: the old shard file read where only part
    /// of it is written, the new shard written as a temporary file renamed over it, or the
    /// file removed when no inner chunk is left. For each shard, whether it is stored.
    ///
    /// Every shard is read, merged, encoded and written to a temporary file before the first
    /// is renamed into place, so a damaged shard (or a value the chain cannot encode) fails
    /// the write with every file as it was. Up to [`STAGED_SHARD_BYTES`] of shards are merged
    /// in memory together; beyond it, each thread takes a shard from its old file to its
    /// staged one, so memory holds a shard per thread, not the whole batch.
    pub fn write_files(
        &self,
        items: &[WriteItem<'_>],
        values: &InArray<'_>,
        fill: &[u8],
        empty: EmptyRule,
        threads: usize,
    ) -> ChunkResult<Vec<bool>> {
        let paths: std::collections::HashSet<&Path> = items.iter().map(|w| w.path).collect();
        if paths.len() != items.len() {
            return Err(CodecError::configuration("write: a shard twice in one batch").into());
        }
        for write in items {
            self.check_part(
                &write.chunk,
                &write.values,
                values.layout().shape(),
                "write",
            )?;
        }
        let old_file = |write: &WriteItem<'_>| {
            if write.chunk.is_whole(&self.shard_shape) {
                Ok(None)
            } else {
                read_chunk_file(write.path)
            }
        };
        let shard_bytes = self
            .shard_shape
            .iter()
            .product::<usize>()
            .saturating_mul(values.layout().item());
        if let Inner::Chain { encode, decode } = &self.inner
            && items.len() >= threads.max(2)
            && items.len().saturating_mul(shard_bytes) > STAGED_SHARD_BYTES
        {
            // A write too large to stage: each thread takes whole shards from file to file (old
            // shard read, encoded, written), so a write of any size holds one shard per thread.
            make_directories(paths)?;
            let mut jobs: Vec<&WriteItem<'_>> = items.iter().collect();
            return parallel_map(&mut jobs, threads, |write| {
                let old = old_file(write)?;
                let shard_write = ShardWrite {
                    old: old.as_deref(),
                    chunk: write.chunk.clone(),
                    values: write.values.clone(),
                };
                let index = self.old_index(&shard_write)?;
                let old_chunk = |chunk: usize| -> Option<&[u8]> {
                    let range = index.as_ref()?.chunks().get(chunk)?.clone()?;
                    shard_write.old?.get(range)
                };
                let plans = (encode, decode);
                let shard =
                    self.encode_shard(&shard_write, old_chunk, plans, values, fill, empty)?;
                stage_shard(write.path, shard)
            })
            .into_iter()
            .collect::<ChunkResult<Vec<Change<'_>>>>()?
            .into_iter()
            .map(Change::apply)
            .collect();
        }
        let mut jobs: Vec<&WriteItem<'_>> = items.iter().collect();
        let olds: Vec<Option<Vec<u8>>> = parallel_map(&mut jobs, threads, |write| old_file(write))
            .into_iter()
            .collect::<ChunkResult<_>>()?;
        let writes: Vec<ShardWrite<'_>> = items
            .iter()
            .zip(&olds)
            .map(|(write, old)| ShardWrite {
                old: old.as_deref(),
                chunk: write.chunk.clone(),
                values: write.values.clone(),
            })
            .collect();
        let indexes = self.old_indexes(&writes, threads)?;
        let written = self.encode_inner_chunks(&writes, &indexes, values, fill, empty, threads)?;
        make_directories(paths)?;
        // Each shard written from its pieces where they lie (no copy into one buffer).
        let mut jobs: Vec<(usize, Vec<Written>)> = written.into_iter().enumerate().collect();
        parallel_map(&mut jobs, threads, |(shard, written)| {
            let pieces = self.laid_out(|chunk| match &written[chunk] {
                Some(data) => data.as_deref(),
                None => Self::old_chunk(&writes, &indexes, *shard, chunk),
            })?;
            let path = items[*shard].path;
            match pieces {
                Some(pieces) => {
                    let pieces: Vec<&[u8]> = pieces.iter().map(AsRef::as_ref).collect();
                    stage_pieces(path, &pieces).map(Change::Put)
                }
                None => Ok(Change::Remove(path)),
            }
        })
        .into_iter()
        .collect::<ChunkResult<Vec<Change<'_>>>>()?
        .into_iter()
        .map(Change::apply)
        .collect()
    }
}

/// A shard's new bytes staged to replace `path`, or its removal where no inner chunk is left.
fn stage_shard(path: &Path, shard: Option<Vec<u8>>) -> ChunkResult<Change<'_>> {
    match shard {
        Some(shard) => stage_pieces(path, &[&shard]).map(Change::Put),
        None => Ok(Change::Remove(path)),
    }
}

/// The most decoded bytes of shards that one write stages in memory before it writes any.
pub const STAGED_SHARD_BYTES: usize = 256 << 20;

/// An inner chunk of a shard being written: `None` when not written (its old bytes stay),
/// else its new stored bytes (`None`: not stored).
type Written = Option<Option<Vec<u8>>>;

/// A shard loaded for a read: the bytes held and, for each inner chunk needed, which of them
/// and where (`None`: missing, or not needed).
struct Loaded<'a> {
    present: bool,
    buffers: Vec<Cow<'a, [u8]>>,
    chunks: Vec<Option<(usize, Range<usize>)>>,
}

impl Loaded<'_> {
    fn missing() -> Self {
        Self {
            present: false,
            buffers: Vec::new(),
            chunks: Vec::new(),
        }
    }

    /// Where inner chunk `chunk`'s stored bytes are.
    fn source(&self, chunk: usize) -> Source<'_> {
        match self.chunks.get(chunk) {
            Some(Some((buffer, range))) => self.buffers[*buffer]
                .get(range.clone())
                .map_or(Source::Missing, Source::Bytes),
            _ => Source::Missing,
        }
    }
}

/// Every inner chunk's C-order number in `order` over a grid of `grid` chunks.
fn write_order(grid: &[usize], order: WriteOrder) -> Vec<usize> {
    let count: usize = grid.iter().product();
    let coordinates = |mut index: usize| {
        let mut coords = vec![0usize; grid.len()];
        for (dim, &len) in grid.iter().enumerate().rev() {
            coords[dim] = index % len;
            index /= len;
        }
        coords
    };
    let mut numbers: Vec<usize> = (0..count).collect();
    match order {
        WriteOrder::Lexicographic => {}
        WriteOrder::Colexicographic => {
            numbers.sort_by_key(|&i| {
                let mut coords = coordinates(i);
                coords.reverse();
                coords
            });
        }
        WriteOrder::Morton => {
            // zarr-python's compressed Morton code: bit by bit, each dimension that still has
            // bits contributes its next one, first dimension first.
            let bits: Vec<u32> = grid
                .iter()
                .map(|&len| usize::BITS - len.saturating_sub(1).leading_zeros())
                .collect();
            let most = bits.iter().copied().max().unwrap_or(0);
            numbers.sort_by_key(|&i| {
                let coords = coordinates(i);
                let mut code: u128 = 0;
                let mut out = 0u32;
                for bit in 0..most {
                    for (dim, &dim_bits) in bits.iter().enumerate() {
                        if bit < dim_bits {
                            code |= u128::from((coords[dim] >> bit) & 1 == 1) << out;
                            out += 1;
                        }
                    }
                }
                code
            });
        }
    }
    numbers
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_hold_adjacent_inner_chunks_up_to_their_size() {
        let job = |range: Range<usize>| (range, Region::whole(&[1]), Region::whole(&[1]), 0);
        let jobs = vec![
            job(0..100),
            job(100..250),
            job(250..300),   // 300 bytes from 0: the most a run may span
            job(300..301),   // would make 301
            job(400..500),   // a gap
            job(450..460),   // overlaps the one before (a hostile index): a run of its own
            job(460..2000),  // larger than a run alone
            job(2000..2000), // empty, adjacent
        ];
        let spans: Vec<Range<usize>> = runs(&jobs, 300).map(|(span, _)| span).collect();
        assert_eq!(
            spans,
            vec![0..300, 300..301, 400..500, 450..460, 460..2000, 2000..2000]
        );
        let lens: Vec<usize> = runs(&jobs, 300).map(|(_, run)| run.len()).collect();
        assert_eq!(lens, vec![3, 1, 1, 1, 1, 1]);
        assert_eq!(runs(&[], 300).count(), 0);
    }

    #[test]
    fn morton_order_matches_zarr_python() {
        // zarr.core.indexing.morton_order_coords((3, 4)), as C-order numbers.
        let expected = [0, 4, 1, 5, 8, 9, 2, 6, 3, 7, 10, 11];
        assert_eq!(write_order(&[3, 4], WriteOrder::Morton), expected);
        assert_eq!(
            write_order(&[2, 3], WriteOrder::Colexicographic),
            [0, 3, 1, 4, 2, 5]
        );
        assert_eq!(write_order(&[1, 1], WriteOrder::Morton), [0]);
        let expected = [
            0, 6, 3, 9, 1, 7, 4, 10, 12, 18, 15, 21, 13, 19, 16, 22, 2, 8, 5, 11, 14, 20, 17, 23,
            24, 27, 25, 28, 26, 29,
        ];
        assert_eq!(write_order(&[5, 2, 3], WriteOrder::Morton), expected);
    }
}

//! Chunk files: each read whole into a reused per-thread buffer and handed to a decoder, or
//! read straight into place when stored as is; encoded chunks written as zarr-python's
//! `LocalStore` writes them.
//!
//! Files are read into a reused per-thread buffer (no fresh allocation and no page faults
//! per chunk) and written as zarr-python's `LocalStore` writes them: into a temporary file
//! beside the chunk's, then renamed over it, so a reader sees the old chunk or the new one,
//! never part of one.
//!
//! The kernel's copy from the page cache runs at less than half speed on some CPUs (measured on
//! AMD EPYC) when the destination sits 1 to 31 bytes past the source modulo a page, which is
//! where numpy puts large arrays (16 bytes past a page). Such a chunk is read piece by piece a
//! few bytes early, onto a page boundary, and each piece moved into place while in cache
//! (`read_shifted`), front to back so the kernel still reads ahead. Writing from such memory
//! is about as fast as from aligned memory, so writes copy nothing.

use std::cell::RefCell;
use std::fs::{self, File, OpenOptions};
use std::hash::{BuildHasher, RandomState};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use zarr_codec_shapes::CodecError;

use crate::plan::Plan;
use crate::target::Target;

/// The alignment of the per-thread file buffer: a page, so the kernel's copies from and to
/// the page cache (page-aligned) meet no partial-page distance.
const PAGE: usize = 4096;

/// A file buffer kept by a thread between chunks beyond this is freed after the chunk.
const KEPT_BUFFER: usize = 64 << 20;

thread_local! {
    /// The file's bytes read, or the encoded chunk before it is written.
    static FILE_BUFFER: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// Where `len` bytes starting on a page boundary begin in `buffer`, grown as needed (an
/// error, not an abort, when the memory cannot be had).
fn page_aligned_start(buffer: &mut Vec<u8>, len: usize) -> io::Result<usize> {
    let needed = len.checked_add(PAGE).ok_or(io::ErrorKind::OutOfMemory)?;
    if buffer.len() < needed {
        buffer
            .try_reserve_exact(needed - buffer.len())
            .map_err(|_| io::Error::from(io::ErrorKind::OutOfMemory))?;
        buffer.resize(needed, 0);
    }
    Ok(buffer.as_ptr().align_offset(PAGE).min(PAGE))
}

/// With `f`, this thread's file buffer; a large one is freed afterwards.
fn with_file_buffer<R>(f: impl FnOnce(&mut Vec<u8>) -> R) -> R {
    FILE_BUFFER.with_borrow_mut(|buffer| {
        let result = f(buffer);
        if buffer.capacity() > KEPT_BUFFER {
            *buffer = Vec::new();
        }
        result
    })
}

/// Destinations this many bytes or more past a page boundary (and those on it) get the
/// kernel's fast copy; those 1 to `PAGE_SLOW_END - 1` bytes past, the slow one.
const PAGE_SLOW_END: usize = 32;

/// What became of one chunk file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Read and decoded into place, or written.
    Done,
    /// There is no file (the chunk is missing: its fill value).
    Missing,
}

/// An error of one chunk: of its codecs, or of its file (with the file's path).
#[derive(Debug)]
pub enum ChunkError {
    /// A codec's error (a chunk file of the wrong size is [`CodecError::Corrupt`]).
    Codec(CodecError),
    /// A file that could not be read or written, and its path.
    Io(io::Error, PathBuf),
}

impl std::fmt::Display for ChunkError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Codec(err) => err.fmt(f),
            Self::Io(err, path) => write!(f, "{err}: {}", path.display()),
        }
    }
}

impl std::error::Error for ChunkError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Codec(err) => Some(err),
            Self::Io(err, _) => Some(err),
        }
    }
}

impl From<CodecError> for ChunkError {
    fn from(err: CodecError) -> Self {
        Self::Codec(err)
    }
}

/// A chunk's result: its value or its [`ChunkError`].
pub type ChunkResult<T> = Result<T, ChunkError>;

/// `path` opened for reading, or `None` when there is no chunk file: no such file, a
/// directory in its place, or a file where a directory of its path should be (as zarr's
/// `LocalStore.get`).
pub fn open_chunk(path: &Path) -> ChunkResult<Option<(File, u64)>> {
    let missing = |err: &io::Error| {
        matches!(
            err.kind(),
            io::ErrorKind::NotFound | io::ErrorKind::NotADirectory | io::ErrorKind::IsADirectory
        )
    };
    let io_error = |err| ChunkError::Io(err, path.to_path_buf());
    let file = match File::open(path) {
        Ok(file) => file,
        Err(err) if missing(&err) => return Ok(None),
        Err(err) => return Err(io_error(err)),
    };
    let metadata = file.metadata().map_err(io_error)?;
    if metadata.is_dir() {
        return Ok(None);
    }
    Ok(Some((file, metadata.len())))
}

/// Read from `file` until `into` is full or the file ends; the bytes read.
fn read_up_to(file: &mut File, into: &mut [u8]) -> io::Result<usize> {
    let mut filled = 0;
    while filled < into.len() {
        match file.read(&mut into[filled..]) {
            Ok(0) => break,
            Ok(read) => filled += read,
            Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
            Err(err) => return Err(err),
        }
    }
    Ok(filled)
}

/// The whole of `file` (`size` bytes when it was opened; it may have changed since) in
/// `buffer`, page-aligned.
fn read_whole<'b>(file: &mut File, size: u64, buffer: &'b mut Vec<u8>) -> io::Result<&'b [u8]> {
    // One byte more than the size, so that a file grown since needs no extra call to notice.
    let mut room = usize::try_from(size)
        .ok()
        .and_then(|size| size.checked_add(1))
        .ok_or(io::ErrorKind::OutOfMemory)?;
    let mut start = page_aligned_start(buffer, room)?;
    let mut len = 0;
    loop {
        len += read_up_to(file, &mut buffer[start + len..start + room])?;
        if len < room {
            return Ok(&buffer[start..start + len]);
        }
        // The file grew: the bytes read so far move to a larger buffer's aligned start.
        room = room.checked_mul(2).ok_or(io::ErrorKind::OutOfMemory)?;
        let mut larger = Vec::new();
        let larger_start = page_aligned_start(&mut larger, room)?;
        larger[larger_start..larger_start + len].copy_from_slice(&buffer[start..start + len]);
        *buffer = larger;
        start = larger_start;
    }
}

/// A stored-as-is chunk file into all of `out`: exactly `out.len()` bytes.
fn read_exactly(path: &Path, file: &mut File, size: u64, out: &mut [u8]) -> ChunkResult<()> {
    let expected = out.len();
    let failed = |err: io::Error| {
        if err.kind() == io::ErrorKind::UnexpectedEof {
            wrong_size(path, expected) // the file shrank since its size was read
        } else {
            ChunkError::Io(err, path.to_path_buf())
        }
    };
    if size != expected as u64 {
        return Err(wrong_size(path, expected));
    }
    let shift = out.as_ptr() as usize % PAGE;
    if !(1..PAGE_SLOW_END).contains(&shift) {
        file.read_exact(out).map_err(failed)?;
    } else if expected > SHIFTED_PIECE {
        with_file_buffer(|buffer| read_shifted(file, out, shift, buffer)).map_err(failed)?;
    } else {
        with_file_buffer(|buffer| {
            let start = page_aligned_start(buffer, expected)?;
            file.read_exact(&mut buffer[start..start + expected])?;
            out.copy_from_slice(&buffer[start..start + expected]);
            Ok(())
        })
        .map_err(failed)?;
    }
    // Nothing more: the file has not grown since its size was read.
    file.seek(SeekFrom::Start(expected as u64))
        .map_err(failed)?;
    if read_up_to(file, &mut [0]).map_err(failed)? != 0 {
        return Err(wrong_size(path, expected));
    }
    Ok(())
}

/// Pieces a misaligned chunk is read in: small enough to be still in cache when moved.
const SHIFTED_PIECE: usize = 256 << 10;

/// All of `out`, which starts `shift` bytes (1 to 31) past a page boundary, from `file`,
/// without the kernel's slow copy to that distance: each piece is read `shift` bytes before its
/// place (onto a page boundary, within `out`), then moved into place while still in cache, and
/// the `shift` bytes of the piece before it that the read overwrote are put back. The first
/// piece, which would land before `out`, goes through `buffer`. Pieces go front to back, so a
/// file not in the page cache is still read ahead by the kernel.
fn read_shifted(
    file: &mut File,
    out: &mut [u8],
    shift: usize,
    buffer: &mut Vec<u8>,
) -> io::Result<()> {
    let len = out.len();
    let head = SHIFTED_PIECE.min(len);
    let start = page_aligned_start(buffer, head)?;
    file.read_exact(&mut buffer[start..start + head])?;
    out[..head].copy_from_slice(&buffer[start..start + head]);
    let mut kept = [0u8; PAGE_SLOW_END];
    for first in (SHIFTED_PIECE..len).step_by(SHIFTED_PIECE) {
        let end = (first + SHIFTED_PIECE).min(len);
        let overwritten = first - shift..first;
        kept[..shift].copy_from_slice(&out[overwritten.clone()]);
        file.read_exact(&mut out[first - shift..end - shift])?;
        out.copy_within(first - shift..end - shift, first);
        out[overwritten].copy_from_slice(&kept[..shift]);
    }
    Ok(())
}

/// Reads chunk file `path` whole into this thread's file buffer and hands its bytes to
/// `decode`; `Missing` when there is no file. `stored_len`, when given, is the size the file
/// must have.
pub fn with_chunk_file<R>(
    path: &Path,
    stored_len: Option<usize>,
    decode: impl FnOnce(&[u8]) -> ChunkResult<R>,
) -> ChunkResult<Option<R>> {
    let Some((mut file, size)) = open_chunk(path)? else {
        return Ok(None);
    };
    with_file_buffer(|buffer| {
        let data = read_whole(&mut file, size, buffer)
            .map_err(|err| ChunkError::Io(err, path.to_path_buf()))?;
        if let Some(expected) = stored_len
            && data.len() != expected
        {
            return Err(wrong_size(path, expected));
        }
        decode(data).map(Some)
    })
}

/// A chunk stored as is read from `path` into all of `out` (exactly `out.len()` bytes, a
/// `Corrupt` error otherwise); `Missing` when there is no file.
pub fn read_stored_into(path: &Path, out: &mut [u8]) -> ChunkResult<Outcome> {
    let Some((mut file, size)) = open_chunk(path)? else {
        return Ok(Outcome::Missing);
    };
    read_exactly(path, &mut file, size, out)?;
    Ok(Outcome::Done)
}

/// Bytes `range` of a chunk stored as is, whose file must hold exactly `stored_len` bytes (a
/// `Corrupt` error otherwise), read from `path` into the same range of `out`: the part of a
/// chunk a small read needs, without reading the rest. `Missing` when there is no file.
pub fn read_stored_range(
    path: &Path,
    stored_len: usize,
    range: std::ops::Range<usize>,
    out: &mut [u8],
) -> ChunkResult<Outcome> {
    let Some((mut file, size)) = open_chunk(path)? else {
        return Ok(Outcome::Missing);
    };
    if size != stored_len as u64 || range.end > stored_len || out.len() < range.end {
        return Err(wrong_size(path, stored_len));
    }
    let failed = |err: io::Error| {
        if err.kind() == io::ErrorKind::UnexpectedEof {
            wrong_size(path, stored_len) // the file shrank since its size was read
        } else {
            ChunkError::Io(err, path.to_path_buf())
        }
    };
    file.seek(SeekFrom::Start(range.start as u64))
        .map_err(failed)?;
    file.read_exact(&mut out[range]).map_err(failed)?;
    Ok(Outcome::Done)
}

/// The whole of chunk file `path` in a new vector (a shard, kept while its inner chunks are
/// decoded); `None` when there is no file.
pub fn read_chunk_file(path: &Path) -> ChunkResult<Option<Vec<u8>>> {
    let Some((mut file, size)) = open_chunk(path)? else {
        return Ok(None);
    };
    let io_error = |err| ChunkError::Io(err, path.to_path_buf());
    let mut data = Vec::new();
    let size = usize::try_from(size).map_err(|_| io_error(io::ErrorKind::OutOfMemory.into()))?;
    data.try_reserve_exact(size)
        .map_err(|_| io_error(io::ErrorKind::OutOfMemory.into()))?;
    file.read_to_end(&mut data).map_err(io_error)?;
    Ok(Some(data))
}

/// Bytes `range` of the open chunk file `file` (`path`), read at their place without moving
/// the file's position (so that threads may read parts of one file at once) into this
/// thread's reused file buffer, handed to `f`; a `Corrupt` error when the file no longer holds
/// them (it shrank since its size was read).
pub fn with_file_range<R>(
    file: &File,
    path: &Path,
    range: std::ops::Range<usize>,
    f: impl FnOnce(&[u8]) -> ChunkResult<R>,
) -> ChunkResult<R> {
    let io_error = |err| ChunkError::Io(err, path.to_path_buf());
    with_file_buffer(|buffer| {
        let start = page_aligned_start(buffer, range.len()).map_err(io_error)?;
        let into = &mut buffer[start..start + range.len()];
        let mut filled = 0;
        while filled < into.len() {
            match read_at(file, &mut into[filled..], (range.start + filled) as u64) {
                Ok(0) => {
                    return Err(ChunkError::Codec(CodecError::Corrupt(format!(
                        "{}: the file ends before byte {}",
                        path.display(),
                        range.end
                    ))));
                }
                Ok(read) => filled += read,
                Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
                Err(err) => return Err(io_error(err)),
            }
        }
        f(into)
    })
}

/// Bytes of `file` from `offset` into `into`, the file's position left as it is (on Unix).
#[cfg(unix)]
fn read_at(file: &File, into: &mut [u8], offset: u64) -> io::Result<usize> {
    std::os::unix::fs::FileExt::read_at(file, into, offset)
}

/// Bytes of `file` from `offset` into `into`.
#[cfg(windows)]
fn read_at(file: &File, into: &mut [u8], offset: u64) -> io::Result<usize> {
    std::os::windows::fs::FileExt::seek_read(file, into, offset)
}

/// Bytes `range` of the open chunk file `file` (`path`), in a new vector; a `Corrupt` error
/// when the file no longer holds them (it shrank since its size was read).
pub fn read_file_range(
    file: &mut File,
    path: &Path,
    range: std::ops::Range<usize>,
) -> ChunkResult<Vec<u8>> {
    let io_error = |err| ChunkError::Io(err, path.to_path_buf());
    let mut data = Vec::new();
    data.try_reserve_exact(range.len())
        .map_err(|_| io_error(io::ErrorKind::OutOfMemory.into()))?;
    data.resize(range.len(), 0);
    file.seek(SeekFrom::Start(range.start as u64))
        .map_err(io_error)?;
    file.read_exact(&mut data).map_err(|err| {
        if err.kind() == io::ErrorKind::UnexpectedEof {
            ChunkError::Codec(CodecError::Corrupt(format!(
                "{}: the file ends before byte {}",
                path.display(),
                range.end
            )))
        } else {
            io_error(err)
        }
    })?;
    Ok(data)
}

/// Chunk file `path` removed, as zarr-python's `LocalStore` deletes a key (a directory in its
/// place goes too); nothing to remove is no error.
pub fn remove_chunk(path: &Path) -> ChunkResult<()> {
    let removed = if path.is_dir() {
        fs::remove_dir_all(path)
    } else {
        fs::remove_file(path)
    };
    match removed {
        Ok(()) => Ok(()),
        Err(err) if err.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(err) => Err(ChunkError::Io(err, path.to_path_buf())),
    }
}

/// Makes the directories the files of `paths` go in, each once.
pub fn make_directories<'p>(paths: impl IntoIterator<Item = &'p Path>) -> ChunkResult<()> {
    let directories: std::collections::HashSet<&Path> =
        paths.into_iter().filter_map(Path::parent).collect();
    for directory in directories {
        fs::create_dir_all(directory)
            .map_err(|err| ChunkError::Io(err, directory.to_path_buf()))?;
    }
    Ok(())
}

/// One chunk file decoded by `plan` into all of `out`.
pub fn decode_file(plan: &Plan, path: &Path, out: &mut [u8]) -> ChunkResult<Outcome> {
    if plan.is_identity() {
        return read_stored_into(path, out);
    }
    let done = with_chunk_file(path, plan.input_len(), |data| {
        plan.run_exact(data, out).map_err(ChunkError::Codec)
    })?;
    Ok(done.map_or(Outcome::Missing, |()| Outcome::Done))
}

/// A chunk file of other than the `expected` size its chain stores.
fn wrong_size(path: &Path, expected: usize) -> ChunkError {
    ChunkError::Codec(CodecError::Corrupt(format!(
        "bytes: chunk file {} does not hold exactly {expected} bytes",
        path.display()
    )))
}

/// A name for a temporary file beside `path` that no other writer (thread or process)
/// picks: `<name>.<random hex>.partial`, as zarr-python names its own.
fn temporary_beside(path: &Path) -> PathBuf {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let state = RandomState::new();
    let unique = state.hash_one((
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed),
        std::thread::current().id(),
    ));
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(format!(
        ".{unique:016x}{:016x}.partial",
        state.hash_one(unique)
    ));
    path.with_file_name(name)
}

/// `data` as the whole content of `path`: written to a new temporary file beside it, then
/// renamed over it (the temporary file is removed should anything fail).
pub fn write_atomically(path: &Path, data: &[u8]) -> ChunkResult<()> {
    write_pieces_atomically(path, &[data])
}

/// `pieces`, one after another, as the whole content of `path`, as [`write_atomically`]
/// writes it: a shard's inner chunks and index written where they lie, without first
/// copying them into one buffer.
pub fn write_pieces_atomically(path: &Path, pieces: &[&[u8]]) -> ChunkResult<()> {
    stage_pieces(path, pieces)?.commit()
}

/// A chunk's new content written to a temporary file beside it, not yet in its place:
/// [`Staged::commit`] renames it over the chunk; dropped uncommitted, it is removed. A write
/// of many chunks stages them all before it commits any, so that one failing to encode leaves
/// every chunk as it was.
#[derive(Debug)]
#[must_use = "a staged chunk is removed unless committed"]
pub struct Staged {
    temporary: PathBuf,
    path: PathBuf,
    committed: bool,
}

impl Staged {
    /// The new content in the chunk's place (a rename: a reader sees the old file or the new).
    pub fn commit(mut self) -> ChunkResult<()> {
        let renamed = fs::rename(&self.temporary, &self.path)
            .map_err(|err| ChunkError::Io(err, self.path.clone()));
        self.committed = renamed.is_ok();
        renamed
    }
}

impl Drop for Staged {
    fn drop(&mut self) {
        if !self.committed {
            // Best effort: whatever failed reports its own error.
            let _ = fs::remove_file(&self.temporary);
        }
    }
}

/// `pieces`, one after another, in a new temporary file beside `path`, staged to replace it.
pub fn stage_pieces(path: &Path, pieces: &[&[u8]]) -> ChunkResult<Staged> {
    let (mut file, temporary) = loop {
        let candidate = temporary_beside(path);
        match OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&candidate)
        {
            Ok(file) => break (file, candidate),
            Err(err) if err.kind() == io::ErrorKind::AlreadyExists => {}
            Err(err) => return Err(ChunkError::Io(err, candidate)),
        }
    };
    let staged = Staged {
        temporary,
        path: path.to_path_buf(),
        committed: false,
    };
    write_all_pieces(&mut file, pieces).map_err(|err| ChunkError::Io(err, path.to_path_buf()))?;
    Ok(staged)
}

/// All of `pieces` written to `file`, in order, by as few calls as the kernel allows.
fn write_all_pieces(file: &mut File, pieces: &[&[u8]]) -> io::Result<()> {
    // At most this many pieces a call (Linux's IOV_MAX is 1024).
    const MOST: usize = 1024;
    let mut slices: Vec<io::IoSlice<'_>> = pieces
        .iter()
        .filter(|piece| !piece.is_empty())
        .map(|piece| io::IoSlice::new(piece))
        .collect();
    let mut left = &mut slices[..];
    while !left.is_empty() {
        let most = left.len().min(MOST);
        match file.write_vectored(&left[..most]) {
            Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
            Ok(written) => io::IoSlice::advance_slices(&mut left, written),
            Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
            Err(err) => return Err(err),
        }
    }
    Ok(())
}

/// One chunk encoded by `plan` (no steps: stored as is) and written to `path`.
pub fn encode_file(plan: &Plan, chunk: &[u8], path: &Path) -> ChunkResult<Outcome> {
    stage_encoded(plan, chunk, path)?.commit()?;
    Ok(Outcome::Done)
}

/// One chunk encoded by `plan` (no steps: stored as is) into a file staged to replace `path`.
pub fn stage_encoded(plan: &Plan, chunk: &[u8], path: &Path) -> ChunkResult<Staged> {
    if plan.is_identity() {
        // Straight from the caller's memory: the kernel's copy into the page cache is about as
        // fast from any alignment (measured: going through an aligned buffer is slower).
        return stage_pieces(path, &[chunk]);
    }
    with_file_buffer(|buffer| {
        let room = plan.room(chunk.len())?;
        let start = page_aligned_start(buffer, room)
            .map_err(|err| ChunkError::Io(err, path.to_path_buf()))?;
        let written = plan.run(chunk, Target::Init(&mut buffer[start..start + room]))?;
        stage_pieces(path, &[&buffer[start..start + written]])
    })
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;

    /// A new empty directory under the system's temporary one, removed on drop.
    struct Scratch(PathBuf);

    impl Scratch {
        fn new(name: &str) -> Self {
            static NEXT: AtomicU64 = AtomicU64::new(0);
            let unique = NEXT.fetch_add(1, Ordering::Relaxed);
            let path = std::env::temp_dir().join(format!(
                "zarr-codec-files-{}-{name}-{unique}",
                std::process::id()
            ));
            fs::create_dir_all(&path).expect("a temporary directory");
            Self(path)
        }
    }

    impl Drop for Scratch {
        fn drop(&mut self) {
            let _ = fs::remove_dir_all(&self.0);
        }
    }

    fn pattern(len: usize) -> Vec<u8> {
        (0..len)
            .map(|i| u8::try_from((i * 7 + i / 251) % 256).expect("a byte"))
            .collect()
    }

    /// `len` bytes of `backing` starting `shift` bytes past a page boundary.
    fn at_shift(backing: &mut Vec<u8>, len: usize, shift: usize) -> &mut [u8] {
        backing.resize(len + 2 * PAGE, 0xEE);
        let start = backing.as_ptr().align_offset(PAGE) + shift;
        &mut backing[start..start + len]
    }

    fn read_into(path: &Path, out: &mut [u8]) -> ChunkResult<Outcome> {
        read_stored_into(path, out)
    }

    #[test]
    fn page_aligned_starts_are_on_a_page_with_room() {
        let mut buffer = Vec::new();
        for len in [0, 1, PAGE, 3 * PAGE + 5] {
            let start = page_aligned_start(&mut buffer, len).expect("memory");
            assert_eq!((buffer.as_ptr() as usize + start) % PAGE, 0);
            assert!(buffer.len() >= start + len);
        }
        assert!(page_aligned_start(&mut buffer, usize::MAX).is_err());
    }

    #[test]
    fn stored_files_read_exactly_at_every_alignment_and_size() {
        let dir = Scratch::new("exact");
        let sizes = [
            1,
            100,
            SHIFTED_PIECE,
            SHIFTED_PIECE + 1,
            3 * SHIFTED_PIECE + 123,
        ];
        for len in sizes {
            let path = dir.0.join(len.to_string());
            let data = pattern(len);
            fs::write(&path, &data).expect("written");
            for shift in [0, 1, 16, 31, 32, 48, PAGE - 16] {
                let mut backing = Vec::new();
                let out = at_shift(&mut backing, len, shift);
                assert!(matches!(read_into(&path, out), Ok(Outcome::Done)));
                assert!(out == data.as_slice(), "{len} bytes at page + {shift}");
            }
        }
    }

    #[test]
    fn a_shifted_read_writes_nothing_outside_its_output() {
        let dir = Scratch::new("bounds");
        let len = 2 * SHIFTED_PIECE + 17;
        let path = dir.0.join("0");
        fs::write(&path, pattern(len)).expect("written");
        let mut backing = Vec::new();
        let start = {
            let out = at_shift(&mut backing, len, 16);
            let start = out.as_ptr() as usize;
            assert!(matches!(read_into(&path, out), Ok(Outcome::Done)));
            start - backing.as_ptr() as usize
        };
        assert!(backing[..start].iter().all(|&byte| byte == 0xEE));
        assert!(backing[start + len..].iter().all(|&byte| byte == 0xEE));
    }

    #[test]
    fn stored_files_of_another_size_are_corrupt() {
        let dir = Scratch::new("sizes");
        let path = dir.0.join("0");
        for (stored, wanted) in [
            (99, 100),
            (101, 100),
            (SHIFTED_PIECE * 2 - 1, SHIFTED_PIECE * 2),
        ] {
            fs::write(&path, pattern(stored)).expect("written");
            for shift in [0, 16] {
                let mut backing = Vec::new();
                let out = at_shift(&mut backing, wanted, shift);
                match read_into(&path, out) {
                    Err(ChunkError::Codec(err)) => {
                        assert!(err.to_string().contains("does not hold exactly"), "{err}");
                    }
                    _ => panic!("{stored} bytes read as {wanted}"),
                }
            }
        }
    }

    #[test]
    fn no_file_is_a_missing_chunk() {
        let dir = Scratch::new("missing");
        fs::create_dir(dir.0.join("a-directory")).expect("made");
        fs::write(dir.0.join("a-file"), b"").expect("written");
        for missing in ["no-such-file", "a-directory", "a-file/under-a-file"] {
            let mut out = [7u8; 4];
            assert!(matches!(
                read_into(&dir.0.join(missing), &mut out),
                Ok(Outcome::Missing)
            ));
            assert_eq!(out, [7; 4]);
        }
    }

    #[test]
    fn whole_files_are_read_even_when_grown_since_their_size_was_read() {
        let dir = Scratch::new("whole");
        let path = dir.0.join("0");
        let data = pattern(3 * PAGE + 9);
        fs::write(&path, &data).expect("written");
        let mut buffer = Vec::new();
        for stated in [data.len() as u64, 0, 5, 2 * PAGE as u64] {
            let mut file = File::open(&path).expect("opened");
            let read = read_whole(&mut file, stated, &mut buffer).expect("read");
            assert_eq!(read, data.as_slice(), "stated {stated}");
            assert_eq!(read.as_ptr() as usize % PAGE, 0);
        }
    }

    #[test]
    fn files_are_replaced_whole_and_leave_no_temporary_file() {
        let dir = Scratch::new("write");
        let path = dir.0.join("c.0");
        for content in [pattern(10), pattern(SHIFTED_PIECE + 3), Vec::new()] {
            assert!(matches!(
                encode_file(&Plan::new(Vec::new(), None), &content, &path),
                Ok(Outcome::Done)
            ));
            assert_eq!(fs::read(&path).expect("read"), content);
        }
        let names: Vec<_> = fs::read_dir(&dir.0)
            .expect("listed")
            .map(|entry| entry.expect("an entry").file_name())
            .collect();
        assert_eq!(names, ["c.0"]);
    }

    #[test]
    fn pieces_are_written_in_order_however_many() {
        let dir = Scratch::new("pieces");
        let path = dir.0.join("c.0");
        // More pieces than one call takes, empty ones among them, of every size to 5 pages.
        let data = pattern(3 * 2500 + 5 * PAGE);
        let mut pieces: Vec<&[u8]> = Vec::new();
        let mut at = 0;
        for n in 0..2500 {
            let len = if n % 7 == 0 { 0 } else { 3 };
            pieces.push(&data[at..at + len]);
            at += len;
        }
        pieces.push(&data[at..]);
        write_pieces_atomically(&path, &pieces).expect("written");
        assert!(
            fs::read(&path).expect("read") == data,
            "the pieces, in order"
        );
        write_pieces_atomically(&path, &[]).expect("written");
        assert_eq!(fs::read(&path).expect("read"), Vec::<u8>::new());
    }

    #[test]
    fn temporary_names_are_new_each_time_and_beside_the_file() {
        let path = Path::new("/some/dir/c.0");
        let names: HashSet<PathBuf> = (0..100).map(|_| temporary_beside(path)).collect();
        assert_eq!(names.len(), 100);
        for name in &names {
            assert_eq!(name.parent(), path.parent());
            let name = name.file_name().expect("a name").to_string_lossy();
            assert!(
                name.starts_with("c.0.") && name.ends_with(".partial"),
                "{name}"
            );
        }
    }

    #[test]
    fn a_failed_write_is_an_io_error_with_its_path() {
        let dir = Scratch::new("fail");
        let path = dir.0.join("no-such-directory").join("0");
        match encode_file(&Plan::new(Vec::new(), None), b"abc", &path) {
            Err(ChunkError::Io(err, failed)) => {
                assert_eq!(err.kind(), io::ErrorKind::NotFound);
                assert_eq!(failed.parent(), path.parent());
            }
            _ => panic!("written without its directory"),
        }
    }
}

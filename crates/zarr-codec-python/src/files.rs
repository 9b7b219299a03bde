//! The chain runners on chunk files: each chunk read from its file and decoded into place, or
//! encoded and written to its file, by one thread, with the GIL released for the whole batch
//! and no Python call or Python object per chunk.
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
//! ([`read_shifted`]), front to back so the kernel still reads ahead. Writing from such memory
//! is about as fast as from aligned memory, so writes copy nothing.

use std::cell::RefCell;
use std::collections::HashSet;
use std::fs::{self, File, OpenOptions};
use std::hash::{BuildHasher, RandomState};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use pyo3::exceptions::PyOSError;
use pyo3::prelude::*;
use zarr_codec_shapes::CodecError;

use crate::batch::checked_outputs;
use crate::chain::{Described, Step, decode_one, described, run_steps, steps_of};
use crate::kernel::Target;
use crate::{BytesInput, BytesOutput, parallel_map, run, thread_count};

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
enum Outcome {
    /// Read and decoded into place, or written.
    Done,
    /// There is no file (the chunk is missing: its fill value).
    Missing,
}

/// An error of one chunk: of its codecs, or of its file (with the file's path).
enum ChunkError {
    Codec(CodecError),
    Io(io::Error, PathBuf),
}

impl From<CodecError> for ChunkError {
    fn from(err: CodecError) -> Self {
        Self::Codec(err)
    }
}

type ChunkResult<T> = Result<T, ChunkError>;

/// `OSError(errno, message, path)`: Python picks the subclass from the errno
/// (`PermissionError`, ...), as for its own file calls.
fn os_error(err: &io::Error, path: &Path) -> PyErr {
    let path = path.to_string_lossy().into_owned();
    match err.raw_os_error() {
        Some(code) => PyOSError::new_err((code, err.to_string(), path)),
        None => PyOSError::new_err(format!("{err}: {path}")),
    }
}

/// `path` opened for reading, or `None` when there is no chunk file: no such file, a
/// directory in its place, or a file where a directory of its path should be (as zarr's
/// `LocalStore.get`).
fn open_chunk(path: &Path) -> ChunkResult<Option<(File, u64)>> {
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

/// One chunk file decoded through `steps` (none: stored as is) into `out`; `stored_len`, when
/// given, is the size the file must have (the first step reads the stored elements).
fn decode_file(
    steps: &[Step<'_>],
    stored_len: Option<usize>,
    path: &Path,
    out: &mut [u8],
) -> ChunkResult<Outcome> {
    let Some((mut file, size)) = open_chunk(path)? else {
        return Ok(Outcome::Missing);
    };
    if steps.is_empty() {
        read_exactly(path, &mut file, size, out)?;
        return Ok(Outcome::Done);
    }
    with_file_buffer(|buffer| {
        let data = read_whole(&mut file, size, buffer)
            .map_err(|err| ChunkError::Io(err, path.to_path_buf()))?;
        if let Some(expected) = stored_len
            && data.len() != expected
        {
            return Err(wrong_size(path, expected));
        }
        decode_one(steps, data, out)?;
        Ok(Outcome::Done)
    })
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
fn write_atomically(path: &Path, data: &[u8]) -> ChunkResult<()> {
    let temporary = loop {
        let candidate = temporary_beside(path);
        match OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&candidate)
        {
            Ok(file) => break Ok((file, candidate)),
            Err(err) if err.kind() == io::ErrorKind::AlreadyExists => {}
            Err(err) => break Err(ChunkError::Io(err, candidate)),
        }
    };
    let (mut file, temporary) = temporary?;
    let written = file
        .write_all(data)
        .and_then(|()| {
            drop(file);
            fs::rename(&temporary, path)
        })
        .map_err(|err| ChunkError::Io(err, path.to_path_buf()));
    if written.is_err() {
        // Best effort: the error raised is the write's.
        let _ = fs::remove_file(&temporary);
    }
    written
}

/// One chunk encoded through `steps` (none: stored as is) and written to `path`.
fn encode_file(steps: &[Step<'_>], chunk: &[u8], path: &Path) -> ChunkResult<Outcome> {
    if steps.is_empty() {
        // Straight from the caller's memory: the kernel's copy into the page cache is about as
        // fast from any alignment (measured: going through an aligned buffer is slower).
        return write_atomically(path, chunk).map(|()| Outcome::Done);
    }
    with_file_buffer(|buffer| {
        let room = steps
            .iter()
            .try_fold(chunk.len(), |len, step| step.room(len))?;
        let start = page_aligned_start(buffer, room)
            .map_err(|err| ChunkError::Io(err, path.to_path_buf()))?;
        let written = run_steps(steps, chunk, Target::Init(&mut buffer[start..start + room]))?;
        write_atomically(path, &buffer[start..start + written]).map(|()| Outcome::Done)
    })
}

/// The paths of `paths`, an iterable of `str` or `os.PathLike`.
fn paths_of(paths: &Bound<'_, PyAny>) -> PyResult<Vec<PathBuf>> {
    paths.try_iter()?.map(|path| path?.extract()).collect()
}

/// The steps of a Python description (see [`crate::chain`]), none allowed (a chain that
/// stores chunks as they are).
fn file_steps<'a>(py: Python<'_>, described: &'a [Described<'_>]) -> PyResult<Vec<Step<'a>>> {
    if described.is_empty() {
        Ok(Vec::new())
    } else {
        steps_of(py, described)
    }
}

/// Run `work` on each job in parallel with the GIL released; the outcomes, or the first error
/// (a codec's as its `zarr_codec_shapes` exception, a file's as `OSError`).
fn run_jobs<T: Send>(
    py: Python<'_>,
    jobs: &mut [T],
    threads: usize,
    work: impl Fn(&mut T) -> ChunkResult<Outcome> + Sync + Send,
) -> PyResult<Vec<bool>> {
    let mut failure = None;
    let outcomes = run(py, || {
        let results = parallel_map(jobs, threads, work);
        let mut outcomes = Vec::with_capacity(results.len());
        for result in results {
            match result {
                Ok(outcome) => outcomes.push(matches!(outcome, Outcome::Done)),
                Err(ChunkError::Codec(err)) => return Err(err),
                Err(ChunkError::Io(err, path)) => {
                    failure.get_or_insert((err, path));
                }
            }
        }
        Ok(outcomes)
    })?;
    match failure {
        Some((err, path)) => Err(os_error(&err, &path)),
        None => Ok(outcomes),
    }
}

/// Read each chunk file of `paths` and decode it through the chain's `steps` (in decoding
/// order; none for chunks stored as they are) into the matching writable buffer of `outs`
/// (each exactly the decoded chunk's size), in parallel with the GIL released.
///
/// `stored_len`: the size every file must have, for a chain whose first step reads the
/// stored elements themselves (no compressor); stored-as-is files must be their output's.
///
/// Returns, for each chunk, whether its file was there: a missing file (or a directory in
/// its place) leaves its output untouched. A codec error raises its `zarr_codec_shapes` exception
/// (a stored-as-is file of the wrong size is `CorruptInputError`), a file error `OSError`.
#[pyfunction]
#[pyo3(signature = (steps, paths, outs, stored_len=None, threads=None))]
pub fn decode_chain_files_into(
    py: Python<'_>,
    steps: &Bound<'_, PyAny>,
    paths: &Bound<'_, PyAny>,
    outs: &Bound<'_, PyAny>,
    stored_len: Option<usize>,
    threads: Option<i64>,
) -> PyResult<Vec<bool>> {
    let threads = thread_count(py, threads, "chain")?;
    let described = described(steps)?;
    let steps = file_steps(py, &described)?;
    let paths = paths_of(paths)?;
    let mut outputs = checked_outputs(py, outs, paths.len(), "chain")?;
    let mut jobs: Vec<(&Path, &mut [u8])> = paths
        .iter()
        .map(PathBuf::as_path)
        .zip(outputs.iter_mut().map(BytesOutput::as_mut_slice))
        .collect();
    let steps = &steps;
    run_jobs(py, &mut jobs, threads, |(path, out)| {
        decode_file(steps, stored_len, path, out)
    })
}

/// Encode each of `chunks` (a chunk's native-order element bytes, C order) through the
/// chain's `steps` (in encoding order; none to store chunks as they are) and write it to the
/// matching file of `paths`, in parallel with the GIL released.
///
/// Each file is written as zarr-python's `LocalStore` writes one (a temporary file beside
/// it, renamed over it), its directory made first if need be. A codec error raises its
/// `zarr_codec_shapes` exception, a file error `OSError`; the chunks written before it stay.
#[pyfunction]
#[pyo3(signature = (steps, chunks, paths, threads=None))]
pub fn encode_chain_files(
    py: Python<'_>,
    steps: &Bound<'_, PyAny>,
    chunks: &Bound<'_, PyAny>,
    paths: &Bound<'_, PyAny>,
    threads: Option<i64>,
) -> PyResult<()> {
    let threads = thread_count(py, threads, "chain")?;
    let described = described(steps)?;
    let steps = file_steps(py, &described)?;
    let paths = paths_of(paths)?;
    let inputs = BytesInput::all(chunks)?;
    if inputs.len() != paths.len() {
        let message = format!("chain: {} chunks but {} paths", inputs.len(), paths.len());
        return Err(crate::to_py_err(py, &CodecError::configuration(message)));
    }
    // Each directory once, before the chunks are written in parallel.
    let directories: HashSet<&Path> = paths.iter().filter_map(|path| path.parent()).collect();
    for directory in directories {
        fs::create_dir_all(directory).map_err(|err| os_error(&err, directory))?;
    }
    let mut jobs: Vec<(&[u8], &Path)> = inputs
        .iter()
        .map(BytesInput::as_slice)
        .zip(paths.iter().map(PathBuf::as_path))
        .collect();
    let steps = &steps;
    run_jobs(py, &mut jobs, threads, |(chunk, path)| {
        encode_file(steps, chunk, path)
    })
    .map(|_| ())
}

/// Add both file runners to a wheel's module (see [`crate::add_runners`]).
pub(crate) fn add_file_runners(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_function(pyo3::wrap_pyfunction!(decode_chain_files_into, module)?)?;
    module.add_function(pyo3::wrap_pyfunction!(encode_chain_files, module)?)
}

#[cfg(test)]
mod tests {
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
        decode_file(&[], None, path, out)
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
                encode_file(&[], &content, &path),
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
        match encode_file(&[], b"abc", &path) {
            Err(ChunkError::Io(err, failed)) => {
                assert_eq!(err.kind(), io::ErrorKind::NotFound);
                assert_eq!(failed.parent(), path.parent());
            }
            _ => panic!("written without its directory"),
        }
    }
}

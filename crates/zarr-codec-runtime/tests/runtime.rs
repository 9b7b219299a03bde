//! The runtime with real codecs and no Python: chains planned from codec objects, batches of
//! chunks decoded into places of an array (whole, partial, strided, missing, from files),
//! checked against a plain reference.

use std::path::PathBuf;
use std::sync::Arc;

use proptest::prelude::*;
use serde_json::json;
use zarr_codec_runtime::{
    BufferWriteItem, Chain, ChunkError, EmptyRule, InArray, IndexLocation, OutArray, ReadItem,
    Region, ShardIndex, Source, Span, Target, WriteItem, encode_files, read_batch, write_buffers,
    write_files,
};
use zarr_codec_shapes::{
    ArrayToArrayCodec, BytesToBytesCodec, ChunkSpec, CodecError, CodecFromJson, DataType, Endian,
    ErrorKind, ZarrFormat,
};

fn zstd() -> Arc<dyn BytesToBytesCodec> {
    let json = json!({"name": "zstd", "configuration": {"level": 1, "checksum": false}});
    Arc::new(zarr_codec_zstd::Zstd::from_json(&json, ZarrFormat::V3).expect("zstd"))
}

fn gzip() -> Arc<dyn BytesToBytesCodec> {
    let json = json!({"name": "gzip", "configuration": {"level": 1}});
    Arc::new(zarr_codec_gzip::Gzip::from_json(&json, ZarrFormat::V3).expect("gzip"))
}

fn crc32c() -> Arc<dyn BytesToBytesCodec> {
    Arc::new(zarr_codec_crc32c::Crc32c::default())
}

fn spec(shape: &[usize], data_type: DataType) -> ChunkSpec {
    ChunkSpec::with_default_fill_value(shape.to_vec(), data_type).expect("a spec")
}

fn pattern(len: usize, seed: u8) -> Vec<u8> {
    (0..len)
        .map(|i| u8::try_from((i * 31 + usize::from(seed) * 7) % 251).expect("a byte"))
        .collect()
}

/// A new empty directory under the system's temporary one, removed on drop.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Self {
        let path =
            std::env::temp_dir().join(format!("zarr-codec-runtime-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path).expect("a directory");
        Self(path)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[test]
fn chains_encode_as_their_codecs_do_and_decode_back() {
    let chunk = pattern(4096, 1);
    for bytes in [
        vec![zstd()],
        vec![gzip()],
        vec![crc32c()],
        vec![zstd(), crc32c()],
    ] {
        let chain = Chain::new(
            &[],
            Some(Endian::NATIVE),
            &bytes,
            spec(&[1024], DataType::Float32),
        )
        .expect("a chain");
        let stored = chain.encode(&chunk).expect("encoded");
        let mut by_hand = chunk.clone();
        for codec in &bytes {
            by_hand = codec.encode(&by_hand, chain.spec()).expect("encoded");
        }
        assert_eq!(stored, by_hand);
        let mut out = vec![0; chunk.len()];
        chain.decode_into(&stored, &mut out).expect("decoded");
        assert_eq!(out, chunk);
    }
}

#[test]
fn the_other_byte_order_is_swapped_both_ways() {
    let chain =
        Chain::new(&[], Some(Endian::Big), &[], spec(&[3], DataType::UInt16)).expect("a chain");
    let native: Vec<u8> = [1u16, 2, 0x0304]
        .iter()
        .flat_map(|v| v.to_ne_bytes())
        .collect();
    let stored = chain.encode(&native).expect("encoded");
    assert_eq!(stored, [0, 1, 0, 2, 3, 4]);
    let mut out = vec![0; 6];
    chain.decode_into(&stored, &mut out).expect("decoded");
    assert_eq!(out, native);
    // No compressor: the stored elements must be exactly the chunk's.
    let error = chain
        .decode_into(&stored[..4], &mut out)
        .expect_err("short");
    assert_eq!(error.kind(), ErrorKind::Corrupt);
}

/// The `bytes` codec swaps each part of a complex number on its own and keeps the real part
/// first (a swap of the whole element would exchange the parts): checked against the
/// big-endian bytes written out by hand, parts distinct.
#[test]
fn complex_numbers_are_swapped_part_by_part() {
    let chain =
        Chain::new(&[], Some(Endian::Big), &[], spec(&[2], DataType::Complex64)).expect("a chain");
    let parts = [1.5f32, -2.25, 3.0e-3, 7.0e9];
    let native: Vec<u8> = parts.iter().flat_map(|v| v.to_ne_bytes()).collect();
    let expected: Vec<u8> = parts.iter().flat_map(|v| v.to_be_bytes()).collect();
    let stored = chain.encode(&native).expect("encoded");
    assert_eq!(stored, expected);
    let mut out = vec![0; native.len()];
    chain.decode_into(&stored, &mut out).expect("decoded");
    assert_eq!(out, native);

    let chain = Chain::new(
        &[],
        Some(Endian::Big),
        &[zstd()],
        spec(&[1], DataType::Complex128),
    )
    .expect("a chain");
    let native: Vec<u8> = [0.1f64, -9.75]
        .iter()
        .flat_map(|v| v.to_ne_bytes())
        .collect();
    let stored = chain.encode(&native).expect("encoded");
    let raw = zarr_codec_zstd::decode(&stored, None).expect("a zstd frame");
    assert_eq!(raw[..8], 0.1f64.to_be_bytes());
    assert_eq!(raw[8..], (-9.75f64).to_be_bytes());
}

#[test]
fn array_codecs_run_as_planned_steps() {
    let json = json!({"name": "cast_value", "configuration": {"data_type": "int16"}});
    let cast: Arc<dyn ArrayToArrayCodec> = Arc::new(
        zarr_codec_cast_value::CastValue::from_json(&json, ZarrFormat::V3).expect("cast_value"),
    );
    let chain = Chain::new(
        &[cast],
        Some(Endian::Little),
        &[zstd()],
        spec(&[4], DataType::Float64),
    )
    .expect("a chain");
    assert_eq!(chain.decode_plan().steps().len(), 2);
    let values: Vec<u8> = [1.0f64, -2.0, 300.0, 7.0]
        .iter()
        .flat_map(|v| v.to_ne_bytes())
        .collect();
    let stored = chain.encode(&values).expect("encoded");
    let mut out = vec![0; 32];
    chain.decode_into(&stored, &mut out).expect("decoded");
    assert_eq!(out, values);
    // A value the cast refuses is the codec's error, through the plan.
    let huge: Vec<u8> = [1e9f64; 4].iter().flat_map(|v| v.to_ne_bytes()).collect();
    assert_eq!(
        chain.encode(&huge).expect_err("out of range").kind(),
        ErrorKind::OutOfRange
    );
}

/// The reference: `chunks` (C order, `chunk_shape` each) placed into a `shape` array by hand.
fn reference_read(
    shape: &[usize],
    chunk_shape: &[usize],
    items: &[(Option<Vec<u8>>, Region, Region)],
    fill: u8,
    initial: u8,
) -> Vec<u8> {
    let mut array = vec![initial; shape.iter().product()];
    for (chunk, part, place) in items {
        let positions = |region: &Region, dims: &[usize]| -> Vec<usize> {
            let mut all = vec![0usize];
            for (span, _) in region.spans.iter().zip(dims) {
                all = all
                    .iter()
                    .flat_map(|prefix| (0..span.count).map(move |i| (*prefix, i)))
                    .map(|(prefix, i)| prefix * 1_000_000 + span.start + i * span.step)
                    .collect();
            }
            all
        };
        let flat = |encoded: usize, dims: &[usize]| -> usize {
            let mut rest = encoded;
            let mut index = vec![0; dims.len()];
            for dim in (0..dims.len()).rev() {
                index[dim] = rest % 1_000_000;
                rest /= 1_000_000;
            }
            index
                .iter()
                .zip(dims)
                .fold(0, |acc, (i, len)| acc * len + i)
        };
        for (from, to) in positions(part, chunk_shape)
            .into_iter()
            .zip(positions(place, shape))
        {
            array[flat(to, shape)] = chunk
                .as_ref()
                .map_or(fill, |chunk| chunk[flat(from, chunk_shape)]);
        }
    }
    array
}

/// A 2-D uint8 array of `shape` in chunks of `chunk_shape` (edge chunks partly outside),
/// each chunk's part inside the array read into place.
fn grid(shape: [usize; 2], chunk_shape: [usize; 2]) -> Vec<(Region, Region)> {
    let mut items = Vec::new();
    for row in (0..shape[0]).step_by(chunk_shape[0]) {
        for col in (0..shape[1]).step_by(chunk_shape[1]) {
            let counts = [
                chunk_shape[0].min(shape[0] - row),
                chunk_shape[1].min(shape[1] - col),
            ];
            items.push((
                Region::block(&[0, 0], &counts),
                Region::block(&[row, col], &counts),
            ));
        }
    }
    items
}

#[test]
fn a_read_places_whole_partial_and_missing_chunks_from_memory_and_files() {
    let dir = Scratch::new("read");
    let chunk_shape = [4, 4];
    let chain =
        Chain::new(&[], None, &[zstd()], spec(&chunk_shape, DataType::UInt8)).expect("a chain");
    let shape = [10, 7];
    let places = grid(shape, chunk_shape);
    let chunks: Vec<Vec<u8>> = (0..places.len())
        .map(|k| pattern(16, u8::try_from(k).expect("small")))
        .collect();
    let stored: Vec<Vec<u8>> = chunks
        .iter()
        .map(|c| chain.encode(c).expect("encoded"))
        .collect();
    let paths: Vec<PathBuf> = (0..chunks.len())
        .map(|k| dir.0.join("c").join(k.to_string()))
        .collect();
    let mut jobs: Vec<(&[u8], &std::path::Path)> = chunks
        .iter()
        .map(Vec::as_slice)
        .zip(paths.iter().map(PathBuf::as_path))
        .collect();
    encode_files(chain.encode_plan(), &mut jobs, 2).expect("written");
    std::fs::remove_file(&paths[1]).expect("removed"); // chunk 1 is missing
    let items: Vec<ReadItem<'_>> = places
        .iter()
        .enumerate()
        .map(|(k, (part, place))| ReadItem {
            source: match k % 3 {
                0 => Source::Bytes(&stored[k]),
                1 => Source::File(&paths[k]),
                _ if k == 5 => Source::Missing,
                _ => Source::File(&paths[k]),
            },
            chunk: part.clone(),
            out: place.clone(),
        })
        .collect();
    let mut array = vec![0xEE; 70];
    let out = OutArray::contiguous(&mut array, &shape, 1).expect("an array");
    let found = read_batch(chain.decode_plan(), &chunk_shape, &items, &out, &[9], 2).expect("read");
    let expected_found: Vec<bool> = (0..places.len()).map(|k| k != 1 && k != 5).collect();
    assert_eq!(found, expected_found);
    let reference_items: Vec<_> = places
        .iter()
        .enumerate()
        .map(|(k, (part, place))| {
            let chunk = expected_found[k].then(|| chunks[k].clone());
            (chunk, part.clone(), place.clone())
        })
        .collect();
    assert_eq!(
        array,
        reference_read(&shape, &chunk_shape, &reference_items, 9, 0xEE)
    );
}

#[test]
fn reads_into_arrays_larger_than_the_caches_place_every_row() {
    // Arrays of 32 MiB and more are written with non-temporal stores on every machine (smaller
    // ones from the size of its last-level cache): rows of odd lengths at
    // odd offsets, edge chunks cut short, every chunk decoded on one of two threads.
    let shape = [4099, 8191];
    let chunk_shape = [1000, 1500];
    let value = |row: usize, col: usize| u8::try_from((row * 31 + col * 7 + row / 256) % 251);
    let chain =
        Chain::new(&[], None, &[zstd()], spec(&chunk_shape, DataType::UInt8)).expect("a chain");
    let places = grid(shape, chunk_shape);
    let stored: Vec<Vec<u8>> = places
        .iter()
        .map(|(part, place)| {
            let (rows, cols) = (&place.spans[0], &part.spans[1]);
            let mut chunk = vec![0u8; chunk_shape[0] * chunk_shape[1]];
            for i in 0..rows.count {
                for j in 0..cols.count {
                    chunk[i * chunk_shape[1] + j] =
                        value(rows.start + i, place.spans[1].start + j).expect("small");
                }
            }
            chain.encode(&chunk).expect("encoded")
        })
        .collect();
    let items: Vec<ReadItem<'_>> = places
        .iter()
        .zip(&stored)
        .map(|((part, place), bytes)| ReadItem {
            source: Source::Bytes(bytes),
            chunk: part.clone(),
            out: place.clone(),
        })
        .collect();
    let mut array = vec![0xEE; shape[0] * shape[1]];
    let out = OutArray::contiguous(&mut array, &shape, 1).expect("an array");
    read_batch(chain.decode_plan(), &chunk_shape, &items, &out, &[0], 2).expect("read");
    for (row, elements) in array.chunks_exact(shape[1]).enumerate() {
        for (col, &element) in elements.iter().enumerate() {
            assert_eq!(Ok(element), value(row, col), "element ({row}, {col})");
        }
    }
}

#[test]
fn places_that_share_elements_are_written_in_order() {
    let chain = Chain::new(&[], None, &[], spec(&[2], DataType::UInt8)).expect("a chain");
    let first = [1, 2];
    let second = [3, 4];
    let items = [
        ReadItem {
            source: Source::Bytes(&first),
            chunk: Region::whole(&[2]),
            out: Region::block(&[0], &[2]),
        },
        ReadItem {
            source: Source::Bytes(&second),
            chunk: Region::whole(&[2]),
            out: Region::block(&[1], &[2]),
        },
    ];
    let mut array = vec![0; 3];
    let out = OutArray::contiguous(&mut array, &[3], 1).expect("an array");
    read_batch(chain.decode_plan(), &[2], &items, &out, &[0], 4).expect("read");
    assert_eq!(array, [1, 3, 4]);
}

#[test]
fn regions_outside_their_arrays_are_refused_before_anything_is_written() {
    let chain = Chain::new(&[], None, &[], spec(&[2], DataType::UInt8)).expect("a chain");
    let chunk = [1, 2];
    let cases = [
        (Region::whole(&[2]), Region::block(&[2], &[2])), // past the output's end
        (Region::block(&[1], &[2]), Region::block(&[0], &[2])), // past the chunk's end
        (Region::whole(&[2]), Region::block(&[0], &[1])), // counts differ
        (
            Region {
                spans: vec![Span {
                    start: 0,
                    step: usize::MAX,
                    count: 2,
                }],
            },
            Region::block(&[0], &[2]),
        ), // a step that overflows
    ];
    for (part, place) in cases {
        let mut array = vec![0; 3];
        let out = OutArray::contiguous(&mut array, &[3], 1).expect("an array");
        let items = [ReadItem {
            source: Source::Bytes(&chunk),
            chunk: part,
            out: place,
        }];
        match read_batch(chain.decode_plan(), &[2], &items, &out, &[0], 1) {
            Err(ChunkError::Codec(CodecError::Configuration(_))) => {}
            other => panic!("accepted: {other:?}"),
        }
        assert_eq!(array, [0, 0, 0]);
    }
}

#[test]
fn an_out_array_whose_elements_leave_its_memory_is_refused() {
    let mut memory = vec![0u8; 8];
    let out = OutArray::contiguous(&mut memory, &[3, 3], 1);
    assert!(matches!(out, Err(CodecError::Configuration(_))));
}

#[test]
fn corrupt_chunks_are_codec_errors_and_unreadable_files_io_errors() {
    let dir = Scratch::new("errors");
    let chain = Chain::new(&[], None, &[gzip()], spec(&[4], DataType::UInt8)).expect("a chain");
    let mut array = vec![0; 4];
    let out = OutArray::contiguous(&mut array, &[4], 1).expect("an array");
    let garbage = [1, 2, 3];
    let items = [ReadItem {
        source: Source::Bytes(&garbage),
        chunk: Region::whole(&[4]),
        out: Region::whole(&[4]),
    }];
    let read = read_batch(chain.decode_plan(), &[4], &items, &out, &[0], 1);
    assert!(matches!(
        read,
        Err(ChunkError::Codec(CodecError::Corrupt(_)))
    ));
    // A directory where a chunk's parent should be a directory is a missing chunk, but a
    // file that cannot be opened for another reason is an I/O error with its path.
    let locked = dir.0.join("locked");
    std::fs::write(&locked, b"x").expect("written");
    let items = [ReadItem {
        source: Source::File(&locked.join("under-a-file")),
        chunk: Region::whole(&[4]),
        out: Region::whole(&[4]),
    }];
    let found = read_batch(chain.decode_plan(), &[4], &items, &out, &[5], 1).expect("missing");
    assert_eq!(found, [false]);
    assert_eq!(array, [5; 4]);
}

/// A span of `count` elements from `start` by `step` within `len`, from proptest's choices.
fn span_within(len: usize, start: usize, step: usize, count: usize) -> Span {
    let start = start % len;
    let step = 1 + step % 3;
    let room = (len - 1 - start) / step + 1;
    Span {
        start,
        step,
        count: 1 + count % room,
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Any strided part of a chunk into any place with the same counts, in a C-contiguous
    /// output or a transposed (strided) one, equals the reference copy.
    #[test]
    fn any_part_goes_to_any_place(
        chunk_shape in (1usize..6, 1usize..6),
        picks in proptest::collection::vec(0usize..100, 12),
        transposed in any::<bool>(),
        item in prop::sample::select(vec![1usize, 2, 8]),
    ) {
        let chunk_shape = [chunk_shape.0, chunk_shape.1];
        let a = span_within(chunk_shape[0], picks[0], picks[1], picks[2]);
        let b = span_within(chunk_shape[1], picks[3], picks[4], picks[5]);
        let shape = [7usize, 8];
        let pa = Span { start: picks[6] % (shape[0] - a.count + 1), step: 1, count: a.count };
        let pb = Span { start: picks[7] % (shape[1] - b.count + 1), step: 1, count: b.count };
        let part = Region { spans: vec![a, b] };
        let place = Region { spans: vec![pa, pb] };
        let data_type = match item { 1 => DataType::UInt8, 2 => DataType::UInt16, _ => DataType::UInt64 };
        let chain = Chain::new(&[], Some(Endian::NATIVE), &[zstd()], spec(&chunk_shape, data_type))
            .expect("a chain");
        let chunk = pattern(chunk_shape[0] * chunk_shape[1] * item, u8::try_from(picks[8] % 200).expect("small"));
        let stored = chain.encode(&chunk).expect("encoded");
        let items = [ReadItem { source: Source::Bytes(&stored), chunk: part.clone(), out: place.clone() }];
        let mut array = vec![0xEEu8; shape[0] * shape[1] * item];
        let strides: Vec<isize> = if transposed {
            vec![isize::try_from(item).expect("small"), isize::try_from(item * shape[0]).expect("small")]
        } else {
            vec![isize::try_from(item * shape[1]).expect("small"), isize::try_from(item).expect("small")]
        };
        let len = array.len();
        // SAFETY: `array` is borrowed exclusively for the read, and its layout keeps every
        // element within it (checked by `from_raw` too).
        let out = unsafe { OutArray::from_raw(array.as_mut_ptr(), len, 0, &shape, &strides, item) }
            .expect("an array");
        read_batch(chain.decode_plan(), &chunk_shape, &items, &out, &vec![0; item], 1).expect("read");
        // The reference, element by element (each `item` bytes).
        let mut expected = vec![0xEEu8; array.len()];
        for i in 0..a.count {
            for j in 0..b.count {
                let from = ((a.start + i * a.step) * chunk_shape[1] + b.start + j * b.step) * item;
                let (r, c) = (pa.start + i, pb.start + j);
                let to = if transposed { (c * shape[0] + r) * item } else { (r * shape[1] + c) * item };
                expected[to..to + item].copy_from_slice(&chunk[from..from + item]);
            }
        }
        prop_assert_eq!(array, expected);
    }
}

/// The `shape` array of chunk files under `dir`, read back whole.
fn read_back(
    chain: &Chain,
    dir: &std::path::Path,
    shape: [usize; 2],
    chunk_shape: [usize; 2],
    fill: u8,
) -> (Vec<u8>, Vec<bool>) {
    let places = grid(shape, chunk_shape);
    let paths: Vec<PathBuf> = (0..places.len()).map(|k| dir.join(k.to_string())).collect();
    let items: Vec<ReadItem<'_>> = places
        .iter()
        .zip(&paths)
        .map(|((part, place), path)| ReadItem {
            source: Source::File(path),
            chunk: part.clone(),
            out: place.clone(),
        })
        .collect();
    let mut array = vec![0xEE; shape[0] * shape[1]];
    let out = OutArray::contiguous(&mut array, &shape, 1).expect("an array");
    let found =
        read_batch(chain.decode_plan(), &chunk_shape, &items, &out, &[fill], 2).expect("read");
    (array, found)
}

/// Writes `values` (an array of its region's counts, in `layout` order) at `at` of a `shape`
/// array of `chunk_shape` chunks in `dir`: one item per chunk the region meets.
fn write_region(
    chain: &Chain,
    dir: &std::path::Path,
    shape: [usize; 2],
    chunk_shape: [usize; 2],
    at: [usize; 2],
    values: &InArray<'_>,
    empty: EmptyRule,
) -> Vec<bool> {
    let counts = values.layout().shape().to_vec();
    let places = grid(shape, chunk_shape);
    let paths: Vec<PathBuf> = (0..places.len()).map(|k| dir.join(k.to_string())).collect();
    let mut items = Vec::new();
    for ((_, place), path) in places.iter().zip(&paths) {
        // The chunk's place intersected with the written block.
        let spans: Vec<(usize, usize)> = (0..2)
            .map(|d| {
                let start = place.spans[d].start.max(at[d]);
                let end = (place.spans[d].start + place.spans[d].count).min(at[d] + counts[d]);
                (start, end.saturating_sub(start))
            })
            .collect();
        if spans.iter().any(|&(_, count)| count == 0) {
            continue;
        }
        items.push(WriteItem {
            path,
            chunk: Region::block(
                &[
                    spans[0].0 - place.spans[0].start,
                    spans[1].0 - place.spans[1].start,
                ],
                &[spans[0].1, spans[1].1],
            ),
            values: Region::block(
                &[spans[0].0 - at[0], spans[1].0 - at[1]],
                &[spans[0].1, spans[1].1],
            ),
        });
    }
    write_files(
        chain.encode_plan(),
        chain.decode_plan(),
        &chunk_shape,
        &items,
        values,
        &[0],
        empty,
        2,
    )
    .expect("written")
}

#[test]
fn writes_merge_parts_into_old_chunks_and_skip_empty_ones() {
    let dir = Scratch::new("write");
    let (shape, chunk_shape) = ([10, 7], [4, 4]);
    let chain =
        Chain::new(&[], None, &[zstd()], spec(&chunk_shape, DataType::UInt8)).expect("a chain");
    // The whole array, from contiguous values.
    let whole: Vec<u8> = (0..70)
        .map(|i| u8::try_from(i + 1).expect("small"))
        .collect();
    let values = InArray::contiguous(&whole, &shape, 1).expect("values");
    let stored = write_region(
        &chain,
        &dir.0,
        shape,
        chunk_shape,
        [0, 0],
        &values,
        EmptyRule::SameBytes,
    );
    assert!(stored.iter().all(|&s| s));
    assert_eq!(read_back(&chain, &dir.0, shape, chunk_shape, 0).0, whole);
    // A block across chunks, from a transposed (strided) array: merged with the old chunks.
    let block: Vec<u8> = (0..35)
        .map(|i| 200 + u8::try_from(i).expect("small"))
        .collect();
    // SAFETY: `block` outlives the values, which only read it; its 35 bytes hold a 7 x 5
    // array stored column by column.
    let values =
        unsafe { InArray::from_raw(block.as_ptr(), 35, 0, &[7, 5], &[1, 7], 1) }.expect("values");
    write_region(
        &chain,
        &dir.0,
        shape,
        chunk_shape,
        [2, 1],
        &values,
        EmptyRule::SameBytes,
    );
    let mut expected = whole.clone();
    for r in 0..7 {
        for c in 0..5 {
            expected[(2 + r) * 7 + 1 + c] = block[c * 7 + r];
        }
    }
    assert_eq!(read_back(&chain, &dir.0, shape, chunk_shape, 0).0, expected);
    // Zeros (the fill value) broadcast over the first chunk: it is removed, not stored.
    let zero = [0u8];
    // SAFETY: one byte, read through strides of 0 (a broadcast 4 x 4 array).
    let zeros =
        unsafe { InArray::from_raw(zero.as_ptr(), 1, 0, &[4, 4], &[0, 0], 1) }.expect("values");
    let stored = write_region(
        &chain,
        &dir.0,
        shape,
        chunk_shape,
        [0, 0],
        &zeros,
        EmptyRule::SameBytes,
    );
    assert_eq!(stored, [false]);
    assert!(!dir.0.join("0").exists());
    let (array, found) = read_back(&chain, &dir.0, shape, chunk_shape, 0);
    assert!(!found[0] && found[1..].iter().all(|&f| f));
    for r in 0..4 {
        expected[r * 7..r * 7 + 4].fill(0);
    }
    assert_eq!(array, expected);
    // With every chunk stored, the same zeros are written.
    let stored = write_region(
        &chain,
        &dir.0,
        shape,
        chunk_shape,
        [0, 0],
        &zeros,
        EmptyRule::Never,
    );
    assert_eq!(stored, [true]);
    assert!(dir.0.join("0").exists());
}

#[test]
fn chunks_of_nans_are_empty_under_a_nan_fill_value() {
    let dir = Scratch::new("nan");
    let chain = Chain::new(
        &[],
        Some(Endian::NATIVE),
        &[gzip()],
        spec(&[2], DataType::Float32),
    )
    .expect("a chain");
    let nans: Vec<u8> = [f32::NAN, -f32::NAN]
        .iter()
        .flat_map(|v| v.to_ne_bytes())
        .collect();
    let mixed: Vec<u8> = [f32::NAN, 1.0]
        .iter()
        .flat_map(|v| v.to_ne_bytes())
        .collect();
    let path = dir.0.join("0");
    for (data, stored) in [(&nans, false), (&mixed, true)] {
        let values = InArray::contiguous(data, &[2], 4).expect("values");
        let items = [WriteItem {
            path: &path,
            chunk: Region::whole(&[2]),
            values: Region::whole(&[2]),
        }];
        let fill = f32::NAN.to_ne_bytes();
        let result = write_files(
            chain.encode_plan(),
            chain.decode_plan(),
            &[2],
            &items,
            &values,
            &fill,
            EmptyRule::AllNan,
            1,
        )
        .expect("written");
        assert_eq!(result, [stored]);
        assert_eq!(path.exists(), stored);
    }
}

#[test]
fn a_write_naming_a_chunk_twice_is_refused() {
    let dir = Scratch::new("twice");
    let chain = Chain::new(&[], None, &[], spec(&[2], DataType::UInt8)).expect("a chain");
    let data = [1u8, 2];
    let values = InArray::contiguous(&data, &[2], 1).expect("values");
    let path = dir.0.join("0");
    let item = WriteItem {
        path: &path,
        chunk: Region::whole(&[2]),
        values: Region::whole(&[2]),
    };
    let result = write_files(
        chain.encode_plan(),
        chain.decode_plan(),
        &[2],
        &[item.clone(), item],
        &values,
        &[0],
        EmptyRule::Never,
        1,
    );
    assert!(matches!(
        result,
        Err(ChunkError::Codec(CodecError::Configuration(_)))
    ));
    assert!(!path.exists());
}

#[test]
fn parts_of_chunks_stored_as_is_are_read_from_their_files_alone() {
    let dir = Scratch::new("stored-parts");
    let (shape, chunk_shape) = ([10, 7], [4, 4]);
    let chain = Chain::new(&[], None, &[], spec(&chunk_shape, DataType::UInt8)).expect("a chain");
    let whole: Vec<u8> = (0..70)
        .map(|i| u8::try_from(i + 1).expect("small"))
        .collect();
    let values = InArray::contiguous(&whole, &shape, 1).expect("values");
    write_region(
        &chain,
        &dir.0,
        shape,
        chunk_shape,
        [0, 0],
        &values,
        EmptyRule::Never,
    );
    // One element, and a strided part, of chunk 3 (rows 4-7, columns 4-6).
    let path = dir.0.join("3");
    for (part, expected) in [
        (Region::block(&[1, 2], &[1, 1]), vec![whole[5 * 7 + 6]]),
        (
            Region {
                spans: vec![
                    Span {
                        start: 0,
                        step: 2,
                        count: 2,
                    },
                    Span {
                        start: 0,
                        step: 2,
                        count: 2,
                    },
                ],
            },
            vec![
                whole[4 * 7 + 4],
                whole[4 * 7 + 6],
                whole[6 * 7 + 4],
                whole[6 * 7 + 6],
            ],
        ),
    ] {
        let counts = part.counts();
        let items = [ReadItem {
            source: Source::File(&path),
            chunk: part,
            out: Region::whole(&counts),
        }];
        let mut array = vec![0; expected.len()];
        let out = OutArray::contiguous(&mut array, &counts, 1).expect("an array");
        let found =
            read_batch(chain.decode_plan(), &chunk_shape, &items, &out, &[0], 1).expect("read");
        assert_eq!(found, [true]);
        assert_eq!(array, expected);
    }
    // A file of another size than a chunk's is corrupt, even when the part read is there.
    std::fs::write(&path, [1u8; 20]).expect("written");
    let items = [ReadItem {
        source: Source::File(&path),
        chunk: Region::block(&[0, 0], &[1, 1]),
        out: Region::whole(&[1, 1]),
    }];
    let mut array = vec![0; 1];
    let out = OutArray::contiguous(&mut array, &[1, 1], 1).expect("an array");
    let read = read_batch(chain.decode_plan(), &chunk_shape, &items, &out, &[0], 1);
    assert!(
        matches!(read, Err(ChunkError::Codec(CodecError::Corrupt(_)))),
        "{read:?}"
    );
}

#[test]
fn buffer_writes_merge_with_old_bytes_and_skip_empty_chunks() {
    let chunk_shape = [4];
    let chain =
        Chain::new(&[], None, &[zstd()], spec(&chunk_shape, DataType::UInt8)).expect("a chain");
    let old = chain.encode(&[1, 2, 3, 4]).expect("encoded");
    let values_data = [9u8, 8, 0, 0];
    let values = InArray::contiguous(&values_data, &[4], 1).expect("values");
    let room = chain.encode_plan().room(4).expect("a bound");
    let (mut first, mut second, mut third) = (vec![0; room], vec![0; room], vec![0; room]);
    let mut items = [
        // Two values over the old chunk's middle.
        BufferWriteItem {
            old: Some(&old),
            chunk: Region::block(&[1], &[2]),
            values: Region::block(&[0], &[2]),
            target: Target::Init(&mut first),
        },
        // Part of a chunk with no old bytes: the rest is the fill value (0).
        BufferWriteItem {
            old: None,
            chunk: Region::block(&[3], &[1]),
            values: Region::block(&[1], &[1]),
            target: Target::Init(&mut second),
        },
        // A whole chunk of zeros: not stored.
        BufferWriteItem {
            old: Some(&old),
            chunk: Region::whole(&[4]),
            values: Region::whole(&[4]),
            target: Target::Init(&mut third),
        },
    ];
    let zeros = [0u8; 4];
    let zero_values = InArray::contiguous(&zeros, &[4], 1).expect("values");
    let (head, tail) = items.split_at_mut(2);
    let written = write_buffers(
        chain.encode_plan(),
        chain.decode_plan(),
        &chunk_shape,
        head,
        &values,
        &[0],
        EmptyRule::SameBytes,
        2,
    )
    .expect("written");
    let empty = write_buffers(
        chain.encode_plan(),
        chain.decode_plan(),
        &chunk_shape,
        tail,
        &zero_values,
        &[0],
        EmptyRule::SameBytes,
        1,
    )
    .expect("written");
    assert_eq!(empty, [None]);
    let decode = |bytes: &[u8]| {
        let mut out = vec![0; 4];
        chain.decode_into(bytes, &mut out).expect("decoded");
        out
    };
    let [Some(first_len), Some(second_len)] = written[..] else {
        panic!("not stored: {written:?}")
    };
    assert_eq!(decode(&first[..first_len]), [1, 9, 8, 4]);
    assert_eq!(decode(&second[..second_len]), [0, 0, 0, 8]);
}

#[test]
fn a_shard_index_through_bytes_and_crc32c_is_the_specs_layout() {
    // The spec's example: 2 x 2 inner chunks, `bytes` little-endian then crc32c: 68 bytes.
    let index_spec = spec(&[2, 2, 2], DataType::UInt64);
    let chain = Chain::new(&[], Some(Endian::Little), &[crc32c()], index_spec).expect("a chain");
    assert_eq!(
        ShardIndex::encoded_len(chain.encode_plan(), 4).expect("a size"),
        68
    );
    let index = ShardIndex::new(vec![Some(0..100), None, Some(100..130), Some(130..131)]);
    let stored = index.encode(chain.encode_plan()).expect("encoded");
    assert_eq!(stored.len(), 68);
    assert_eq!(
        &stored[..16],
        [0u64.to_le_bytes(), 100u64.to_le_bytes()].concat()
    );
    assert_eq!(&stored[16..32], [u64::MAX.to_le_bytes(); 2].concat());
    let checksum = zarr_codec_crc32c::checksum(&stored[..64]);
    assert_eq!(stored[64..], checksum.to_le_bytes());
    // A shard of 131 bytes of chunks, the index at either end.
    for location in [IndexLocation::End, IndexLocation::Start] {
        let mut shard = vec![1u8; 131];
        let index = match location {
            IndexLocation::End => {
                shard.extend_from_slice(&stored);
                index.clone()
            }
            IndexLocation::Start => {
                let moved = ShardIndex::new(
                    index
                        .chunks()
                        .iter()
                        .map(|c| c.as_ref().map(|r| r.start + 68..r.end + 68))
                        .collect(),
                );
                let mut start = moved.encode(chain.encode_plan()).expect("encoded");
                start.extend_from_slice(&shard);
                shard = start;
                moved
            }
        };
        let read =
            ShardIndex::of_shard(&shard, chain.decode_plan(), 4, 68, location).expect("read");
        assert_eq!(read, index, "{location:?}");
        // A damaged index fails its checksum.
        let at = if location == IndexLocation::End {
            131 + 3
        } else {
            3
        };
        shard[at] ^= 1;
        let error = ShardIndex::of_shard(&shard, chain.decode_plan(), 4, 68, location)
            .expect_err("damaged");
        assert!(error.to_string().contains("crc32c"), "{error}");
    }
}

#[test]
fn a_bomb_in_an_outer_compressor_fails_without_growing_far() {
    // [zstd, gzip] for 4 KiB chunks: gzip's output feeds zstd, so it cannot honestly be much
    // more than 4 KiB. A gzip stream of 16 MiB of zeros is refused at about 1 MiB of scratch.
    let chain =
        Chain::new(&[], None, &[zstd(), gzip()], spec(&[4096], DataType::UInt8)).expect("a chain");
    let bomb = gzip()
        .encode(&vec![0u8; 16 << 20], chain.spec())
        .expect("encoded");
    let mut out = vec![0u8; 4096];
    let error = chain.decode_into(&bomb, &mut out).expect_err("a bomb");
    assert_eq!(error.kind(), ErrorKind::Corrupt, "{error}");
    assert!(error.to_string().contains("gzip"), "{error}");
    // An honest chunk of the same chain still decodes.
    let chunk = pattern(4096, 3);
    chain
        .decode_into(&chain.encode(&chunk).expect("encoded"), &mut out)
        .expect("decoded");
    assert_eq!(out, chunk);
}

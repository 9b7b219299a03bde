//! `selection::cut` on any input: a valid selection is cut into parts that cover its output
//! exactly once, each inside its chunk; anything else is an error, never a panic.

use proptest::prelude::*;
use zarr_codec_runtime::selection::{Axis, ChunkKeys, cut};
use zarr_codec_runtime::{Region, Span};

/// The indices of `span`.
fn indices(span: Span) -> Vec<usize> {
    (0..span.count)
        .map(|i| span.start + i * span.step)
        .collect()
}

/// Every element (as a coordinate list) of `region`.
fn elements(region: &Region) -> Vec<Vec<usize>> {
    region
        .spans
        .iter()
        .fold(vec![Vec::new()], |prefixes, &span| {
            prefixes
                .iter()
                .flat_map(|prefix| {
                    indices(span).into_iter().map(move |index| {
                        let mut next = prefix.clone();
                        next.push(index);
                        next
                    })
                })
                .collect()
        })
}

/// A dimension of an array (length, chunk length) and a valid selection of it.
fn dimension() -> impl Strategy<Value = (usize, usize, Axis)> {
    (1usize..12, 1usize..6).prop_flat_map(|(len, chunk)| {
        let index = (0..len).prop_map(Axis::Index);
        let span = (0..len, 1usize..5).prop_flat_map(move |(start, step)| {
            let most = (len - start).div_ceil(step);
            (0..=most).prop_map(move |count| Axis::Span(Span { start, step, count }))
        });
        (Just(len), Just(chunk), prop_oneof![index, span])
    })
}

proptest! {
    #[test]
    fn parts_cover_the_output_once(dims in prop::collection::vec(dimension(), 1..4)) {
        let shape: Vec<usize> = dims.iter().map(|d| d.0).collect();
        let chunks: Vec<usize> = dims.iter().map(|d| d.1).collect();
        let selection: Vec<Axis> = dims.iter().map(|d| d.2).collect();
        let parts = cut(&shape, &chunks, &selection).expect("a valid selection");
        let out_shape: Vec<usize> = selection
            .iter()
            .filter_map(|axis| match axis {
                Axis::Span(span) => Some(span.count),
                Axis::Index(_) => None,
            })
            .collect();
        let mut seen = std::collections::HashMap::new();
        for part in &parts {
            part.chunk.check_within(&chunks, "chunk").expect("inside its chunk");
            part.place.check_within(&out_shape, "place").expect("inside the output");
            prop_assert_eq!(part.chunk.len(), part.place.len());
            for element in elements(&part.place) {
                *seen.entry(element).or_insert(0) += 1;
            }
        }
        let expected: usize = out_shape.iter().product();
        prop_assert_eq!(seen.len(), expected);
        prop_assert!(seen.values().all(|&n| n == 1));
        // Keys are those of the parts' coordinates, one chunk once.
        let keys = ChunkKeys::Default { separator: '/' };
        let names: std::collections::HashSet<String> =
            parts.iter().map(|part| keys.key("", &part.coords)).collect();
        prop_assert_eq!(names.len(), parts.len());
    }

    #[test]
    fn any_input_is_a_cut_or_an_error(
        shape in prop::collection::vec(prop_oneof![0usize..8, Just(usize::MAX)], 0..4),
        chunks in prop::collection::vec(prop_oneof![0usize..4, Just(usize::MAX)], 0..4),
        axes in prop::collection::vec(
            prop_oneof![
                any::<usize>().prop_map(Axis::Index),
                (any::<usize>(), any::<usize>(), 0usize..4)
                    .prop_map(|(start, step, count)| Axis::Span(Span { start, step, count })),
            ],
            0..4,
        ),
    ) {
        if let Ok(parts) = cut(&shape, &chunks, &axes) {
            prop_assert!(parts.len() <= zarr_codec_runtime::selection::MAX_PARTS);
        }
    }
}

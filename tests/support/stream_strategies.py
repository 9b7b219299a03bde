"""Hypothesis strategies for the property tests of compressors (gzip, blosc): data with some
structure to compress, and valid encoded streams with a few random edits, which must decode or
raise a ``CodecError``."""

from __future__ import annotations

from collections.abc import Sequence

from hypothesis import strategies as st

EDITS = ("flip", "set", "insert", "delete", "truncate", "append")
SHORT_BYTES = st.binary(min_size=1, max_size=8)


def structured_bytes(
    words: Sequence[bytes], *, max_repeats: int, max_words: int
) -> st.SearchStrategy[bytes]:
    """Any bytes (up to 5000), a piece repeated up to ``max_repeats`` times, or up to
    ``max_words`` of ``words`` joined: repeats compress, so a compressor's match paths run."""
    return st.one_of(
        st.binary(max_size=5000),
        st.builds(
            lambda piece, times: piece * times,
            st.binary(min_size=1, max_size=40),
            st.integers(min_value=1, max_value=max_repeats),
        ),
        st.lists(st.sampled_from(list(words)), max_size=max_words).map(b"".join),
    )


def mutated(
    streams: st.SearchStrategy[bytes],
    appended: st.SearchStrategy[bytes] = SHORT_BYTES,
) -> st.SearchStrategy[bytes]:
    """A stream drawn from ``streams`` with one to four edits: a bit flipped, a byte set, bytes
    inserted or deleted, the stream cut short, or bytes drawn from ``appended`` added."""

    @st.composite
    def edited(draw: st.DrawFn) -> bytes:
        stream = bytearray(draw(streams))
        for _ in range(draw(st.integers(min_value=1, max_value=4))):
            kind = draw(st.sampled_from(EDITS))
            at = draw(st.integers(min_value=0, max_value=max(len(stream) - 1, 0)))
            if kind == "flip" and stream:
                stream[at] ^= 1 << draw(st.integers(min_value=0, max_value=7))
            elif kind == "set" and stream:
                stream[at] = draw(st.integers(min_value=0, max_value=255))
            elif kind == "insert":
                stream[at:at] = draw(SHORT_BYTES)
            elif kind == "delete" and stream:
                del stream[at : at + draw(st.integers(min_value=1, max_value=8))]
            elif kind == "truncate":
                del stream[at:]
            elif kind == "append":
                stream += draw(appended)
        return bytes(stream)

    return edited()

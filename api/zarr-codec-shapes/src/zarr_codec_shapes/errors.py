"""The one error hierarchy of every zarr-codecs package.

Every codec, pure Python or compiled, raises these classes and no others for problems caused
by its configuration or its input. Compiled extensions import them from here (they are never
re-created per extension module), so ``except zarr_codec_shapes.CodecError`` catches errors from
every
codec alike. ``CodecError`` subclasses :class:`ValueError`, so code written against numcodecs'
or zarr-python's ``ValueError`` keeps working.
"""

from __future__ import annotations

__all__ = [
    "BufferTypeError",
    "CodecError",
    "ConfigurationError",
    "CorruptInputError",
    "DeviceError",
    "OutOfRangeError",
    "OutputSizeError",
    "UnknownCodecError",
    "UnsupportedError",
]


class CodecError(ValueError):
    """Base class of every error a codec raises for bad configuration or bad input."""


class ConfigurationError(CodecError):
    """The codec's configuration (JSON or constructor arguments) is invalid."""


class UnknownCodecError(ConfigurationError):
    """No installed codec has the requested name or id."""


class CorruptInputError(CodecError):
    """Encoded input is malformed, truncated, or fails an integrity check."""


class OutOfRangeError(CodecError):
    """A value cannot be represented in the target data type under the codec's rules."""


class OutputSizeError(CodecError):
    """A caller-provided output buffer has the wrong size, or output would exceed a limit."""


class UnsupportedError(CodecError):
    """The codec does not support this data type, layout or feature."""


class BufferTypeError(UnsupportedError, TypeError):
    """The input or output is not a buffer of plain data: it has no buffer at all (a list, a
    string), or it is an object array, whose buffer holds pointers to Python objects rather
    than their data. Also a :class:`TypeError`, the class numcodecs raises for these."""


class DeviceError(BufferTypeError):
    """A buffer is in memory the codec cannot reach: GPU memory (an object with
    ``__cuda_array_interface__`` or a non-CPU ``__dlpack_device__``, as CuPy arrays have) handed
    to a codec that runs on the CPU, or host memory handed to one that runs on the GPU. Copy it
    to the other side first (``cupy.asnumpy`` / ``cupy.asarray``), or use a codec for that
    device (:func:`zarr_codec_shapes.devices.supported_devices` says which devices a codec
    runs on)."""

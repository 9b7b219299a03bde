"""A griffe extension for the API reference: Sphinx roles in docstrings shown as code.

The docstrings are numpy-style and name other objects with Sphinx roles
(:func:`install`, :class:`ChunkSpec`); Markdown would show the role's text literally. They
become inline code (``install``), the name a reader can search the reference for.
"""

from __future__ import annotations

import re
from typing import Any

import griffe

_ROLE = re.compile(r":(?:py:)?(?:mod|class|func|meth|attr|data|exc|obj):`~?([^`]+)`")


class SphinxRolesAsCode(griffe.Extension):
    """Rewrite ``:role:`target``` in every docstring to `` `target` ``."""

    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = _ROLE.sub(r"`\1`", obj.docstring.value)

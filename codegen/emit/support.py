"""Text helpers shared by the render stages."""

from __future__ import annotations

import re

__all__ = ["doc_text"]


def doc_text(text: str) -> str:
    """Mapping text made safe inside a docstring or comment: one line, escaped, no quote runs."""
    text = re.sub(r"[\x00-\x1f\x7f\u2028\u2029\x85]", " ", text)
    return text.replace("\\", "\\\\").replace('"', '\\"')

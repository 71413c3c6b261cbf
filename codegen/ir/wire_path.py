"""Wire paths as mapping files write them: `choices[0].message` -> ("choices", 0, "message").

A leaf module: the IR builder (`ir`), the item-list rows (`emit_items`) and the non-chat kinds
(`task`) all read paths with it.
"""

from __future__ import annotations

import re

__all__ = ["WirePath", "parse_path"]

WirePath = tuple[str | int, ...]

_PATH_TOKEN = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)|\[([0-9]+)\]")


def parse_path(text: str) -> WirePath:
    """`choices[0].message` -> ("choices", 0, "message"); "" -> ()."""
    out: list[str | int] = []
    for name, index in _PATH_TOKEN.findall(text):
        out.append(int(index) if index else name)
    return tuple(out)

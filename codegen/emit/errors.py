"""`error_to_wire`: a ProviderError rendered in the format's own error envelope and status.

The inverse of `error_from_wire`, for a gateway that must answer its client in the client's
format (`wiremap.translate_error`). The mapping's `errors.emit` table says, per category, the
HTTP status and the provider's error type (and code); `errors.emit.body` is the envelope, a JSON
template whose strings `"{message}"`, `"{type}"`, `"{code}"` and `"{status}"` are filled in
(`"{code?}"` leaves the key out when the category has no code). Without an `emit` table the
envelope is built from the `errors.message` / `errors.type` / `errors.code` paths, the status is
the first single status a rule gives the category (400 when none does) and the type is the
category's name.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .lines import Lines
from ..load.schema import ERROR_CATEGORIES

if TYPE_CHECKING:
    from .emitter import Emitter

__all__ = ["emit_error_to_wire", "error_emit_table"]

_SLOTS = {"{message}": "message", "{type}": "type", "{code}": "code", "{code?}": "code?", "{status}": "status"}
# What a category is when no rule gives it a single status (and it has no `emit` row).
_FALLBACK_STATUS = {
    "provider_authentication": 401,
    "provider_invalid_model": 404,
    "provider_invalid_request": 400,
    "provider_invalid_response": 502,
    "provider_model_not_loaded": 503,
    "provider_rate_limit": 429,
    "provider_unavailable": 503,
    "provider_unsupported_content_block": 400,
    "structured_output_invalid": 502,
}


def _path_template(paths: dict[str, tuple[Any, ...]]) -> dict[str, Any]:
    body: dict[str, Any] = {}
    for slot, path in paths.items():
        node = body
        keys = [k for k in path]
        if not keys or any(not isinstance(k, str) for k in keys):
            continue
        for k in keys[:-1]:
            node = node.setdefault(k, {})
            if not isinstance(node, dict):
                break
        else:
            node[keys[-1]] = "{" + slot + ("?}" if slot == "code" else "}")
    return body


def error_emit_table(ir: Any) -> tuple[Any, dict[str, dict[str, Any]]]:
    """(body template, {category: {status, type, code?}}) for a format, explicit or derived."""
    emit = ir.errors.emit
    if emit is not None:
        return emit["body"], {c: dict(emit["categories"][c]) for c in ERROR_CATEGORIES}
    paths = {"message": ir.errors.message}
    if ir.errors.type is not None:
        paths["type"] = ir.errors.type
    if ir.errors.code is not None:
        paths["code"] = ir.errors.code
    table: dict[str, dict[str, Any]] = {}
    for category in ERROR_CATEGORIES:
        status = _FALLBACK_STATUS[category]
        for rule in ir.errors.rules:
            if rule.category == category and rule.statuses and not rule.body_pattern:
                status = rule.statuses[0]
                break
        table[category] = {"status": status, "type": category}
    return _path_template(paths), table


def _build(node: Any) -> str:
    """A Python expression building the envelope; `None` marks a key to leave out."""
    if isinstance(node, str):
        slot = _SLOTS.get(node)
        if slot is None:
            return repr(node)
        return {"message": "message", "type": "row[1]", "code": "row[2]", "code?": "row[2]", "status": "row[0]"}[slot]
    if isinstance(node, dict):
        items = []
        optional = []
        for k, v in node.items():
            if v == "{code?}":
                optional.append(k)
                continue
            items.append(f"{k!r}: {_build(v)}")
        expr = "{" + ", ".join(items) + "}"
        if optional:
            extra = ", ".join(f"**({{{k!r}: row[2]}} if row[2] is not None else {{}})" for k in optional)
            expr = "{" + ", ".join([*items, extra]) + "}"
        return expr
    if isinstance(node, list):
        return "[" + ", ".join(_build(v) for v in node) + "]"
    return repr(node)


def emit_error_to_wire(em: "Emitter") -> None:
    ir = em.ir
    body, table = error_emit_table(ir)
    rows = {c: (r["status"], r["type"], r.get("code")) for c, r in table.items()}
    out = Lines()
    upstream: dict[str, dict[int, tuple[int, str, str | None]]] = {}
    for category, r in table.items():
        for alt in r.get("when_upstream", []):
            for st in alt["statuses"]:
                upstream.setdefault(category, {})[st] = (alt["status"], alt["type"], alt.get("code"))
    em.parts.constants.append("# errors.emit: category -> (status, type, code); by the upstream's own status (when_upstream)")
    em.parts.constants.append(f"ERROR_ROWS: Final[dict[str, tuple[int, str, str | None]]] = {rows!r}")
    em.parts.constants.append(f"ERROR_ROWS_UPSTREAM: Final[dict[str, dict[int, tuple[int, str, str | None]]]] = {upstream!r}")
    out.add("row = _w.error_row(ERROR_ROWS, ERROR_ROWS_UPSTREAM, error)")
    out.add("message = str(error) or type(error).__name__  # `path: message` when the error names a path")
    out.add(f"body: dict[str, Any] = {_build(body)}")
    headers = (ir.errors.emit or {}).get("headers") or {}
    if not headers:
        out.add("return row[0], body, _w.error_headers(error)")
    else:  # errors.emit.headers: the type (code, status) in a header beside the body
        out.add("headers = _w.error_headers(error)")
        for name, value in headers.items():
            if value == "{code?}":
                out.add("if row[2] is not None:")
                out.add(f"    headers[{name!r}] = row[2]")
            else:
                out.add(f"headers[{name!r}] = str({_build(value)})")
        out.add("return row[0], body, headers")
    em.func(
        "error_to_wire",
        "(error: BaseException) -> tuple[int, dict[str, Any], dict[str, str]]",
        f"A ProviderError -> ({ir.title} HTTP status, error body, headers): the inverse of error_from_wire. "
        "Any other exception is answered as provider_invalid_request.",
        out.lines,
    )
    em.parts.public.append("error_to_wire")

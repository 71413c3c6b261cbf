"""Stage 1 (load): find mapping files, resolve `extends:`, validate against the mapping JSON Schema.

A derived file names its base by key (`extends: openai_chat`). Objects merge key by key; any
other value (a list, a string, a template) replaces the base's; `null` removes the inherited key. `fixtures:` are never
inherited: a dialect's behaviour differs, so it states its own. Every merged value remembers the
file and line it came from, so errors point at the file a user must edit.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import jsonschema

from .source import FIXTURES_FOLDER, MappingError, SourceFile, display_path, json_pointer, load_file, load_fixtures
from .schema import MAPPING_SCHEMA, TASK_SCHEMAS, schema_for

__all__ = ["Resolved", "discover", "resolve_all"]


@dataclass
class Resolved:
    key: str
    display: str  # the file that declared this key
    data: dict[str, Any]
    origins: dict[str, tuple[str, int | None]] = field(default_factory=dict)
    #: the wire family (`meta.wire`, else the key at the root of the `extends` chain): carried
    #: wire data (runtime/carry.py) goes back to formats of the same provider and wire only
    wire: str = ""

    def line_of(self, pointer: str) -> int | None:
        return self._origin(pointer)[1]

    def _origin(self, pointer: str) -> tuple[str, int | None]:
        while True:
            if pointer in self.origins:
                return self.origins[pointer]
            if not pointer:
                return (self.display, None)
            pointer = pointer.rsplit("/", 1)[0]

    def error(self, pointer: str, message: str) -> MappingError:
        file, line = self._origin(pointer)
        return MappingError(file, line, pointer, message)


def discover(mappings_dir: str) -> dict[str, SourceFile]:
    """Every `*.yaml` below the folder, keyed by format key.

    `mappings/openai_chat.yaml` is `openai_chat`; `mappings/dialects/prompty/openai_chat.yaml`
    is `prompty.openai_chat`. Files and folders starting with `_` or `.` are skipped.
    `mappings/fixtures/<key>.yaml` holds the fixtures of format `<key>` (codegen/load/source.py).
    """
    if not os.path.isdir(mappings_dir):
        raise MappingError(mappings_dir, None, "", "mappings folder not found")
    base = os.path.dirname(os.path.abspath(mappings_dir))
    found: dict[str, SourceFile] = {}
    for dirpath, dirnames, filenames in os.walk(mappings_dir):
        rel = os.path.relpath(dirpath, mappings_dir)
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(("_", ".")) and not (rel == "." and d == FIXTURES_FOLDER))
        parts = [] if rel == "." else rel.split(os.sep)
        if parts and parts[0] == "dialects":
            parts = parts[1:]
        for name in sorted(filenames):
            if not name.endswith((".yaml", ".yml")) or name.startswith(("_", ".")):
                continue
            path = os.path.join(dirpath, name)
            key = ".".join([*parts, name.rsplit(".", 1)[0]])
            src = load_file(path, display_path(path, base))
            if key in found:
                raise MappingError(src.path, None, "", f"format key {key!r} is declared twice (also {found[key].path})")
            found[key] = src
    _attach_fixtures(found, mappings_dir, base)
    return found


def _attach_fixtures(found: dict[str, SourceFile], mappings_dir: str, base: str) -> None:
    """`mappings/fixtures/<key>.yaml`: the fixtures of the format `<key>`, read into its mapping."""
    folder = os.path.join(mappings_dir, FIXTURES_FOLDER)
    if not os.path.isdir(folder):
        return
    for name in sorted(os.listdir(folder)):
        path = os.path.join(folder, name)
        if not name.endswith((".yaml", ".yml")) or name.startswith(("_", ".")) or not os.path.isfile(path):
            continue
        key = name.rsplit(".", 1)[0]
        shown = display_path(path, base)
        if key not in found:
            raise MappingError(
                shown, None, "",
                f"no mapping declares format {key!r}; a fixtures file is named after its format's key "
                f"(one of: {', '.join(sorted(found))})",
            )
        if found[key].fixtures_path is not None:
            raise MappingError(shown, None, "", f"the fixtures of {key!r} are also in {found[key].fixtures_path}; keep one file")
        load_fixtures(found[key], path, shown)


def _merge(
    base: Any,
    override: Any,
    pointer: str,
    origins: dict[str, tuple[str, int | None]],
    src: SourceFile,
) -> Any:
    if isinstance(base, dict) and isinstance(override, dict):
        out = dict(base)
        for k, v in override.items():
            child = f"{pointer}/{k.replace('~', '~0').replace('/', '~1')}"
            if v is None:
                out.pop(k, None)  # a derived file removes an inherited key with null
                continue
            if k in base:
                out[k] = _merge(base[k], v, child, origins, src)
            else:
                out[k] = v
                _record(v, child, origins, src)
        origins[pointer] = (src.path, src.line_of(pointer))
        return out
    _record(override, pointer, origins, src)
    return override


def _record(value: Any, pointer: str, origins: dict[str, tuple[str, int | None]], src: SourceFile) -> None:
    # Drop stale origins of the replaced subtree, then record the new one's.
    for key in [k for k in origins if k == pointer or k.startswith(pointer + "/")]:
        del origins[key]
    for key, line in src.lines.items():
        if key == pointer or key.startswith(pointer + "/"):
            origins[key] = (src.file_of(key), line)


def resolve_all(sources: dict[str, SourceFile]) -> dict[str, Resolved]:
    resolved: dict[str, Resolved] = {}

    def resolve(key: str, chain: tuple[str, ...]) -> Resolved:
        if key in resolved:
            return resolved[key]
        src = sources[key]
        data = src.data
        parent_key = data.get("extends")
        if parent_key is None:
            origins: dict[str, tuple[str, int | None]] = {k: (src.file_of(k), line) for k, line in src.lines.items()}
            meta = data.get("meta")
            wire = meta.get("wire") if isinstance(meta, dict) else None
            result = Resolved(key, src.path, data, origins, wire if isinstance(wire, str) else key)
        else:
            if not isinstance(parent_key, str):
                raise src.error("/extends", "expected the key of another mapping (a string)")
            if parent_key in chain or parent_key == key:
                raise src.error("/extends", f"circular extends: {' -> '.join((*chain, key, parent_key))}")
            if parent_key not in sources:
                raise src.error(
                    "/extends",
                    f"unknown mapping {parent_key!r}; expected one of: {', '.join(sorted(sources))}",
                )
            parent = resolve(parent_key, (*chain, key))
            # not inherited: a file's own fixtures, its base, and the fused translators it asks for
            base = {k: v for k, v in parent.data.items() if k not in ("fixtures", "extends", "fuse")}
            origins = {  # the annotation above covers this branch too
                k: v
                for k, v in parent.origins.items()
                if not k.startswith("/fixtures") and not k.startswith("/extends") and not k.startswith("/fuse")
            }
            override = {k: v for k, v in data.items() if k != "extends"}
            merged = _merge(base, override, "", origins, src)
            merged["extends"] = parent_key
            origins["/extends"] = (src.path, src.line_of("/extends"))
            own = data.get("meta")
            wire = own.get("wire") if isinstance(own, dict) else None
            result = Resolved(key, src.path, merged, origins, wire if isinstance(wire, str) else parent.wire)
        _validate(result)
        resolved[key] = result
        return result

    for key in sorted(sources):
        resolve(key, ())
    return resolved


_VALIDATOR = jsonschema.Draft202012Validator(MAPPING_SCHEMA)
_TASK_VALIDATORS = {kind: jsonschema.Draft202012Validator(schema) for kind, schema in TASK_SCHEMAS.items()}


def _describe(error: jsonschema.ValidationError) -> str:
    if error.validator == "additionalProperties":
        schema = error.schema if isinstance(error.schema, Mapping) else {}
        allowed = sorted(schema.get("properties", {}))
        extra = sorted(set(error.instance) - set(allowed)) if isinstance(error.instance, dict) else []
        patterns = schema.get("patternProperties", {}) if isinstance(schema, Mapping) else {}
        extra = [k for k in extra if not any(re.search(p, k) for p in patterns)]
        also = "an x- extension"
        if any("url@" in p for p in patterns):  # content_parts: a url kind's row for one URL scheme
            also = "a url kind for one URL scheme, as image.url@s3, or an x- extension"
        return f"unknown key {', '.join(repr(k) for k in extra)}; expected one of: {', '.join(allowed)} (or {also})"
    if error.validator == "required":
        return str(error.message).replace("is a required property", "is required")
    if error.validator == "enum":
        values = error.validator_value if isinstance(error.validator_value, list) else []
        return f"{error.instance!r} is not allowed; expected one of: {', '.join(str(v) for v in values)}"
    if error.validator == "oneOf":
        return f"{error.instance!r} does not fit any allowed form here"
    return error.message


def _validate(result: Resolved) -> None:
    kind = result.data.get("kind", "chat")
    if kind != "chat" and kind not in TASK_SCHEMAS:  # the kind picks the schema: check it first
        known = ", ".join(["chat", *TASK_SCHEMAS])
        raise result.error("/kind", f"{kind!r} is not allowed; expected one of: {known}")
    validator = _TASK_VALIDATORS.get(kind) if schema_for(result.data) is not MAPPING_SCHEMA else _VALIDATOR
    assert validator is not None
    errors = sorted(validator.iter_errors(result.data), key=lambda e: (len(e.absolute_path), list(map(str, e.absolute_path))))
    if not errors:
        return
    best = jsonschema.exceptions.best_match(errors)
    pointer = json_pointer(list(best.absolute_path))
    # additionalProperties errors point at the parent; name the offending key's line instead.
    if best.validator == "additionalProperties" and isinstance(best.instance, dict):
        allowed = set(best.schema.get("properties", {}))
        extra = sorted(k for k in best.instance if k not in allowed and not k.startswith("x-"))
        if extra:
            pointer = pointer + "/" + extra[0]
    raise result.error(pointer, _describe(best))

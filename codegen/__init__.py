"""wiremap's generator: mapping tables in, typed Python converters and their tests out.

    load (strict YAML, file:line) -> resolve (extends) -> validate (JSON Schema) -> IR
      -> render (jinja2, StrictUndefined) -> format (black) -> {path: text} -> write | check

Only this package imports yaml, jinja2, jsonschema (for mapping files) and black.
"""

from __future__ import annotations

from .generate import GENERATED_HEADER, check, generate, write
from .load.source import MappingError

__all__ = ["generate", "write", "check", "MappingError", "GENERATED_HEADER"]

"""Structured output given as a pydantic model: the parsed instance, shared by `Provider`
calls and their streams (`provider`, `provider_stream`). pydantic is imported only here, and
only when a model class was passed.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from .canonical import Response
from .errors import StructuredOutputInvalidError

__all__ = ["output_text", "parsed_model"]


def parsed_model(response: Response, model: type[Any], schema: Any) -> Response:
    """`response` with `parsed` an instance of the pydantic `model` (absent `parsed` -- a tool
    call answer -- stays absent); a value the model refuses is `StructuredOutputInvalidError`."""
    value = response.parsed
    if value is None or type(value).__name__ == "NotGiven":
        return response
    import pydantic

    try:
        response.parsed = model.model_validate(value)
    except pydantic.ValidationError as exc:
        problems: list[Any] = list(exc.errors())
        first: Mapping[str, Any] = problems[0] if problems else {}
        where = "/" + "/".join(str(p) for p in first.get("loc", ()))
        detail = f"{where}: {first.get('msg', str(exc))}"
        raise StructuredOutputInvalidError(
            f"structured output does not validate as {model.__qualname__} at {detail}",
            response_schema=schema,
            output_content=output_text(response.message.content),
            error_message=detail,
            finish_reason=response.finish_reason,
            usage=response.usage,
        ) from exc
    return response


def output_text(content: Any) -> str:
    """The text of a model's output as the reask `assistant` turn carries it (§7.1): a string
    as is, text blocks joined, anything else as compact JSON."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = [b.get("text") if isinstance(b, Mapping) else getattr(b, "text", None) for b in content]
        if texts and all(isinstance(t, str) for t in texts):
            return "".join(t for t in texts if isinstance(t, str))
    if content is None:
        return ""
    to_dict = getattr(content, "to_dict", None)  # a typed canonical record as its dict form
    plain = to_dict() if callable(to_dict) else content
    return json.dumps(plain, ensure_ascii=False, separators=(",", ":"), default=str)

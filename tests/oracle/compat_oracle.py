"""Strict oracle for the OpenAI-compatible family (test-only, like sdk_oracle.py).

Mistral bodies are checked against the official `mistralai` SDK models (request model
`ChatCompletionRequest`, response model `ChatCompletionResponse`, walked strictly by
sdk_oracle's checker: unknown keys rejected at every level, required keys present, literals
checked), and the response is also parsed by the SDK itself. The other family members speak the
OpenAI wire and are checked against the openai SDK types, with the extra keys each provider
documents beside them (`compat_extra_root_keys`).
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from mistralai.client.models import ChatCompletionResponse as MistralResponse
from mistralai.client.models import ChatCompletionRequest as MistralRequest

import sdk_oracle
from mistralai.client.types.basemodel import UnrecognizedStr, Unset
from sdk_oracle import OracleError, _check, _root_dict, _sdk_parse

# mistralai marks every enum open-ended (`Union[Literal[...], UnrecognizedStr]`) and every optional
# field `Union[..., Unset]`: neither is a wire value, so the strict walk accepts neither (an
# unknown finish reason or tool_choice string is an error, as in the API reference).
sdk_oracle._NON_JSON_CLASSES = (*sdk_oracle._NON_JSON_CLASSES, UnrecognizedStr, Unset)

__all__ = ["check_mistral_request", "check_mistral_response", "OracleError"]


def check_mistral_request(body: Any, allow_extra_root_keys: Collection[str] = frozenset()) -> None:
    """A Mistral chat request body against mistralai's ChatCompletionRequest model (its wire
    aliases, e.g. json_schema.schema), strictly and through the SDK's own parser."""
    body = _root_dict(body, "Mistral chat request")
    _check(body, MistralRequest, "", frozenset(allow_extra_root_keys))
    if not allow_extra_root_keys:
        _sdk_parse(MistralRequest, body)


def check_mistral_response(body: Any) -> None:
    """A Mistral chat response body against mistralai's ChatCompletionResponse, strictly and
    through the SDK's own parser."""
    body = _root_dict(body, "Mistral chat response")
    _check(body, MistralResponse, "", frozenset())
    _sdk_parse(MistralResponse, body)


# --- embeddings (mappings/mistral_embeddings.yaml) ------------------------------------------------

from mistralai.client.models import EmbeddingRequest as MistralEmbeddingRequest  # noqa: E402
from mistralai.client.models import EmbeddingResponse as MistralEmbeddingResponse  # noqa: E402

__all__ += ["check_mistral_embeddings_request", "check_mistral_embeddings_response"]


def check_mistral_embeddings_request(body: Any, allow_extra_root_keys: Collection[str] = frozenset()) -> None:
    """A Mistral embeddings request against mistralai's EmbeddingRequest (wire alias `input`),
    strictly and through the SDK's own parser."""
    body = _root_dict(body, "Mistral embeddings request")
    _check(body, MistralEmbeddingRequest, "", frozenset(allow_extra_root_keys))
    if not allow_extra_root_keys:
        _sdk_parse(MistralEmbeddingRequest, body)


def check_mistral_embeddings_response(body: Any) -> None:
    """A Mistral embeddings response against mistralai's EmbeddingResponse (float vectors)."""
    body = _root_dict(body, "Mistral embeddings response")
    _check(body, MistralEmbeddingResponse, "", frozenset())
    _sdk_parse(MistralEmbeddingResponse, body)

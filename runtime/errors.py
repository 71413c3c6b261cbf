"""One error base class, retry facts as attributes (CANONICAL.md "Errors", OpenArmature §7).

Every category has its own class under `ProviderError`. Converters *raise* these for bad input
(a canonical request that breaks a rule, a provider body that cannot be read); `error_from_wire`
*returns* one for an HTTP error so the caller decides whether to raise it.
"""

from __future__ import annotations

from typing import Any, ClassVar, Final

__all__ = [
    "ProviderError",
    "AuthenticationError",
    "UnavailableError",
    "ProviderTimeoutError",
    "InvalidModelError",
    "ModelNotLoadedError",
    "RateLimitError",
    "InvalidResponseError",
    "InvalidRequestError",
    "UnsupportedContentBlockError",
    "StructuredOutputInvalidError",
    "ERROR_CATEGORIES",
    "TRANSIENT_CATEGORIES",
    "error_class",
    "UnsupportedOptionWarning",
]


class ProviderError(Exception):
    """Base of every wiremap provider error.

    `category` is one of the OpenArmature §7 strings; `transient` says whether a retry may
    succeed; `retry_after` is seconds (or None); `path` names where in the input the problem is
    (`messages[3].content[1].text`, `choices[0].message.tool_calls[0].function.arguments`).
    """

    category: ClassVar[str] = "provider_error"
    transient: ClassVar[bool] = False
    # a stream that ended with this error: what was assembled before it (a canonical response
    # dict, finish_reason "error"); None for errors that did not end a stream
    partial: dict[str, Any] | None = None

    def __init__(
        self,
        message: str,
        *,
        path: str | None = None,
        status: int | None = None,
        retry_after: float | None = None,
        body: Any = None,
        provider_type: str | None = None,
    ) -> None:
        self.message = message
        self.path = path
        self.status = status
        self.retry_after = retry_after
        self.body = body
        self.provider_type = provider_type
        super().__init__(f"{path}: {message}" if path else message)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({str(self)!r}, category={self.category!r})"


class AuthenticationError(ProviderError):
    """The provider refused the credentials or their permissions (HTTP 401, 403)."""

    category = "provider_authentication"


class UnavailableError(ProviderError):
    """The provider could not be reached or failed on its side (a transport failure, a 5xx); transient."""

    category = "provider_unavailable"
    transient = True


class ProviderTimeoutError(UnavailableError):
    """A call that did not finish in time: a connect, read, write or pool timeout, or the
    Provider's total deadline for the call (category `provider_unavailable`, transient)."""


class InvalidModelError(ProviderError):
    """The provider does not know the model (a 404 model-not-found, `ready()` on an unknown model)."""

    category = "provider_invalid_model"


class ModelNotLoadedError(ProviderError):
    """The model exists but is not loaded yet (a local server warming up, `ready()`); transient."""

    category = "provider_model_not_loaded"
    transient = True


class RateLimitError(ProviderError):
    """Too many requests or tokens (HTTP 429); transient, `retry_after` from the Retry-After header."""

    category = "provider_rate_limit"
    transient = True


class InvalidResponseError(ProviderError):
    """A provider body that cannot be read as the format's response (not JSON, the wrong shape)."""

    category = "provider_invalid_response"


class InvalidRequestError(ProviderError):
    """A request that breaks a rule, ours before sending or the provider's (HTTP 400); `path` names where."""

    category = "provider_invalid_request"


class UnsupportedContentBlockError(ProviderError):
    """A content part the format or model cannot take (an audio part for a text-only wire)."""

    category = "provider_unsupported_content_block"


class StructuredOutputInvalidError(ProviderError):
    """The content did not parse as JSON or did not validate against `response_schema` (§7)."""

    category = "structured_output_invalid"

    def __init__(
        self,
        message: str,
        *,
        response_schema: Any = None,
        output_content: Any = None,
        error_message: str | None = None,
        finish_reason: str | None = None,
        usage: Any = None,
        path: str | None = None,
        status: int | None = None,
        retry_after: float | None = None,
        body: Any = None,
        provider_type: str | None = None,
    ) -> None:
        # The base's keywords too: error_from_wire builds every category the same way.
        super().__init__(message, path=path, status=status, retry_after=retry_after, body=body, provider_type=provider_type)
        self.response_schema = response_schema
        self.output_content = output_content
        self.error_message = error_message if error_message is not None else message
        self.finish_reason = finish_reason
        self.usage = usage


_CLASSES: Final[dict[str, type[ProviderError]]] = {
    cls.category: cls
    for cls in (
        AuthenticationError,
        UnavailableError,
        InvalidModelError,
        ModelNotLoadedError,
        RateLimitError,
        InvalidResponseError,
        InvalidRequestError,
        UnsupportedContentBlockError,
        StructuredOutputInvalidError,
    )
}

ERROR_CATEGORIES: Final = tuple(sorted(_CLASSES))
TRANSIENT_CATEGORIES: Final = tuple(sorted(c for c, k in _CLASSES.items() if k.transient))


def error_class(category: str) -> type[ProviderError]:
    """The error class of a category string; unknown categories are a programming error."""
    try:
        return _CLASSES[category]
    except KeyError:
        raise ValueError(
            f"unknown error category {category!r}; expected one of: {', '.join(ERROR_CATEGORIES)}"
        ) from None


class UnsupportedOptionWarning(UserWarning):
    """A mapping dropped an option it cannot send (declared `unsupported: warn`)."""

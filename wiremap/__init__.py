"""wiremap: LLM provider wire formats as declarative mapping tables, compiled to Python.

Public API (stable names):

    wiremap.formats()            -> list of registered format keys
    wiremap.get_format(key)      -> Format (request_to_wire, response_from_wire, ...)
    wiremap.Request / Response   -> typed canonical model (from_dict / to_dict)
    wiremap.ProviderError and one subclass per error category
"""

from __future__ import annotations

import os as _os

# In a source checkout the sub-packages (runtime/, codegen/, generated/) sit at the top
# level of the repository, beside this folder; an installed wheel places them inside it.
_here = _os.path.dirname(_os.path.abspath(__file__))
_root = _os.path.dirname(_here)
if not _os.path.isdir(_os.path.join(_here, "runtime")) and _os.path.isfile(
    _os.path.join(_root, "runtime", "__init__.py")
):
    __path__.append(_root)

from typing import TYPE_CHECKING, Any  # noqa: E402

from wiremap import runtime as _runtime  # noqa: E402
from wiremap.runtime import __all__ as _runtime_all  # noqa: E402
from wiremap.registry import fused_translators as _fused_translators, generated_formats as _generated_formats  # noqa: E402
from wiremap.runtime.format import use_generated as _use_generated  # noqa: E402

# The runtime's format registry reads the formats generated in this package from here (it
# imports no generated code itself: tests/test_imports.py).
_use_generated(_generated_formats, _fused_translators)

# Everything the runtime exports eagerly is bound here now; its lazy names (Provider,
# translation, wire rules, the stream engine: wiremap.runtime.LAZY) on first access (PEP 562).
globals().update({_n: getattr(_runtime, _n) for _n in _runtime_all if _n not in _runtime.LAZY_NAMES})

from wiremap.runtime.version import __version__ as __version__  # noqa: E402

#: Dataset conversion for any engine to map (wiremap.convert), imported on first access.
_CONVERT_NAMES = ("BatchTranslator", "batch_translator")

if TYPE_CHECKING:
    # The public names, spelled out so that type checkers see each one typed (mypy reads
    # neither the runtime's computed `__all__` nor a star import of it): `X as X` re-exports.
    # tests/test_packaging.py keeps this list equal to wiremap.runtime.__all__ and type-checks a
    # user script against the installed wheel.
    from wiremap.runtime import (
        NOT_GIVEN as NOT_GIVEN,
        NotGiven as NotGiven,
        UrlSource as UrlSource,
        InlineSource as InlineSource,
        Source as Source,
        TextBlock as TextBlock,
        ThinkingBlock as ThinkingBlock,
        RedactedThinkingBlock as RedactedThinkingBlock,
        ImageBlock as ImageBlock,
        AudioBlock as AudioBlock,
        FileBlock as FileBlock,
        Block as Block,
        ToolCall as ToolCall,
        SystemMessage as SystemMessage,
        UserMessage as UserMessage,
        AssistantMessage as AssistantMessage,
        ToolMessage as ToolMessage,
        Message as Message,
        Tool as Tool,
        ForcedTool as ForcedTool,
        ToolChoice as ToolChoice,
        Config as Config,
        Request as Request,
        Usage as Usage,
        Response as Response,
        FinishReason as FinishReason,
        FINISH_REASONS as FINISH_REASONS,
        message_from_dict as message_from_dict,
        block_from_dict as block_from_dict,
        EmbeddingsResponse as EmbeddingsResponse,
        GeneratedImage as GeneratedImage,
        ImagesResponse as ImagesResponse,
        EMBEDDING_INPUT_TYPES as EMBEDDING_INPUT_TYPES,
        EMBEDDING_ENCODINGS as EMBEDDING_ENCODINGS,
        ProviderError as ProviderError,
        AuthenticationError as AuthenticationError,
        UnavailableError as UnavailableError,
        ProviderTimeoutError as ProviderTimeoutError,
        InvalidModelError as InvalidModelError,
        ModelNotLoadedError as ModelNotLoadedError,
        RateLimitError as RateLimitError,
        InvalidResponseError as InvalidResponseError,
        InvalidRequestError as InvalidRequestError,
        UnsupportedContentBlockError as UnsupportedContentBlockError,
        StructuredOutputInvalidError as StructuredOutputInvalidError,
        ERROR_CATEGORIES as ERROR_CATEGORIES,
        TRANSIENT_CATEGORIES as TRANSIENT_CATEGORIES,
        error_class as error_class,
        UnsupportedOptionWarning as UnsupportedOptionWarning,
        validate_request as validate_request,
        ORDERING as ORDERING,
        CONTENT as CONTENT,
        STRUCTURE as STRUCTURE,
        SORTED_JSON as SORTED_JSON,
        OPENARMATURE as OPENARMATURE,
        API_RULES as API_RULES,
        KEEP_ORDER as KEEP_ORDER,
        EmptyTurnError as EmptyTurnError,
        MAX_JSON_DEPTH as MAX_JSON_DEPTH,
        check_json_value as check_json_value,
        is_plain_json as is_plain_json,
        json_too_deep as json_too_deep,
        check_request_depth as check_request_depth,
        check_response_depth as check_response_depth,
        sorted_json_value as sorted_json_value,
        check_user_content as check_user_content,
        check_system_message as check_system_message,
        check_assistant as check_assistant,
        check_tool_message as check_tool_message,
        check_tools as check_tools,
        check_tool_choice as check_tool_choice,
        check_config as check_config,
        Format as Format,
        UnknownFormatError as UnknownFormatError,
        formats as formats,
        get_format as get_format,
        load_format as load_format,
        Translator as Translator,
        translator as translator,
        Provider as Provider,
        RetryPolicy as RetryPolicy,
        RetryConfig as RetryConfig,
        Loss as Loss,
        Translation as Translation,
        TranslationLossError as TranslationLossError,
        translate_request as translate_request,
        translate_response as translate_response,
        translate_error as translate_error,
        request_losses as request_losses,
        response_losses as response_losses,
        error_translation as error_translation,
        unique_tool_call_ids as unique_tool_call_ids,
        WireChange as WireChange,
        WireMap as WireMap,
        WireRepairWarning as WireRepairWarning,
        StreamAssembler as StreamAssembler,
        StreamEmitter as StreamEmitter,
        StreamParser as StreamParser,
        StreamTranslation as StreamTranslation,
        parse_stream as parse_stream,
        stream_request_to_wire as stream_request_to_wire,
        translate_stream as translate_stream,
    )
    from wiremap.convert import BatchTranslator as BatchTranslator, batch_translator as batch_translator
else:
    __all__ = [*_runtime_all, *_CONVERT_NAMES, "__version__"]


def __getattr__(name: str) -> Any:
    if name in _CONVERT_NAMES:
        from wiremap import convert as _convert

        value = getattr(_convert, name)
        globals()[name] = value
        return value
    if name in _runtime.LAZY_NAMES:
        value = getattr(_runtime, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_runtime.LAZY_NAMES) | set(_CONVERT_NAMES))

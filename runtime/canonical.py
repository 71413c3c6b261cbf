"""The canonical model (../shared/CANONICAL.md): typed records behind the public plain-dict form.

`Request.from_dict(d).to_dict() == d` for every valid `d`; absent keys stay absent, which is why
optional fields default to the `NOT_GIVEN` sentinel rather than `None` (`None` is a value some
fields legitimately carry, e.g. an assistant's `content: null` or a degraded tool call's
`arguments: null`).

Reading the plain-dict form (`from_dict`) is total: any input that is not a canonical dict raises
`InvalidRequestError` whose `path` names the offending key (`messages[3].content[1].text`,
`tools[0].parameters`, `config.max_tokens`) and whose message says what was expected. It checks
shape and types only; the semantic pre-send rules (non-empty text, message ordering, tool-call
correlation, ...) live in `validate.py`.

Two rules about `None` (OpenArmature §5 and §6 treat `None` as "not supplied"):
- where the model allows `None` (assistant `content`, `ToolCall.arguments`, usage counters,
  `Response.parsed`), an explicit `None` is kept and written back;
- on an optional key whose model has no `None` (`tools`, `tool_choice`, `config` and its declared
  fields, `signature`, `media_type`, ...), an explicit `None` means the key is absent, so
  `to_dict` omits it (the §6 null-skip rule). Canonical dicts omit such keys.

Containers the records own (message and block lists, `stop_sequences`, `extras`) are copied;
user JSON Schemas (`parameters`, `response_schema`) and tool-call `arguments` are shared with the
input and treated as immutable by every converter.
"""

from __future__ import annotations

from typing import Any, Callable, Final, Iterable, Literal, TypeVar, Union

from .records import DICT, Record
from .carry import Carried
from .errors import InvalidRequestError, StructuredOutputInvalidError

__all__ = [
    "NOT_GIVEN",
    "NotGiven",
    "UrlSource",
    "InlineSource",
    "Source",
    "TextBlock",
    "ThinkingBlock",
    "RedactedThinkingBlock",
    "ImageBlock",
    "AudioBlock",
    "FileBlock",
    "Block",
    "ToolCall",
    "SystemMessage",
    "UserMessage",
    "AssistantMessage",
    "ToolMessage",
    "Message",
    "Tool",
    "ForcedTool",
    "ToolChoice",
    "Config",
    "Request",
    "Usage",
    "Response",
    "FinishReason",
    "FINISH_REASONS",
    "message_from_dict",
    "block_from_dict",
    "EmbeddingsResponse",
    "GeneratedImage",
    "ImagesResponse",
    "EMBEDDING_INPUT_TYPES",
    "EMBEDDING_ENCODINGS",
]

#: config.input_type: what embeddings are for, the union of the providers' vocabularies
#: (Cohere input_type, Gemini taskType; docs/canonical.md "Embeddings options")
EMBEDDING_INPUT_TYPES = (
    "search_query",
    "search_document",
    "similarity",
    "classification",
    "clustering",
    "question_answering",
    "fact_verification",
    "code_search_query",
)
#: config.encoding_format: how the vectors come back (`base64`: little-endian float32; the
#: integer types are quantized, `binary`/`ubinary` bit-packed eight dimensions to a byte)
EMBEDDING_ENCODINGS = ("float", "base64", "int8", "uint8", "binary", "ubinary")


class NotGiven:
    """Sentinel type for "key absent", distinct from an explicit `None`."""

    __slots__ = ()
    _instance: "NotGiven | None" = None

    def __new__(cls) -> "NotGiven":
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __bool__(self) -> Literal[False]:
        return False

    def __repr__(self) -> str:
        return "NOT_GIVEN"

    def __reduce__(self) -> str:
        return "NOT_GIVEN"


NOT_GIVEN: Final = NotGiven()

FinishReason = Literal["stop", "length", "tool_calls", "content_filter", "error"]
FINISH_REASONS: Final = ("stop", "length", "tool_calls", "content_filter", "error")


class UrlSource(Record):
    """Media given by URL: `{"type": "url", "url": ...}`, the `source` of an image, audio or file block."""

    __slots__ = ("url",)
    __match_args__ = ("url",)

    url: str

    def __init__(self, url: str) -> None:
        self.url = url

    def __eq__(self, other: Any) -> bool:
        if other.__class__ is self.__class__:
            return (self.url,) == (other.url,)
        return NotImplemented

    @classmethod
    def from_dict(cls, d: object, path: str = "") -> "UrlSource":
        source = _located(_source, d, path)
        if not isinstance(source, UrlSource):
            raise InvalidRequestError("expected a 'url' source", path=_join(path, "type"))
        return source

    def to_dict(self) -> dict[str, Any]:
        return {"type": "url", "url": self.url}


class InlineSource(Record):
    """Media given inline: `{"type": "inline", "base64_data": ...}`, the `source` of an image, audio or file block."""

    __slots__ = ("base64_data",)
    __match_args__ = ("base64_data",)

    base64_data: str

    def __init__(self, base64_data: str) -> None:
        self.base64_data = base64_data

    def __eq__(self, other: Any) -> bool:
        if other.__class__ is self.__class__:
            return (self.base64_data,) == (other.base64_data,)
        return NotImplemented

    @classmethod
    def from_dict(cls, d: object, path: str = "") -> "InlineSource":
        source = _located(_source, d, path)
        if not isinstance(source, InlineSource):
            raise InvalidRequestError("expected an 'inline' source", path=_join(path, "type"))
        return source

    def to_dict(self) -> dict[str, Any]:
        return {"type": "inline", "base64_data": self.base64_data}


Source = Union[UrlSource, InlineSource]


class TextBlock(Record):
    """A text part: `{"type": "text", "text": ...}`. `signature` and `origin` (the provider and wire
    family that signed it) go back only to that wire; `cache_control` is a prompt-cache breakpoint."""

    __slots__ = ("text", "signature", "origin", "cache_control")
    __match_args__ = ("text", "signature", "origin", "cache_control")

    text: str
    signature: str | NotGiven
    origin: str | NotGiven
    #: a prompt-cache breakpoint after this block ({"type": "ephemeral", "ttl"?: ...}: Anthropic and
    #: OpenRouter cache_control; docs/canonical.md "Prompt-cache breakpoints")
    cache_control: dict[str, Any] | NotGiven

    def __init__(
        self,
        text: str,
        signature: str | NotGiven = NOT_GIVEN,
        origin: str | NotGiven = NOT_GIVEN,
        cache_control: dict[str, Any] | NotGiven = NOT_GIVEN,
    ) -> None:
        self.text = text
        self.signature = signature
        self.origin = origin
        self.cache_control = cache_control

    def __eq__(self, other: Any) -> bool:
        if other.__class__ is self.__class__:
            return (self.text, self.signature, self.origin, self.cache_control) == (
                other.text,
                other.signature,
                other.origin,
                other.cache_control,
            )
        return NotImplemented

    @classmethod
    def from_dict(cls, d: object, path: str = "") -> "TextBlock":
        return _block_of_kind(cls, "text", d, path)

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"type": "text", "text": self.text}
        if self.signature is not NOT_GIVEN:
            d["signature"] = self.signature
        if self.origin is not NOT_GIVEN:
            d["origin"] = self.origin
        if self.cache_control is not NOT_GIVEN:
            d["cache_control"] = self.cache_control
        return d


class ThinkingBlock(Record):
    """A reasoning part: `{"type": "thinking", "text": ...}`, with the provider's `signature` and
    `origin` where it signs its thinking (sent back only to the same wire)."""

    __slots__ = ("text", "signature", "origin")
    __match_args__ = ("text", "signature", "origin")

    text: str
    signature: str | NotGiven
    origin: str | NotGiven

    def __init__(
        self, text: str, signature: str | NotGiven = NOT_GIVEN, origin: str | NotGiven = NOT_GIVEN
    ) -> None:
        self.text = text
        self.signature = signature
        self.origin = origin

    def __eq__(self, other: Any) -> bool:
        if other.__class__ is self.__class__:
            return (self.text, self.signature, self.origin) == (
                other.text,
                other.signature,
                other.origin,
            )
        return NotImplemented

    @classmethod
    def from_dict(cls, d: object, path: str = "") -> "ThinkingBlock":
        return _block_of_kind(cls, "thinking", d, path)

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"type": "thinking", "text": self.text}
        if self.signature is not NOT_GIVEN:
            d["signature"] = self.signature
        if self.origin is not NOT_GIVEN:
            d["origin"] = self.origin
        return d


class RedactedThinkingBlock(Record):
    """Reasoning the provider returned encrypted: `{"type": "redacted_thinking", "data": ...}`,
    kept verbatim for the same wire (`origin`)."""

    __slots__ = ("data", "origin")
    __match_args__ = ("data", "origin")

    data: str
    origin: str | NotGiven

    def __init__(self, data: str, origin: str | NotGiven = NOT_GIVEN) -> None:
        self.data = data
        self.origin = origin

    def __eq__(self, other: Any) -> bool:
        if other.__class__ is self.__class__:
            return (self.data, self.origin) == (other.data, other.origin)
        return NotImplemented

    @classmethod
    def from_dict(cls, d: object, path: str = "") -> "RedactedThinkingBlock":
        return _block_of_kind(cls, "redacted_thinking", d, path)

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"type": "redacted_thinking", "data": self.data}
        if self.origin is not NOT_GIVEN:
            d["origin"] = self.origin
        return d


class ImageBlock(Record):
    """An image part: `{"type": "image", "source": ...}` with an optional `media_type`, `detail`
    hint and `cache_control` breakpoint."""

    __slots__ = ("source", "media_type", "detail", "cache_control")
    __match_args__ = ("source", "media_type", "detail", "cache_control")

    source: Source
    media_type: str | NotGiven
    detail: Literal["auto", "low", "high"] | NotGiven
    #: a prompt-cache breakpoint after this block ({"type": "ephemeral", "ttl"?: ...}: Anthropic and
    #: OpenRouter cache_control; docs/canonical.md "Prompt-cache breakpoints")
    cache_control: dict[str, Any] | NotGiven

    def __init__(
        self,
        source: Source,
        media_type: str | NotGiven = NOT_GIVEN,
        detail: Literal["auto", "low", "high"] | NotGiven = NOT_GIVEN,
        cache_control: dict[str, Any] | NotGiven = NOT_GIVEN,
    ) -> None:
        self.source = source
        self.media_type = media_type
        self.detail = detail
        self.cache_control = cache_control

    def __eq__(self, other: Any) -> bool:
        if other.__class__ is self.__class__:
            return (self.source, self.media_type, self.detail, self.cache_control) == (
                other.source,
                other.media_type,
                other.detail,
                other.cache_control,
            )
        return NotImplemented

    @classmethod
    def from_dict(cls, d: object, path: str = "") -> "ImageBlock":
        return _block_of_kind(cls, "image", d, path)

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"type": "image", "source": self.source.to_dict()}
        if self.media_type is not NOT_GIVEN:
            d["media_type"] = self.media_type
        if self.detail is not NOT_GIVEN:
            d["detail"] = self.detail
        if self.cache_control is not NOT_GIVEN:
            d["cache_control"] = self.cache_control
        return d


class AudioBlock(Record):
    """An audio part: `{"type": "audio", "source": ..., "media_type": ...}`."""

    __slots__ = ("source", "media_type")
    __match_args__ = ("source", "media_type")

    source: Source
    media_type: str | NotGiven

    def __init__(self, source: Source, media_type: str | NotGiven = NOT_GIVEN) -> None:
        self.source = source
        self.media_type = media_type

    def __eq__(self, other: Any) -> bool:
        if other.__class__ is self.__class__:
            return (self.source, self.media_type) == (other.source, other.media_type)
        return NotImplemented

    @classmethod
    def from_dict(cls, d: object, path: str = "") -> "AudioBlock":
        return _block_of_kind(cls, "audio", d, path)

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"type": "audio", "source": self.source.to_dict()}
        if self.media_type is not NOT_GIVEN:
            d["media_type"] = self.media_type
        return d


class FileBlock(Record):
    """A file part (a PDF, a document): `{"type": "file", "source": ...}` with an optional
    `media_type`, `filename` and `cache_control` breakpoint."""

    __slots__ = ("source", "media_type", "filename", "cache_control")
    __match_args__ = ("source", "media_type", "filename", "cache_control")

    source: Source
    media_type: str | NotGiven
    filename: str | NotGiven
    #: a prompt-cache breakpoint after this block ({"type": "ephemeral", "ttl"?: ...}: Anthropic and
    #: OpenRouter cache_control; docs/canonical.md "Prompt-cache breakpoints")
    cache_control: dict[str, Any] | NotGiven

    def __init__(
        self,
        source: Source,
        media_type: str | NotGiven = NOT_GIVEN,
        filename: str | NotGiven = NOT_GIVEN,
        cache_control: dict[str, Any] | NotGiven = NOT_GIVEN,
    ) -> None:
        self.source = source
        self.media_type = media_type
        self.filename = filename
        self.cache_control = cache_control

    def __eq__(self, other: Any) -> bool:
        if other.__class__ is self.__class__:
            return (self.source, self.media_type, self.filename, self.cache_control) == (
                other.source,
                other.media_type,
                other.filename,
                other.cache_control,
            )
        return NotImplemented

    @classmethod
    def from_dict(cls, d: object, path: str = "") -> "FileBlock":
        return _block_of_kind(cls, "file", d, path)

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"type": "file", "source": self.source.to_dict()}
        if self.media_type is not NOT_GIVEN:
            d["media_type"] = self.media_type
        if self.filename is not NOT_GIVEN:
            d["filename"] = self.filename
        if self.cache_control is not NOT_GIVEN:
            d["cache_control"] = self.cache_control
        return d


Block = Union[TextBlock, ThinkingBlock, RedactedThinkingBlock, ImageBlock, AudioBlock, FileBlock]


class ToolCall(Record):
    """A tool call on an assistant turn: `id`, `name` and `arguments` (a JSON object, or the
    text the model sent when it is not one), with a provider `signature`/`origin` where it has one."""

    __slots__ = ("id", "name", "arguments", "signature", "origin")
    __match_args__ = ("id", "name", "arguments", "signature", "origin")

    id: str
    name: str
    # A mapping, or None when a degraded response carried bytes that are not JSON.
    arguments: dict[str, Any] | None
    signature: str | NotGiven
    origin: str | NotGiven

    def __init__(
        self,
        id: str,
        name: str,
        arguments: dict[str, Any] | None,
        signature: str | NotGiven = NOT_GIVEN,
        origin: str | NotGiven = NOT_GIVEN,
    ) -> None:
        self.id = id
        self.name = name
        self.arguments = arguments
        self.signature = signature
        self.origin = origin

    def __eq__(self, other: Any) -> bool:
        if other.__class__ is self.__class__:
            return (self.id, self.name, self.arguments, self.signature, self.origin) == (
                other.id,
                other.name,
                other.arguments,
                other.signature,
                other.origin,
            )
        return NotImplemented

    @classmethod
    def from_dict(cls, d: object, path: str = "") -> "ToolCall":
        return _located(_tool_call, d, path)

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"id": self.id, "name": self.name, "arguments": self.arguments}
        if self.signature is not NOT_GIVEN:
            d["signature"] = self.signature
        if self.origin is not NOT_GIVEN:
            d["origin"] = self.origin
        return d


class SystemMessage(Record):
    """A system (or developer) message: `{"role": "system", "content": ...}`."""

    __slots__ = ("content", "cache_control", "name", "role")
    __match_args__ = ("content", "cache_control", "name", "role")

    content: str
    #: a prompt-cache breakpoint after this message ({"type": "ephemeral", "ttl"?: ...}: Anthropic and
    #: OpenRouter cache_control; docs/canonical.md "Prompt-cache breakpoints")
    cache_control: dict[str, Any] | NotGiven
    #: the participant's name (OpenAI Chat `name`; docs/canonical.md "The message name")
    name: str | NotGiven
    role: Literal["system"]

    def __init__(
        self,
        content: str,
        cache_control: dict[str, Any] | NotGiven = NOT_GIVEN,
        name: str | NotGiven = NOT_GIVEN,
        role: Literal["system"] = "system",
    ) -> None:
        self.content = content
        self.cache_control = cache_control
        self.name = name
        self.role = role

    def __eq__(self, other: Any) -> bool:
        if other.__class__ is self.__class__:
            return (self.content, self.cache_control, self.name, self.role) == (
                other.content,
                other.cache_control,
                other.name,
                other.role,
            )
        return NotImplemented

    @classmethod
    def from_dict(cls, d: object, path: str = "") -> "SystemMessage":
        return _message_of_role(cls, "system", d, path)

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"role": "system", "content": self.content}
        if self.cache_control is not NOT_GIVEN:
            d["cache_control"] = self.cache_control
        if self.name is not NOT_GIVEN:
            d["name"] = self.name
        return d


class UserMessage(Record):
    """A user message: `{"role": "user", "content": ...}`, a string or a list of blocks."""

    __slots__ = ("content", "name", "role")
    __match_args__ = ("content", "name", "role")

    content: str | list[Block]
    #: the participant's name (OpenAI Chat `name`; docs/canonical.md "The message name")
    name: str | NotGiven
    role: Literal["user"]

    def __init__(
        self,
        content: str | list[Block],
        name: str | NotGiven = NOT_GIVEN,
        role: Literal["user"] = "user",
    ) -> None:
        self.content = content
        self.name = name
        self.role = role

    def __eq__(self, other: Any) -> bool:
        if other.__class__ is self.__class__:
            return (self.content, self.name, self.role) == (other.content, other.name, other.role)
        return NotImplemented

    @classmethod
    def from_dict(cls, d: object, path: str = "") -> "UserMessage":
        return _message_of_role(cls, "user", d, path)

    def to_dict(self) -> dict[str, Any]:
        content = self.content
        d: dict[str, Any] = {
            "role": "user",
            "content": [block.to_dict() for block in content] if isinstance(content, list) else content,
        }
        if self.name is not NOT_GIVEN:
            d["name"] = self.name
        return d


class AssistantMessage(Record):
    """An assistant turn: `content` (a string, blocks, or None) and its `tool_calls`."""

    __slots__ = ("content", "tool_calls", "name", "role")
    __match_args__ = ("content", "tool_calls", "name", "role")

    # str (possibly empty), None, a block list, or NOT_GIVEN (key absent).
    content: str | list[Block] | None | NotGiven
    tool_calls: list[ToolCall] | NotGiven
    #: the participant's name (OpenAI Chat `name`; docs/canonical.md "The message name")
    name: str | NotGiven
    role: Literal["assistant"]

    def __init__(
        self,
        content: str | list[Block] | None | NotGiven = NOT_GIVEN,
        tool_calls: list[ToolCall] | NotGiven = NOT_GIVEN,
        name: str | NotGiven = NOT_GIVEN,
        role: Literal["assistant"] = "assistant",
    ) -> None:
        self.content = content
        self.tool_calls = tool_calls
        self.name = name
        self.role = role

    def __eq__(self, other: Any) -> bool:
        if other.__class__ is self.__class__:
            return (self.content, self.tool_calls, self.name, self.role) == (
                other.content,
                other.tool_calls,
                other.name,
                other.role,
            )
        return NotImplemented

    @classmethod
    def from_dict(cls, d: object, path: str = "") -> "AssistantMessage":
        return _message_of_role(cls, "assistant", d, path)

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"role": "assistant"}
        content = self.content
        if isinstance(content, list):
            d["content"] = [block.to_dict() for block in content]
        elif content is not NOT_GIVEN:
            d["content"] = content
        tool_calls = self.tool_calls
        if isinstance(tool_calls, list):
            d["tool_calls"] = [call.to_dict() for call in tool_calls]
        if self.name is not NOT_GIVEN:
            d["name"] = self.name
        return d


class ToolMessage(Record):
    """A tool result: `{"role": "tool", "tool_call_id": ..., "content": ...}`; `content` is a
    string or text/image/audio/file blocks, `is_error` marks a failed call."""

    __slots__ = ("tool_call_id", "content", "name", "is_error", "cache_control", "role")
    __match_args__ = ("tool_call_id", "content", "name", "is_error", "cache_control", "role")

    tool_call_id: str
    #: the result: text, or parts (text, image, audio, file blocks: an MCP image result, an
    #: Anthropic tool_result with an image; docs/canonical.md "Tool results with parts")
    content: str | list[Block]
    name: str | NotGiven
    #: the tool failed and `content` says why (Anthropic tool_result.is_error; docs/canonical.md)
    is_error: bool | NotGiven
    #: a prompt-cache breakpoint after this result ({"type": "ephemeral", "ttl"?: ...}: Anthropic and
    #: OpenRouter cache_control; docs/canonical.md "Prompt-cache breakpoints")
    cache_control: dict[str, Any] | NotGiven
    role: Literal["tool"]

    def __init__(
        self,
        tool_call_id: str,
        content: str | list[Block],
        name: str | NotGiven = NOT_GIVEN,
        is_error: bool | NotGiven = NOT_GIVEN,
        cache_control: dict[str, Any] | NotGiven = NOT_GIVEN,
        role: Literal["tool"] = "tool",
    ) -> None:
        self.tool_call_id = tool_call_id
        self.content = content
        self.name = name
        self.is_error = is_error
        self.cache_control = cache_control
        self.role = role

    def __eq__(self, other: Any) -> bool:
        if other.__class__ is self.__class__:
            return (
                self.tool_call_id,
                self.content,
                self.name,
                self.is_error,
                self.cache_control,
                self.role,
            ) == (
                other.tool_call_id,
                other.content,
                other.name,
                other.is_error,
                other.cache_control,
                other.role,
            )
        return NotImplemented

    @classmethod
    def from_dict(cls, d: object, path: str = "") -> "ToolMessage":
        return _message_of_role(cls, "tool", d, path)

    def to_dict(self) -> dict[str, Any]:
        content = self.content
        d: dict[str, Any] = {
            "role": "tool",
            "tool_call_id": self.tool_call_id,
            "content": [block.to_dict() for block in content] if isinstance(content, list) else content,
        }
        if self.name is not NOT_GIVEN:
            d["name"] = self.name
        if self.is_error is not NOT_GIVEN:
            d["is_error"] = self.is_error
        if self.cache_control is not NOT_GIVEN:
            d["cache_control"] = self.cache_control
        return d


Message = Union[SystemMessage, UserMessage, AssistantMessage, ToolMessage]


class Tool(Record):
    """A function tool the model may call: `name`, `description`, `parameters` (a JSON Schema),
    optional `strict` and `cache_control`."""

    __slots__ = ("name", "description", "parameters", "strict", "cache_control")
    __match_args__ = ("name", "description", "parameters", "strict", "cache_control")

    name: str
    description: str | NotGiven
    parameters: dict[str, Any] | NotGiven
    strict: bool | NotGiven
    #: a prompt-cache breakpoint after this tool (the tool list up to it) ({"type": "ephemeral", "ttl"?: ...}: Anthropic and
    #: OpenRouter cache_control; docs/canonical.md "Prompt-cache breakpoints")
    cache_control: dict[str, Any] | NotGiven

    def __init__(
        self,
        name: str,
        description: str | NotGiven = NOT_GIVEN,
        parameters: dict[str, Any] | NotGiven = NOT_GIVEN,
        strict: bool | NotGiven = NOT_GIVEN,
        cache_control: dict[str, Any] | NotGiven = NOT_GIVEN,
    ) -> None:
        self.name = name
        self.description = description
        self.parameters = parameters
        self.strict = strict
        self.cache_control = cache_control

    def __eq__(self, other: Any) -> bool:
        if other.__class__ is self.__class__:
            return (self.name, self.description, self.parameters, self.strict, self.cache_control) == (
                other.name,
                other.description,
                other.parameters,
                other.strict,
                other.cache_control,
            )
        return NotImplemented

    @classmethod
    def from_dict(cls, d: object, path: str = "") -> "Tool":
        return _located(_tool, d, path)

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"name": self.name}
        if self.description is not NOT_GIVEN:
            d["description"] = self.description
        if self.parameters is not NOT_GIVEN:
            d["parameters"] = self.parameters
        if self.strict is not NOT_GIVEN:
            d["strict"] = self.strict
        if self.cache_control is not NOT_GIVEN:
            d["cache_control"] = self.cache_control
        return d


class ForcedTool(Record):
    """`tool_choice={"type": "tool", "name": X}`."""

    __slots__ = ("name",)
    __match_args__ = ("name",)

    name: str

    def __init__(self, name: str) -> None:
        self.name = name

    def __eq__(self, other: Any) -> bool:
        if other.__class__ is self.__class__:
            return (self.name,) == (other.name,)
        return NotImplemented

    @classmethod
    def from_dict(cls, d: object, path: str = "") -> "ForcedTool":
        choice = _located(_tool_choice, d, path)
        if not isinstance(choice, ForcedTool):
            raise InvalidRequestError("expected an object {'type': 'tool', 'name': ...}", path=path)
        return choice

    def to_dict(self) -> dict[str, Any]:
        return {"type": "tool", "name": self.name}


ToolChoice = Union[Literal["auto", "required", "none"], ForcedTool]


class Config(Record):
    """The call options (`config` in a canonical request): sampling, limits, reasoning, output
    format and `extras` (wire fields passed through as given). Every field is optional."""

    __slots__ = (
        "temperature",
        "max_tokens",
        "top_p",
        "top_k",
        "seed",
        "stop_sequences",
        "frequency_penalty",
        "presence_penalty",
        "parallel_tool_calls",
        "n",
        "logprobs",
        "top_logprobs",
        "user",
        "reasoning_effort",
        "reasoning_budget",
        "json_mode",
        "schema_name",
        "schema_description",
        "schema_strict",
        "prompt_cache_key",
        "metadata",
        "input_type",
        "dimensions",
        "encoding_format",
        "betas",
        "extras",
    )
    __match_args__ = (
        "temperature",
        "max_tokens",
        "top_p",
        "top_k",
        "seed",
        "stop_sequences",
        "frequency_penalty",
        "presence_penalty",
        "parallel_tool_calls",
        "n",
        "logprobs",
        "top_logprobs",
        "user",
        "reasoning_effort",
        "reasoning_budget",
        "json_mode",
        "schema_name",
        "schema_description",
        "schema_strict",
        "prompt_cache_key",
        "metadata",
        "input_type",
        "dimensions",
        "encoding_format",
        "betas",
        "extras",
    )

    temperature: float | NotGiven
    max_tokens: int | NotGiven
    top_p: float | NotGiven
    top_k: int | NotGiven
    seed: int | NotGiven
    stop_sequences: list[str] | NotGiven
    frequency_penalty: float | NotGiven
    presence_penalty: float | NotGiven
    parallel_tool_calls: bool | NotGiven
    n: int | NotGiven
    logprobs: bool | NotGiven
    top_logprobs: int | NotGiven
    user: str | NotGiven
    reasoning_effort: str | NotGiven
    reasoning_budget: int | NotGiven
    #: the answer is one JSON object, no schema given (OpenAI JSON mode; docs/canonical.md)
    json_mode: bool | NotGiven
    #: the structured output's own name, description and strict flag (OpenAI json_schema)
    schema_name: str | NotGiven
    schema_description: str | NotGiven
    schema_strict: bool | NotGiven
    #: the caller's prompt-cache routing key (OpenAI prompt_cache_key)
    prompt_cache_key: str | NotGiven
    #: the caller's string key-value tags for the call (OpenAI, Responses metadata)
    metadata: dict[str, Any] | NotGiven
    #: embeddings: what the vectors are for (`search_query`, `search_document`, ...; EMBEDDING_INPUT_TYPES)
    input_type: str | NotGiven
    #: embeddings: the vector length asked for (OpenAI `dimensions`, Gemini `outputDimensionality`, ...)
    dimensions: int | NotGiven
    #: embeddings: how the vectors come back (`float`, `base64`, `int8`, ...; EMBEDDING_ENCODINGS)
    encoding_format: str | NotGiven
    #: the provider's beta feature flags for this call (Anthropic `anthropic-beta`; docs/canonical.md "Beta flags")
    betas: list[str] | NotGiven
    extras: dict[str, Any] | NotGiven

    def __init__(
        self,
        temperature: float | NotGiven = NOT_GIVEN,
        max_tokens: int | NotGiven = NOT_GIVEN,
        top_p: float | NotGiven = NOT_GIVEN,
        top_k: int | NotGiven = NOT_GIVEN,
        seed: int | NotGiven = NOT_GIVEN,
        stop_sequences: list[str] | NotGiven = NOT_GIVEN,
        frequency_penalty: float | NotGiven = NOT_GIVEN,
        presence_penalty: float | NotGiven = NOT_GIVEN,
        parallel_tool_calls: bool | NotGiven = NOT_GIVEN,
        n: int | NotGiven = NOT_GIVEN,
        logprobs: bool | NotGiven = NOT_GIVEN,
        top_logprobs: int | NotGiven = NOT_GIVEN,
        user: str | NotGiven = NOT_GIVEN,
        reasoning_effort: str | NotGiven = NOT_GIVEN,
        reasoning_budget: int | NotGiven = NOT_GIVEN,
        json_mode: bool | NotGiven = NOT_GIVEN,
        schema_name: str | NotGiven = NOT_GIVEN,
        schema_description: str | NotGiven = NOT_GIVEN,
        schema_strict: bool | NotGiven = NOT_GIVEN,
        prompt_cache_key: str | NotGiven = NOT_GIVEN,
        metadata: dict[str, Any] | NotGiven = NOT_GIVEN,
        input_type: str | NotGiven = NOT_GIVEN,
        dimensions: int | NotGiven = NOT_GIVEN,
        encoding_format: str | NotGiven = NOT_GIVEN,
        betas: list[str] | NotGiven = NOT_GIVEN,
        extras: dict[str, Any] | NotGiven = NOT_GIVEN,
    ) -> None:
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.top_p = top_p
        self.top_k = top_k
        self.seed = seed
        self.stop_sequences = stop_sequences
        self.frequency_penalty = frequency_penalty
        self.presence_penalty = presence_penalty
        self.parallel_tool_calls = parallel_tool_calls
        self.n = n
        self.logprobs = logprobs
        self.top_logprobs = top_logprobs
        self.user = user
        self.reasoning_effort = reasoning_effort
        self.reasoning_budget = reasoning_budget
        self.json_mode = json_mode
        self.schema_name = schema_name
        self.schema_description = schema_description
        self.schema_strict = schema_strict
        self.prompt_cache_key = prompt_cache_key
        self.metadata = metadata
        self.input_type = input_type
        self.dimensions = dimensions
        self.encoding_format = encoding_format
        self.betas = betas
        self.extras = extras

    def __eq__(self, other: Any) -> bool:
        if other.__class__ is self.__class__:
            return (
                self.temperature,
                self.max_tokens,
                self.top_p,
                self.top_k,
                self.seed,
                self.stop_sequences,
                self.frequency_penalty,
                self.presence_penalty,
                self.parallel_tool_calls,
                self.n,
                self.logprobs,
                self.top_logprobs,
                self.user,
                self.reasoning_effort,
                self.reasoning_budget,
                self.json_mode,
                self.schema_name,
                self.schema_description,
                self.schema_strict,
                self.prompt_cache_key,
                self.metadata,
                self.input_type,
                self.dimensions,
                self.encoding_format,
                self.betas,
                self.extras,
            ) == (
                other.temperature,
                other.max_tokens,
                other.top_p,
                other.top_k,
                other.seed,
                other.stop_sequences,
                other.frequency_penalty,
                other.presence_penalty,
                other.parallel_tool_calls,
                other.n,
                other.logprobs,
                other.top_logprobs,
                other.user,
                other.reasoning_effort,
                other.reasoning_budget,
                other.json_mode,
                other.schema_name,
                other.schema_description,
                other.schema_strict,
                other.prompt_cache_key,
                other.metadata,
                other.input_type,
                other.dimensions,
                other.encoding_format,
                other.betas,
                other.extras,
            )
        return NotImplemented

    @classmethod
    def from_dict(cls, d: object, path: str = "") -> "Config":
        return _located(_config, d, path)

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {}
        if self.temperature is not NOT_GIVEN:
            d["temperature"] = self.temperature
        if self.max_tokens is not NOT_GIVEN:
            d["max_tokens"] = self.max_tokens
        if self.top_p is not NOT_GIVEN:
            d["top_p"] = self.top_p
        if self.top_k is not NOT_GIVEN:
            d["top_k"] = self.top_k
        if self.seed is not NOT_GIVEN:
            d["seed"] = self.seed
        stop_sequences = self.stop_sequences
        if isinstance(stop_sequences, list):
            d["stop_sequences"] = list(stop_sequences)
        if self.frequency_penalty is not NOT_GIVEN:
            d["frequency_penalty"] = self.frequency_penalty
        if self.presence_penalty is not NOT_GIVEN:
            d["presence_penalty"] = self.presence_penalty
        if self.parallel_tool_calls is not NOT_GIVEN:
            d["parallel_tool_calls"] = self.parallel_tool_calls
        if self.n is not NOT_GIVEN:
            d["n"] = self.n
        if self.logprobs is not NOT_GIVEN:
            d["logprobs"] = self.logprobs
        if self.top_logprobs is not NOT_GIVEN:
            d["top_logprobs"] = self.top_logprobs
        if self.user is not NOT_GIVEN:
            d["user"] = self.user
        if self.reasoning_effort is not NOT_GIVEN:
            d["reasoning_effort"] = self.reasoning_effort
        if self.reasoning_budget is not NOT_GIVEN:
            d["reasoning_budget"] = self.reasoning_budget
        if self.json_mode is not NOT_GIVEN:
            d["json_mode"] = self.json_mode
        if self.schema_name is not NOT_GIVEN:
            d["schema_name"] = self.schema_name
        if self.schema_description is not NOT_GIVEN:
            d["schema_description"] = self.schema_description
        if self.schema_strict is not NOT_GIVEN:
            d["schema_strict"] = self.schema_strict
        if self.prompt_cache_key is not NOT_GIVEN:
            d["prompt_cache_key"] = self.prompt_cache_key
        metadata = self.metadata
        if isinstance(metadata, dict):
            d["metadata"] = dict(metadata)
        if self.input_type is not NOT_GIVEN:
            d["input_type"] = self.input_type
        if self.dimensions is not NOT_GIVEN:
            d["dimensions"] = self.dimensions
        if self.encoding_format is not NOT_GIVEN:
            d["encoding_format"] = self.encoding_format
        betas = self.betas
        if isinstance(betas, list):
            d["betas"] = list(betas)
        extras = self.extras
        if isinstance(extras, dict):
            d["extras"] = dict(extras)
        return d


class Request(Record):
    """A canonical request (docs/canonical.md): `model`, `messages`, and the optional `tools`,
    `tool_choice`, `config` and `response_schema`; `carried` holds wire data no table models."""

    __slots__ = ("model", "messages", "tools", "tool_choice", "config", "response_schema", "carried")
    __match_args__ = ("model", "messages", "tools", "tool_choice", "config", "response_schema", "carried")

    model: str
    messages: list[Message]
    tools: list[Tool] | NotGiven
    tool_choice: ToolChoice | NotGiven
    config: Config | NotGiven
    response_schema: dict[str, Any] | NotGiven
    #: wire data the tables do not model, kept for the same provider's wire (runtime/carry.py)
    carried: Carried | None

    def __init__(
        self,
        model: str,
        messages: list[Message],
        tools: list[Tool] | NotGiven = NOT_GIVEN,
        tool_choice: ToolChoice | NotGiven = NOT_GIVEN,
        config: Config | NotGiven = NOT_GIVEN,
        response_schema: dict[str, Any] | NotGiven = NOT_GIVEN,
        carried: Carried | None = None,
    ) -> None:
        self.model = model
        self.messages = messages
        self.tools = tools
        self.tool_choice = tool_choice
        self.config = config
        self.response_schema = response_schema
        self.carried = carried

    def __eq__(self, other: Any) -> bool:
        if other.__class__ is self.__class__:
            return (
                self.model,
                self.messages,
                self.tools,
                self.tool_choice,
                self.config,
                self.response_schema,
                self.carried,
            ) == (
                other.model,
                other.messages,
                other.tools,
                other.tool_choice,
                other.config,
                other.response_schema,
                other.carried,
            )
        return NotImplemented

    @classmethod
    def from_dict(cls, d: object, path: str = "") -> "Request":
        """Read a canonical request dict (CANONICAL.md "Request"); shape and types only.

        The semantic pre-send rules are `validate.validate_request` (OpenArmature §3, §5).

        >>> import wiremap
        >>> d = {"model": "gpt-4o", "messages": [{"role": "user", "content": "Hi"}], "config": {"max_tokens": 50}}
        >>> request = wiremap.Request.from_dict(d)
        >>> request.messages[0].content, request.config.max_tokens
        ('Hi', 50)
        >>> request.to_dict() == d
        True
        >>> wiremap.Request.from_dict({"model": "gpt-4o", "messages": [{"role": "user", "content": 7}]})
        Traceback (most recent call last):
          ...
        wiremap.runtime.errors.InvalidRequestError: messages[0].content: expected a string or an array of content blocks, got integer
        """
        return _located(_request, d, path)

    def to_dict(self) -> dict[str, Any]:
        """The plain canonical dict: absent optional keys stay absent (`from_dict(d).to_dict() == d`)."""
        d: dict[str, Any] = {
            "model": self.model,
            "messages": [message.to_dict() for message in self.messages],
        }
        tools = self.tools
        if isinstance(tools, list):
            d["tools"] = [tool.to_dict() for tool in tools]
        tool_choice = self.tool_choice
        if isinstance(tool_choice, ForcedTool):
            d["tool_choice"] = {"type": "tool", "name": tool_choice.name}
        elif tool_choice is not NOT_GIVEN:
            d["tool_choice"] = tool_choice
        config = self.config
        if isinstance(config, Config):
            d["config"] = config.to_dict()
        if self.response_schema is not NOT_GIVEN:
            d["response_schema"] = self.response_schema
        if self.carried is not None:
            d["carried"] = self.carried.to_dict()
        return d


class Usage(Record):
    """Token counts as the provider reported them; `cached_tokens` and `cache_creation_tokens`
    (prompt-cache reads and writes, counted in `prompt_tokens`) and `reasoning_tokens` (the
    model's reasoning, counted in `completion_tokens`) only where it reports them."""

    __slots__ = (
        "prompt_tokens",
        "completion_tokens",
        "total_tokens",
        "cached_tokens",
        "cache_creation_tokens",
        "reasoning_tokens",
    )
    __match_args__ = (
        "prompt_tokens",
        "completion_tokens",
        "total_tokens",
        "cached_tokens",
        "cache_creation_tokens",
        "reasoning_tokens",
    )

    prompt_tokens: int | None
    completion_tokens: int | None
    total_tokens: int | None
    cached_tokens: int | None | NotGiven
    cache_creation_tokens: int | None | NotGiven
    reasoning_tokens: int | None | NotGiven

    def __init__(
        self,
        prompt_tokens: int | None = None,
        completion_tokens: int | None = None,
        total_tokens: int | None = None,
        cached_tokens: int | None | NotGiven = NOT_GIVEN,
        cache_creation_tokens: int | None | NotGiven = NOT_GIVEN,
        reasoning_tokens: int | None | NotGiven = NOT_GIVEN,
    ) -> None:
        self.prompt_tokens = prompt_tokens
        self.completion_tokens = completion_tokens
        self.total_tokens = total_tokens
        self.cached_tokens = cached_tokens
        self.cache_creation_tokens = cache_creation_tokens
        self.reasoning_tokens = reasoning_tokens

    def __eq__(self, other: Any) -> bool:
        if other.__class__ is self.__class__:
            return (
                self.prompt_tokens,
                self.completion_tokens,
                self.total_tokens,
                self.cached_tokens,
                self.cache_creation_tokens,
                self.reasoning_tokens,
            ) == (
                other.prompt_tokens,
                other.completion_tokens,
                other.total_tokens,
                other.cached_tokens,
                other.cache_creation_tokens,
                other.reasoning_tokens,
            )
        return NotImplemented

    @classmethod
    def from_dict(cls, d: object, path: str = "") -> "Usage":
        return _located(_usage, d, path)

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "total_tokens": self.total_tokens,
        }
        if self.cached_tokens is not NOT_GIVEN:
            d["cached_tokens"] = self.cached_tokens
        if self.cache_creation_tokens is not NOT_GIVEN:
            d["cache_creation_tokens"] = self.cache_creation_tokens
        if self.reasoning_tokens is not NOT_GIVEN:
            d["reasoning_tokens"] = self.reasoning_tokens
        return d


class Response(Record):
    """A canonical chat response: the assistant `message`, its `finish_reason`, `usage`, the wire
    body as received (`raw`) and, with a `response_schema`, the validated `parsed` value."""

    __slots__ = ("message", "finish_reason", "usage", "raw", "parsed", "carried")
    __match_args__ = ("message", "finish_reason", "usage", "raw", "parsed", "carried")

    message: AssistantMessage
    finish_reason: FinishReason
    usage: Usage
    raw: Any
    parsed: Any
    #: wire data the tables do not model, kept for the same provider's wire (runtime/carry.py)
    carried: Carried | None

    def __init__(
        self,
        message: AssistantMessage,
        finish_reason: FinishReason,
        usage: Usage,
        raw: Any = DICT,
        parsed: Any = NOT_GIVEN,
        carried: Carried | None = None,
    ) -> None:
        self.message = message
        self.finish_reason = finish_reason
        self.usage = usage
        self.raw = {} if raw is DICT else raw
        self.parsed = parsed
        self.carried = carried

    def __eq__(self, other: Any) -> bool:
        if other.__class__ is self.__class__:
            return (self.message, self.finish_reason, self.usage, self.raw, self.parsed, self.carried) == (
                other.message,
                other.finish_reason,
                other.usage,
                other.raw,
                other.parsed,
                other.carried,
            )
        return NotImplemented

    @classmethod
    def from_dict(cls, d: object, path: str = "") -> "Response":
        """Read a canonical response dict (CANONICAL.md "Response", OpenArmature §6).

        `message`, `finish_reason` and `usage` are required; `raw` defaults to `{}` when absent
        (`to_dict` always writes it, §6: populated on every return); `parsed` stays absent unless
        given.
        """
        return _located(_response, d, path)

    def to_dict(self) -> dict[str, Any]:
        """The plain canonical dict, `raw` always included (OpenArmature §6).

        >>> import wiremap
        >>> body = {"id": "chatcmpl-1", "object": "chat.completion", "created": 0, "model": "gpt-4o",
        ...         "choices": [{"index": 0, "message": {"role": "assistant", "content": "Hello!"}, "finish_reason": "stop"}],
        ...         "usage": {"prompt_tokens": 9, "completion_tokens": 3, "total_tokens": 12}}
        >>> d = wiremap.get_format("openai_chat").response_from_wire(body).to_dict()
        >>> d["message"], d["finish_reason"], d["usage"]
        ({'role': 'assistant', 'content': 'Hello!'}, 'stop', {'prompt_tokens': 9, 'completion_tokens': 3, 'total_tokens': 12})
        >>> d["raw"] is body
        True
        """
        d: dict[str, Any] = {
            "message": self.message.to_dict(),
            "finish_reason": self.finish_reason,
            "usage": self.usage.to_dict(),
            "raw": self.raw,
        }
        if self.parsed is not NOT_GIVEN:
            d["parsed"] = self.parsed
        if self.carried is not None:
            d["carried"] = self.carried.to_dict()
        return d

    def parsed_as(self, cls: type[_T]) -> _T:
        """`parsed`, typed as `cls` for a type checker: the pydantic model class given as the
        `response_schema` (`r.parsed_as(Person)` is a `Person`), or `dict` for a JSON Schema.

        A response without a parsed value, or with one of another type, is a
        `StructuredOutputInvalidError` that says which, never a silent `Any`.

        >>> from wiremap import AssistantMessage, Response, Usage
        >>> r = Response(AssistantMessage(content='{"a": 1}'), "stop", Usage(), parsed={"a": 1})
        >>> r.parsed_as(dict)["a"]
        1
        >>> r.parsed_as(list)
        Traceback (most recent call last):
        ...
        wiremap.runtime.errors.StructuredOutputInvalidError: the parsed value is a dict, not a list
        """
        if self.parsed is NOT_GIVEN:
            raise StructuredOutputInvalidError("this response has no parsed value: the call gave no response_schema")
        if not isinstance(self.parsed, cls):
            raise StructuredOutputInvalidError(f"the parsed value is a {type(self.parsed).__name__}, not a {cls.__name__}")
        return self.parsed


def message_from_dict(d: object, path: str = "") -> Message:
    """Read one canonical message dict, dispatching on `role` (OpenArmature §3).

    `path` prefixes the error path (`message_from_dict(m, "messages[3]")`).
    """
    return _located(_message, d, path)


def block_from_dict(d: object, path: str = "") -> Block:
    """Read one canonical content-block dict, dispatching on `type` (OpenArmature §3.1)."""
    return _located(_block, d, path)


# ---------------------------------------------------------------------------------------------
# Reading the plain-dict form.
#
# The readers below take no path: they raise `InvalidRequestError` with a path relative to the
# value they read, and each enclosing reader prefixes its own segment on the way out. Building a
# path string therefore costs nothing unless the input is invalid. Unknown keys are found by
# counting: `len(d)` must equal the number of known keys present, and only on a mismatch is the
# dict scanned to name the stranger.

_MISSING: Final = object()  # `dict.get` default, distinct from `None` and `NOT_GIVEN`
_T = TypeVar("_T")
_B = TypeVar(
    "_B", TextBlock, ThinkingBlock, RedactedThinkingBlock, ImageBlock, AudioBlock, FileBlock
)
_M = TypeVar("_M", SystemMessage, UserMessage, AssistantMessage, ToolMessage)

_JSON_TYPE_NAMES: Final[dict[type, str]] = {
    str: "string",
    int: "integer",
    float: "number",
    bool: "boolean",
    list: "array",
    dict: "object",
    type(None): "null",
}


def _json_type(value: object) -> str:
    name = _JSON_TYPE_NAMES.get(type(value))
    if name is not None:
        return name
    for base, base_name in _JSON_TYPE_NAMES.items():
        if isinstance(value, base):
            return base_name
    return type(value).__name__


def _join(prefix: str, path: str) -> str:
    if not path:
        return prefix
    if not prefix:
        return path
    if path[0] == "[":
        return prefix + path
    return f"{prefix}.{path}"


def _under(prefix: str, error: InvalidRequestError) -> InvalidRequestError:
    """The same error, its path nested under `prefix` (`content[1]` + `text`)."""
    return InvalidRequestError(error.message, path=_join(prefix, error.path or ""))


def _located(read: Callable[[object], _T], d: object, path: str) -> _T:
    if not path:
        return read(d)
    try:
        return read(d)
    except InvalidRequestError as error:
        raise _under(path, error) from None


def _expected(key: str, what: str, value: object) -> InvalidRequestError:
    return InvalidRequestError(f"expected {what}, got {_json_type(value)}", path=key)


def _unknown_key(
    d: dict[Any, Any], allowed: tuple[str, ...], hint: str = ""
) -> InvalidRequestError:
    key = next((k for k in d if k not in allowed), None)
    if key is None:  # unreachable while the key counts are right; never let it pass silently
        return InvalidRequestError(f"unexpected keys; allowed keys: {', '.join(allowed)}", path="")
    return InvalidRequestError(
        f"unknown key {key!r}{_did_you_mean(key, allowed)}; allowed keys: {', '.join(allowed)}{hint}",
        path=key if isinstance(key, str) else "",
    )


def _did_you_mean(key: object, choices: Iterable[str]) -> str:
    """` (did you mean 'max_tokens'?)` for a near miss (`max_token`), else ''."""
    if not isinstance(key, str):
        return ""
    import difflib  # only on the way to an error

    close = difflib.get_close_matches(key, list(choices), n=1, cutoff=0.75)
    return f" (did you mean {close[0]!r}?)" if close else ""


def _required(
    d: dict[Any, Any], key: str, value: object, what: str, allowed: tuple[str, ...]
) -> InvalidRequestError:
    """The error for a required key that is missing (`value is _MISSING`) or of the wrong type."""
    if value is not _MISSING:
        return _expected(key, what, value)
    unknown = [k for k in d if k not in allowed]
    found = f" (found unknown key {unknown[0]!r})" if unknown else ""
    return InvalidRequestError(f"required key is missing; expected {what}{found}", path=key)


def _optional_str(d: dict[Any, Any], key: str) -> str | NotGiven:
    value = d.get(key)
    if value is None:  # absent, or null meaning absent
        return NOT_GIVEN
    if isinstance(value, str):
        return value
    raise _expected(key, "a string", value)


def _cache_control(d: dict[Any, Any]) -> dict[str, Any] | NotGiven:
    """A prompt-cache breakpoint: an object with a string `type` (its other keys, `ttl`, as given)."""
    value = d.get("cache_control")
    if value is None:
        return NOT_GIVEN
    if not isinstance(value, dict):
        raise _expected("cache_control", "an object such as {'type': 'ephemeral'}", value)
    kind = value.get("type", _MISSING)
    if not isinstance(kind, str):
        raise _under("cache_control", _required(value, "type", kind, "a string", ("type", "ttl")))
    return value


# --- sources and blocks (OpenArmature §3.1) ---------------------------------------------------

_URL_SOURCE_KEYS: Final = ("type", "url")
_INLINE_SOURCE_KEYS: Final = ("type", "base64_data")


def _source(d: object) -> Source:
    if not isinstance(d, dict):
        raise _expected("", "a source object {'type': 'url' | 'inline', ...}", d)
    kind = d.get("type", _MISSING)
    if kind == "url":
        url = d.get("url", _MISSING)
        if not isinstance(url, str):
            raise _required(d, "url", url, "a string", _URL_SOURCE_KEYS)
        if len(d) != 2:
            raise _unknown_key(d, _URL_SOURCE_KEYS)
        return UrlSource(url)
    if kind == "inline":
        data = d.get("base64_data", _MISSING)
        if not isinstance(data, str):
            raise _required(d, "base64_data", data, "a string", _INLINE_SOURCE_KEYS)
        if len(d) != 2:
            raise _unknown_key(d, _INLINE_SOURCE_KEYS)
        return InlineSource(data)
    if kind is _MISSING:
        raise InvalidRequestError(
            "required key is missing; expected 'url' or 'inline'", path="type"
        )
    if isinstance(kind, str):
        raise InvalidRequestError(
            f"unknown source type {kind!r}; expected 'url' or 'inline'", path="type"
        )
    raise _expected("type", "'url' or 'inline'", kind)


_TEXT_KEYS: Final = ("type", "text", "signature", "origin", "cache_control")
_REDACTED_KEYS: Final = ("type", "data", "origin")
_IMAGE_KEYS: Final = ("type", "source", "media_type", "detail", "cache_control")
_AUDIO_KEYS: Final = ("type", "source", "media_type")
_FILE_KEYS: Final = ("type", "source", "media_type", "filename", "cache_control")
_DETAILS: Final[dict[str, Literal["auto", "low", "high"]]] = {
    "auto": "auto",
    "low": "low",
    "high": "high",
}


def _text_block(d: dict[Any, Any]) -> TextBlock:
    text = d.get("text", _MISSING)
    if not isinstance(text, str):
        raise _required(d, "text", text, "a string", _TEXT_KEYS)
    if len(d) == 2:
        return TextBlock(text)
    signature = _optional_str(d, "signature")
    origin = _optional_str(d, "origin")
    cache_control = _cache_control(d)
    if len(d) != 2 + ("signature" in d) + ("origin" in d) + ("cache_control" in d):
        raise _unknown_key(d, _TEXT_KEYS)
    return TextBlock(text, signature, origin, cache_control)


def _thinking_block(d: dict[Any, Any]) -> ThinkingBlock:
    text = d.get("text", _MISSING)
    if not isinstance(text, str):
        raise _required(d, "text", text, "a string", _TEXT_KEYS)
    if len(d) == 2:
        return ThinkingBlock(text)
    signature = _optional_str(d, "signature")
    origin = _optional_str(d, "origin")
    if len(d) != 2 + ("signature" in d) + ("origin" in d):
        raise _unknown_key(d, _TEXT_KEYS)
    return ThinkingBlock(text, signature, origin)


def _redacted_thinking_block(d: dict[Any, Any]) -> RedactedThinkingBlock:
    data = d.get("data", _MISSING)
    if not isinstance(data, str):
        raise _required(d, "data", data, "a string", _REDACTED_KEYS)
    if len(d) == 2:
        return RedactedThinkingBlock(data)
    origin = _optional_str(d, "origin")
    if len(d) != 2 + ("origin" in d):
        raise _unknown_key(d, _REDACTED_KEYS)
    return RedactedThinkingBlock(data, origin)


def _block_source(d: dict[Any, Any], allowed: tuple[str, ...]) -> Source:
    value = d.get("source", _MISSING)
    if value is _MISSING:
        raise _required(d, "source", value, "a source object", allowed)
    try:
        return _source(value)
    except InvalidRequestError as error:
        raise _under("source", error) from None


def _image_block(d: dict[Any, Any]) -> ImageBlock:
    source = _block_source(d, _IMAGE_KEYS)
    if len(d) == 2:
        return ImageBlock(source)
    media_type = _optional_str(d, "media_type")
    detail_value = d.get("detail")
    detail: Literal["auto", "low", "high"] | NotGiven = NOT_GIVEN
    if detail_value is not None:
        found = _DETAILS.get(detail_value) if isinstance(detail_value, str) else None
        if found is None:
            raise InvalidRequestError(
                f"expected 'auto', 'low' or 'high' (the image detail levels), got {detail_value!r}",
                path="detail",
            )
        detail = found
    cache_control = _cache_control(d)
    if len(d) != 2 + ("media_type" in d) + ("detail" in d) + ("cache_control" in d):
        raise _unknown_key(d, _IMAGE_KEYS)
    return ImageBlock(source, media_type, detail, cache_control)


def _audio_block(d: dict[Any, Any]) -> AudioBlock:
    source = _block_source(d, _AUDIO_KEYS)
    if len(d) == 2:
        return AudioBlock(source)
    media_type = _optional_str(d, "media_type")
    if len(d) != 2 + ("media_type" in d):
        raise _unknown_key(d, _AUDIO_KEYS)
    return AudioBlock(source, media_type)


def _file_block(d: dict[Any, Any]) -> FileBlock:
    source = _block_source(d, _FILE_KEYS)
    if len(d) == 2:
        return FileBlock(source)
    media_type = _optional_str(d, "media_type")
    filename = _optional_str(d, "filename")
    cache_control = _cache_control(d)
    if len(d) != 2 + ("media_type" in d) + ("filename" in d) + ("cache_control" in d):
        raise _unknown_key(d, _FILE_KEYS)
    return FileBlock(source, media_type, filename, cache_control)


_BLOCK_READERS: Final[dict[str, Callable[[dict[Any, Any]], Block]]] = {
    "text": _text_block,
    "thinking": _thinking_block,
    "redacted_thinking": _redacted_thinking_block,
    "image": _image_block,
    "audio": _audio_block,
    "file": _file_block,
}


def _discriminated(d: object, key: str, readers: dict[str, Callable[[dict[Any, Any]], _T]], what: str) -> _T:
    """Read a record discriminated by `key` (a block's `type`, a message's `role`)."""
    if not isinstance(d, dict):
        raise _expected("", f"a {what} object", d)
    tag = d.get(key, _MISSING)
    read = readers.get(tag) if isinstance(tag, str) else None
    if read is not None:
        return read(d)
    known = ", ".join(readers)
    if tag is _MISSING:
        raise InvalidRequestError(f"required key is missing; expected one of: {known}", path=key)
    if isinstance(tag, str):
        label = "block type" if key == "type" else key
        raise InvalidRequestError(f"unknown {label} {tag!r}; expected one of: {known}", path=key)
    raise _expected(key, f"one of: {known}", tag)


def _block(d: object) -> Block:
    return _discriminated(d, "type", _BLOCK_READERS, "content block")


def _blocks(items: list[Any]) -> list[Block]:
    blocks: list[Block] = []
    append = blocks.append
    try:
        for item in items:
            append(_block(item))
    except InvalidRequestError as error:
        raise _under(f"content[{len(blocks)}]", error) from None
    return blocks


def _block_of_kind(cls: type[_B], kind: str, d: object, path: str) -> _B:
    block = _located(_block, d, path)
    if not isinstance(block, cls):
        raise InvalidRequestError(
            f"expected a {kind!r} block, got {block.to_dict()['type']!r}",
            path=_join(path, "type"),
        )
    return block


# --- tool calls and messages (OpenArmature §3) ----------------------------------------------

_TOOL_CALL_KEYS: Final = ("id", "name", "arguments", "signature", "origin")


def _arguments(value: object, d: dict[Any, Any]) -> dict[str, Any] | None:
    if value is None:
        return None
    if isinstance(value, dict):
        for key in value:
            if not isinstance(key, str):
                raise InvalidRequestError(
                    f"argument names must be strings, got {_json_type(key)} {key!r}",
                    path="arguments",
                )
        return value
    raise _required(d, "arguments", value, "an object or null", _TOOL_CALL_KEYS)


def _tool_call(d: object) -> ToolCall:
    if not isinstance(d, dict):
        raise _expected("", "a tool call object", d)
    call_id = d.get("id", _MISSING)
    if not isinstance(call_id, str):
        raise _required(d, "id", call_id, "a string", _TOOL_CALL_KEYS)
    name = d.get("name", _MISSING)
    if not isinstance(name, str):
        raise _required(d, "name", name, "a string", _TOOL_CALL_KEYS)
    arguments = _arguments(d.get("arguments", _MISSING), d)
    if len(d) == 3:
        return ToolCall(call_id, name, arguments)
    signature = _optional_str(d, "signature")
    origin = _optional_str(d, "origin")
    if len(d) != 3 + ("signature" in d) + ("origin" in d):
        raise _unknown_key(d, _TOOL_CALL_KEYS)
    return ToolCall(call_id, name, arguments, signature, origin)


def _tool_calls(items: object, d: dict[Any, Any]) -> list[ToolCall]:
    if not isinstance(items, list):
        raise _expected("tool_calls", "an array of tool calls", items)
    calls: list[ToolCall] = []
    append = calls.append
    try:
        for item in items:
            append(_tool_call(item))
    except InvalidRequestError as error:
        raise _under(f"tool_calls[{len(calls)}]", error) from None
    return calls


_SYSTEM_KEYS: Final = ("role", "content", "cache_control", "name")
_USER_KEYS: Final = ("role", "content", "name")
_ASSISTANT_KEYS: Final = ("role", "content", "tool_calls", "name")
_TOOL_MESSAGE_KEYS: Final = ("role", "tool_call_id", "content", "name", "is_error", "cache_control")


def _system_message(d: dict[Any, Any]) -> SystemMessage:
    content = d.get("content", _MISSING)
    if not isinstance(content, str):
        raise _required(
            d, "content", content, "a string (system content is text-only)", _SYSTEM_KEYS
        )
    if len(d) == 2:
        return SystemMessage(content)
    cache_control = _cache_control(d)
    name = _optional_str(d, "name")
    if len(d) != 2 + ("cache_control" in d) + ("name" in d):
        raise _unknown_key(d, _SYSTEM_KEYS)
    return SystemMessage(content, cache_control, name)


def _user_message(d: dict[Any, Any]) -> UserMessage:
    content = d.get("content", _MISSING)
    if isinstance(content, list):
        content = _blocks(content)
    elif not isinstance(content, str):
        raise _required(d, "content", content, "a string or an array of content blocks", _USER_KEYS)
    if len(d) == 2:
        return UserMessage(content)
    name = _optional_str(d, "name")
    if len(d) != 2 + ("name" in d):
        raise _unknown_key(d, _USER_KEYS)
    return UserMessage(content, name)


def _assistant_message(d: dict[Any, Any]) -> AssistantMessage:
    keys = 1
    content = d.get("content", _MISSING)
    if isinstance(content, str) or content is None:
        keys += 1
    elif isinstance(content, list):
        content = _blocks(content)
        keys += 1
    elif content is _MISSING:
        content = NOT_GIVEN
    else:
        raise _expected("content", "a string, null or an array of content blocks", content)
    tool_calls: list[ToolCall] | NotGiven = NOT_GIVEN
    name: str | NotGiven = NOT_GIVEN
    if len(d) != keys:
        name = _optional_str(d, "name")
        keys += "name" in d
        value = d.get("tool_calls", _MISSING)
        if value is None:
            keys += 1
        elif value is not _MISSING:
            tool_calls = _tool_calls(value, d)
            keys += 1
        if len(d) != keys:
            raise _unknown_key(d, _ASSISTANT_KEYS)
    return AssistantMessage(content, tool_calls, name)


def _tool_message(d: dict[Any, Any]) -> ToolMessage:
    tool_call_id = d.get("tool_call_id", _MISSING)
    if not isinstance(tool_call_id, str):
        raise _required(d, "tool_call_id", tool_call_id, "a string", _TOOL_MESSAGE_KEYS)
    content = d.get("content", _MISSING)
    if isinstance(content, list):
        content = _blocks(content)
    elif not isinstance(content, str):
        raise _required(
            d,
            "content",
            content,
            "a string or an array of content blocks (text, image, audio, file)",
            _TOOL_MESSAGE_KEYS,
        )
    if len(d) == 3:
        return ToolMessage(tool_call_id, content)
    name = _optional_str(d, "name")
    is_error: bool | NotGiven = NOT_GIVEN
    flag = d.get("is_error")
    if flag is not None:
        if not isinstance(flag, bool):
            raise _expected("is_error", "a boolean", flag)
        is_error = flag
    cache_control = _cache_control(d)
    if len(d) != 3 + ("name" in d) + ("is_error" in d) + ("cache_control" in d):
        raise _unknown_key(d, _TOOL_MESSAGE_KEYS)
    return ToolMessage(tool_call_id, content, name, is_error, cache_control)


_MESSAGE_READERS: Final[dict[str, Callable[[dict[Any, Any]], Message]]] = {
    "system": _system_message,
    "user": _user_message,
    "assistant": _assistant_message,
    "tool": _tool_message,
}


def _message(d: object) -> Message:
    return _discriminated(d, "role", _MESSAGE_READERS, "message")


def _message_of_role(cls: type[_M], role: str, d: object, path: str) -> _M:
    message = _located(_message, d, path)
    if not isinstance(message, cls):
        raise InvalidRequestError(
            f"expected role {role!r}, got {message.role!r}", path=_join(path, "role")
        )
    return message


# --- tools, tool_choice, config, request (OpenArmature §4, §5, §6) ----------------------------

_TOOL_KEYS: Final = ("name", "description", "parameters", "strict", "cache_control")


def _tool(d: object) -> Tool:
    if not isinstance(d, dict):
        raise _expected("", "a tool object", d)
    name = d.get("name", _MISSING)
    if not isinstance(name, str):
        raise _required(d, "name", name, "a string", _TOOL_KEYS)
    if len(d) == 1:
        return Tool(name)
    description = _optional_str(d, "description")
    parameters = d.get("parameters")
    if parameters is None:
        parameters = NOT_GIVEN
    elif not isinstance(parameters, dict):
        raise _expected("parameters", "a JSON Schema object", parameters)
    strict = d.get("strict")
    if strict is None:
        strict = NOT_GIVEN
    elif not isinstance(strict, bool):
        raise _expected("strict", "a boolean", strict)
    cache_control = _cache_control(d)
    if len(d) != 1 + ("description" in d) + ("parameters" in d) + ("strict" in d) + ("cache_control" in d):
        raise _unknown_key(d, _TOOL_KEYS)
    return Tool(name, description, parameters, strict, cache_control)


_TOOL_CHOICE_MODES: Final[dict[str, Literal["auto", "required", "none"]]] = {
    "auto": "auto",
    "required": "required",
    "none": "none",
}
_FORCED_TOOL_KEYS: Final = ("type", "name")
_TOOL_CHOICE_EXPECTED: Final = "'auto', 'required', 'none' or {'type': 'tool', 'name': ...}"


def _tool_choice(value: object) -> ToolChoice:
    if isinstance(value, str):
        mode = _TOOL_CHOICE_MODES.get(value)
        if mode is None:
            raise InvalidRequestError(f"expected {_TOOL_CHOICE_EXPECTED}, got {value!r}", path="")
        return mode
    if isinstance(value, dict):
        kind = value.get("type", _MISSING)
        if kind != "tool":
            if kind is _MISSING:
                raise InvalidRequestError("required key is missing; expected 'tool'", path="type")
            raise InvalidRequestError(f"expected 'tool', got {kind!r}", path="type")
        name = value.get("name", _MISSING)
        if not isinstance(name, str):
            raise _required(value, "name", name, "a string", _FORCED_TOOL_KEYS)
        if len(value) != 2:
            raise _unknown_key(value, _FORCED_TOOL_KEYS)
        return ForcedTool(name)
    raise _expected("", _TOOL_CHOICE_EXPECTED, value)


_CONFIG_KEYS: Final = (
    "temperature",
    "max_tokens",
    "top_p",
    "top_k",
    "seed",
    "stop_sequences",
    "frequency_penalty",
    "presence_penalty",
    "parallel_tool_calls",
    "n",
    "logprobs",
    "top_logprobs",
    "user",
    "reasoning_effort",
    "reasoning_budget",
    "json_mode",
    "schema_name",
    "schema_description",
    "schema_strict",
    "prompt_cache_key",
    "metadata",
    "input_type",
    "dimensions",
    "encoding_format",
    "betas",
    "extras",
)
_CONFIG_NUMBERS: Final = frozenset(
    ("temperature", "top_p", "frequency_penalty", "presence_penalty")
)
_CONFIG_INTEGERS: Final = frozenset(("max_tokens", "top_k", "seed", "n", "top_logprobs", "reasoning_budget", "dimensions"))
_CONFIG_BOOLEANS: Final = frozenset(("parallel_tool_calls", "logprobs", "json_mode", "schema_strict"))
_CONFIG_STRINGS: Final = frozenset(("user", "reasoning_effort", "schema_name", "schema_description", "prompt_cache_key", "input_type", "encoding_format"))
_CONFIG_HINT: Final = " (a provider's own request fields go under config.extras)"


def _config(d: object) -> Config:
    if not isinstance(d, dict):
        raise _expected("", "a config object", d)
    fields: dict[str, Any] = {}
    for key, value in d.items():
        if value is None:  # OpenArmature §6 null-skip: a declared field set to None is unset
            if key not in _CONFIG_KEYS:
                raise _unknown_key({key: value}, _CONFIG_KEYS, _CONFIG_HINT)
            continue
        if key in _CONFIG_NUMBERS:
            if not isinstance(value, (int, float)) or isinstance(value, bool):
                raise _expected(key, "a number", value)
        elif key in _CONFIG_INTEGERS:
            if not isinstance(value, int) or isinstance(value, bool):
                raise _expected(key, "an integer", value)
        elif key in _CONFIG_BOOLEANS:
            if not isinstance(value, bool):
                raise _expected(key, "a boolean", value)
        elif key in _CONFIG_STRINGS:
            if not isinstance(value, str):
                raise _expected(key, "a string", value)
        elif key == "metadata":
            if not isinstance(value, dict):
                raise _expected(key, "an object of string values", value)
            for name, tag in value.items():
                if not isinstance(name, str) or not isinstance(tag, str):
                    raise _expected(f"metadata.{name}", "a string", tag)
            value = dict(value)
        elif key == "stop_sequences" or key == "betas":
            if not isinstance(value, list):
                raise _expected(key, "an array of strings", value)
            for index, item in enumerate(value):
                if not isinstance(item, str):
                    raise _expected(f"{key}[{index}]", "a string", item)
            value = list(value)
        elif key == "extras":
            if not isinstance(value, dict):
                raise _expected(key, "an object of undeclared wire fields", value)
            for name in value:
                if not isinstance(name, str):
                    raise InvalidRequestError(
                        f"extras keys must be strings, got {_json_type(name)} {name!r}",
                        path="extras",
                    )
            value = dict(value)
        else:
            raise _unknown_key({key: value}, _CONFIG_KEYS, _CONFIG_HINT)
        fields[key] = value
    return Config(**fields)


_REQUEST_KEYS: Final = ("model", "messages", "tools", "tool_choice", "config", "response_schema", "carried")


def _request(d: object) -> Request:
    if not isinstance(d, dict):
        raise _expected("", "a request object", d)
    model = d.get("model", _MISSING)
    if not isinstance(model, str):
        raise _required(d, "model", model, "a string", _REQUEST_KEYS)
    items = d.get("messages", _MISSING)
    if not isinstance(items, list):
        raise _required(d, "messages", items, "an array of messages", _REQUEST_KEYS)
    messages: list[Message] = []
    append = messages.append
    try:
        for item in items:
            append(_message(item))
    except InvalidRequestError as error:
        raise _under(f"messages[{len(messages)}]", error) from None
    if len(d) == 2:
        return Request(model, messages)

    keys = 2
    tools: list[Tool] | NotGiven = NOT_GIVEN
    value = d.get("tools", _MISSING)
    if value is not _MISSING:
        keys += 1
        if isinstance(value, list):
            tools = []
            try:
                for item in value:
                    tools.append(_tool(item))
            except InvalidRequestError as error:
                raise _under(f"tools[{len(tools)}]", error) from None
        elif value is not None:
            raise _expected("tools", "an array of tools", value)

    tool_choice: ToolChoice | NotGiven = NOT_GIVEN
    value = d.get("tool_choice", _MISSING)
    if value is not _MISSING:
        keys += 1
        if value is not None:
            try:
                tool_choice = _tool_choice(value)
            except InvalidRequestError as error:
                raise _under("tool_choice", error) from None

    config: Config | NotGiven = NOT_GIVEN
    value = d.get("config", _MISSING)
    if value is not _MISSING:
        keys += 1
        if value is not None:
            try:
                config = _config(value)
            except InvalidRequestError as error:
                raise _under("config", error) from None

    response_schema: dict[str, Any] | NotGiven = NOT_GIVEN
    value = d.get("response_schema", _MISSING)
    if value is not _MISSING:
        keys += 1
        if isinstance(value, dict):
            response_schema = value
        elif value is not None:
            raise _expected("response_schema", "a JSON Schema object", value)

    carried: Carried | None = None
    value = d.get("carried", _MISSING)
    if value is not _MISSING:
        keys += 1
        if value is not None:
            carried = Carried.from_dict(value, "carried")

    if len(d) != keys:
        raise _unknown_key(d, _REQUEST_KEYS)
    return Request(model, messages, tools, tool_choice, config, response_schema, carried)


# --- response (OpenArmature §6) ---------------------------------------------------------------

_USAGE_KEYS: Final = (
    "prompt_tokens",
    "completion_tokens",
    "total_tokens",
    "cached_tokens",
    "cache_creation_tokens",
    "reasoning_tokens",
)
_COUNTER: Final = "a non-negative integer or null"


def _counter(d: dict[Any, Any], key: str, required: bool) -> int | None | NotGiven:
    value = d.get(key, _MISSING)
    if value is None:
        return None
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    if value is _MISSING and not required:
        return NOT_GIVEN
    if isinstance(value, int) and not isinstance(value, bool):
        raise InvalidRequestError(f"expected {_COUNTER}, got {value}", path=key)
    raise _required(d, key, value, _COUNTER, _USAGE_KEYS)


def _usage(d: object) -> Usage:
    if not isinstance(d, dict):
        raise _expected("", "a usage object", d)
    prompt = _counter(d, "prompt_tokens", True)
    completion = _counter(d, "completion_tokens", True)
    total = _counter(d, "total_tokens", True)
    assert not isinstance(prompt, NotGiven)  # required counters are never NOT_GIVEN
    assert not isinstance(completion, NotGiven)
    assert not isinstance(total, NotGiven)
    if len(d) == 3:
        return Usage(prompt, completion, total)
    cached = _counter(d, "cached_tokens", False)
    cache_creation = _counter(d, "cache_creation_tokens", False)
    reasoning = _counter(d, "reasoning_tokens", False)
    if len(d) != 3 + ("cached_tokens" in d) + ("cache_creation_tokens" in d) + ("reasoning_tokens" in d):
        raise _unknown_key(d, _USAGE_KEYS)
    return Usage(prompt, completion, total, cached, cache_creation, reasoning)


_RESPONSE_KEYS: Final = ("message", "finish_reason", "usage", "raw", "parsed", "carried")
_FINISH_REASONS: Final[dict[str, FinishReason]] = {reason: reason for reason in FINISH_REASONS}


def _response(d: object) -> Response:
    if not isinstance(d, dict):
        raise _expected("", "a response object", d)
    value = d.get("message", _MISSING)
    if not isinstance(value, dict):
        raise _required(d, "message", value, "an assistant message object", _RESPONSE_KEYS)
    try:
        message = _message(value)
    except InvalidRequestError as error:
        raise _under("message", error) from None
    if not isinstance(message, AssistantMessage):
        raise InvalidRequestError(
            f"expected 'assistant' (a response is the model's turn), got {message.role!r}", path="message.role"
        )
    value = d.get("finish_reason", _MISSING)
    finish_reason = _FINISH_REASONS.get(value) if isinstance(value, str) else None
    if finish_reason is None:
        if value is _MISSING or not isinstance(value, str):
            raise _required(
                d, "finish_reason", value, f"one of: {', '.join(FINISH_REASONS)}", _RESPONSE_KEYS
            )
        raise InvalidRequestError(
            f"unknown finish reason {value!r}; expected one of: {', '.join(FINISH_REASONS)}",
            path="finish_reason",
        )
    value = d.get("usage", _MISSING)
    if not isinstance(value, dict):
        raise _required(d, "usage", value, "a usage object", _RESPONSE_KEYS)
    try:
        usage = _usage(value)
    except InvalidRequestError as error:
        raise _under("usage", error) from None
    keys = 3
    raw = d.get("raw", _MISSING)
    if raw is _MISSING:
        raw = {}
    else:
        keys += 1
    parsed = d.get("parsed", _MISSING)
    if parsed is _MISSING:
        parsed = NOT_GIVEN
    else:
        keys += 1
    carried: Carried | None = None
    value = d.get("carried", _MISSING)
    if value is not _MISSING:
        keys += 1
        if value is not None:
            carried = Carried.from_dict(value, "carried")
    if len(d) != keys:
        raise _unknown_key(d, _RESPONSE_KEYS)
    return Response(message, finish_reason, usage, raw, parsed, carried)


# --- results of the non-chat kinds (docs/canonical.md) ----------------------------------------


class EmbeddingsResponse(Record):
    """The canonical embeddings result: one vector per input, in input order (wire `index`);
    `carried` holds wire data no table models (runtime/carry.py), as `Response.carried`."""

    __slots__ = ("embeddings", "usage", "model", "raw", "carried")
    __match_args__ = ("embeddings", "usage", "model", "raw", "carried")

    embeddings: list[list[float]]
    usage: Usage
    model: str | NotGiven
    raw: Any
    carried: Carried | None

    def __init__(
        self,
        embeddings: list[list[float]],
        usage: Usage,
        model: str | NotGiven = NOT_GIVEN,
        raw: Any = DICT,
        carried: Carried | None = None,
    ) -> None:
        self.embeddings = embeddings
        self.usage = usage
        self.model = model
        self.raw = {} if raw is DICT else raw
        self.carried = carried

    def __eq__(self, other: Any) -> bool:
        if other.__class__ is self.__class__:
            return (self.embeddings, self.usage, self.model, self.raw, self.carried) == (
                other.embeddings,
                other.usage,
                other.model,
                other.raw,
                other.carried,
            )
        return NotImplemented

    @classmethod
    def from_dict(cls, d: object, path: str = "") -> "EmbeddingsResponse":
        """Read a canonical embeddings result dict (docs/canonical.md "EmbeddingsResponse")."""
        return _located(_embeddings_response, d, path)

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"embeddings": [list(vector) for vector in self.embeddings]}
        if self.model is not NOT_GIVEN:
            d["model"] = self.model
        d["usage"] = self.usage.to_dict()
        d["raw"] = self.raw
        if self.carried is not None:
            d["carried"] = self.carried.to_dict()
        return d


class GeneratedImage(Record):
    """One generated image: a URL or inline base64 data, with what the provider said about it."""

    __slots__ = ("source", "media_type", "revised_prompt")
    __match_args__ = ("source", "media_type", "revised_prompt")

    source: Source
    media_type: str | NotGiven
    revised_prompt: str | NotGiven

    def __init__(
        self,
        source: Source,
        media_type: str | NotGiven = NOT_GIVEN,
        revised_prompt: str | NotGiven = NOT_GIVEN,
    ) -> None:
        self.source = source
        self.media_type = media_type
        self.revised_prompt = revised_prompt

    def __eq__(self, other: Any) -> bool:
        if other.__class__ is self.__class__:
            return (self.source, self.media_type, self.revised_prompt) == (
                other.source,
                other.media_type,
                other.revised_prompt,
            )
        return NotImplemented

    @classmethod
    def from_dict(cls, d: object, path: str = "") -> "GeneratedImage":
        return _located(_generated_image, d, path)

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"source": self.source.to_dict()}
        if self.media_type is not NOT_GIVEN:
            d["media_type"] = self.media_type
        if self.revised_prompt is not NOT_GIVEN:
            d["revised_prompt"] = self.revised_prompt
        return d


class ImagesResponse(Record):
    """The canonical image-generation result; `usage` only where the provider reports it;
    `carried` holds wire data no table models (runtime/carry.py), as `Response.carried`."""

    __slots__ = ("images", "usage", "raw", "carried")
    __match_args__ = ("images", "usage", "raw", "carried")

    images: list[GeneratedImage]
    usage: Usage | NotGiven
    raw: Any
    carried: Carried | None

    def __init__(
        self,
        images: list[GeneratedImage],
        usage: Usage | NotGiven = NOT_GIVEN,
        raw: Any = DICT,
        carried: Carried | None = None,
    ) -> None:
        self.images = images
        self.usage = usage
        self.raw = {} if raw is DICT else raw
        self.carried = carried

    def __eq__(self, other: Any) -> bool:
        if other.__class__ is self.__class__:
            return (self.images, self.usage, self.raw, self.carried) == (
                other.images,
                other.usage,
                other.raw,
                other.carried,
            )
        return NotImplemented

    @classmethod
    def from_dict(cls, d: object, path: str = "") -> "ImagesResponse":
        """Read a canonical image result dict (docs/canonical.md "ImagesResponse")."""
        return _located(_images_response, d, path)

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"images": [image.to_dict() for image in self.images]}
        usage = self.usage
        if isinstance(usage, Usage):
            d["usage"] = usage.to_dict()
        d["raw"] = self.raw
        if self.carried is not None:
            d["carried"] = self.carried.to_dict()
        return d


_EMBEDDINGS_KEYS: Final = ("embeddings", "model", "usage", "raw", "carried")
_GENERATED_IMAGE_KEYS: Final = ("source", "media_type", "revised_prompt")
_IMAGES_KEYS: Final = ("images", "usage", "raw", "carried")


def _carried(d: dict[str, Any]) -> "Carried | None":
    """A task result's `carried` (its dict form, as `Response.carried`'s), or None."""
    value = d.get("carried")
    return None if value is None else Carried.from_dict(value, "carried")


def _vector(value: object) -> list[float]:
    if not isinstance(value, list):
        raise _expected("", "an array of numbers", value)
    for index, item in enumerate(value):
        if isinstance(item, bool) or not isinstance(item, (int, float)):
            raise _expected(f"[{index}]", "a number", item)
        if item != item or item in (float("inf"), float("-inf")):
            raise InvalidRequestError(f"expected a finite number, got {item!r}", path=f"[{index}]")
    return list(value)


def _embeddings_response(d: object) -> EmbeddingsResponse:
    if not isinstance(d, dict):
        raise _expected("", "an embeddings result object", d)
    items = d.get("embeddings", _MISSING)
    if not isinstance(items, list):
        raise _required(d, "embeddings", items, "an array of vectors", _EMBEDDINGS_KEYS)
    vectors: list[list[float]] = []
    for index, item in enumerate(items):
        try:
            vectors.append(_vector(item))
        except InvalidRequestError as error:
            raise _under(f"embeddings[{index}]", error) from None
    value = d.get("usage", _MISSING)
    if not isinstance(value, dict):
        raise _required(d, "usage", value, "a usage object", _EMBEDDINGS_KEYS)
    try:
        usage = _usage(value)
    except InvalidRequestError as error:
        raise _under("usage", error) from None
    keys = 2
    model = d.get("model", _MISSING)
    if model is _MISSING or model is None:
        keys += model is None
        model = NOT_GIVEN
    elif isinstance(model, str):
        keys += 1
    else:
        raise _expected("model", "a string", model)
    raw = d.get("raw", _MISSING)
    if raw is _MISSING:
        raw = {}
    else:
        keys += 1
    carried = _carried(d)
    keys += "carried" in d
    if len(d) != keys:
        raise _unknown_key(d, _EMBEDDINGS_KEYS)
    return EmbeddingsResponse(vectors, usage, model, raw, carried)


def _generated_image(d: object) -> GeneratedImage:
    if not isinstance(d, dict):
        raise _expected("", "an image object", d)
    value = d.get("source", _MISSING)
    if value is _MISSING:
        raise _required(d, "source", value, "a source object", _GENERATED_IMAGE_KEYS)
    try:
        source = _source(value)
    except InvalidRequestError as error:
        raise _under("source", error) from None
    media_type = _optional_str(d, "media_type")
    revised_prompt = _optional_str(d, "revised_prompt")
    keys = 1 + ("media_type" in d) + ("revised_prompt" in d)
    if len(d) != keys:
        raise _unknown_key(d, _GENERATED_IMAGE_KEYS)
    return GeneratedImage(source, media_type, revised_prompt)


def _images_response(d: object) -> ImagesResponse:
    if not isinstance(d, dict):
        raise _expected("", "an images result object", d)
    items = d.get("images", _MISSING)
    if not isinstance(items, list):
        raise _required(d, "images", items, "an array of images", _IMAGES_KEYS)
    images: list[GeneratedImage] = []
    for index, item in enumerate(items):
        try:
            images.append(_generated_image(item))
        except InvalidRequestError as error:
            raise _under(f"images[{index}]", error) from None
    keys = 1
    usage: Usage | NotGiven = NOT_GIVEN
    value = d.get("usage", _MISSING)
    if value is not _MISSING:
        keys += 1
        if isinstance(value, dict):
            try:
                usage = _usage(value)
            except InvalidRequestError as error:
                raise _under("usage", error) from None
        elif value is not None:
            raise _expected("usage", "a usage object", value)
    raw = d.get("raw", _MISSING)
    if raw is _MISSING:
        raw = {}
    else:
        keys += 1
    carried = _carried(d)
    keys += "carried" in d
    if len(d) != keys:
        raise _unknown_key(d, _IMAGES_KEYS)
    return ImagesResponse(images, usage, raw, carried)

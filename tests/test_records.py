"""The canonical and wire-rule records are plain slotted classes (runtime/records.py, issue #6:
`dataclasses` is not imported by `import wiremap`). They must behave exactly as the
`@dataclass(slots=True)` classes they replaced: REFERENCE below is those declarations, verbatim,
turned into real dataclasses here and compared with the records, class by class."""

from __future__ import annotations

import copy
import dataclasses
import inspect
import pickle
from typing import Any

import pytest

from wiremap.runtime import canonical, wire_rules
from wiremap.runtime.canonical import NOT_GIVEN

REFERENCE = '''
from __future__ import annotations
from dataclasses import dataclass, field

@dataclass(slots=True)
class UrlSource:
    url: str

@dataclass(slots=True)
class InlineSource:
    base64_data: str

@dataclass(slots=True)
class TextBlock:
    text: str
    signature: str | NotGiven = NOT_GIVEN
    origin: str | NotGiven = NOT_GIVEN
    cache_control: dict[str, Any] | NotGiven = NOT_GIVEN

@dataclass(slots=True)
class ThinkingBlock:
    text: str
    signature: str | NotGiven = NOT_GIVEN
    origin: str | NotGiven = NOT_GIVEN

@dataclass(slots=True)
class RedactedThinkingBlock:
    data: str
    origin: str | NotGiven = NOT_GIVEN

@dataclass(slots=True)
class ImageBlock:
    source: Source
    media_type: str | NotGiven = NOT_GIVEN
    detail: Literal["auto", "low", "high"] | NotGiven = NOT_GIVEN
    cache_control: dict[str, Any] | NotGiven = NOT_GIVEN

@dataclass(slots=True)
class AudioBlock:
    source: Source
    media_type: str | NotGiven = NOT_GIVEN

@dataclass(slots=True)
class FileBlock:
    source: Source
    media_type: str | NotGiven = NOT_GIVEN
    filename: str | NotGiven = NOT_GIVEN
    cache_control: dict[str, Any] | NotGiven = NOT_GIVEN

@dataclass(slots=True)
class ToolCall:
    id: str
    name: str
    arguments: dict[str, Any] | None
    signature: str | NotGiven = NOT_GIVEN
    origin: str | NotGiven = NOT_GIVEN

@dataclass(slots=True)
class SystemMessage:
    content: str
    cache_control: dict[str, Any] | NotGiven = NOT_GIVEN
    name: str | NotGiven = NOT_GIVEN
    role: Literal["system"] = "system"

@dataclass(slots=True)
class UserMessage:
    content: str | list[Block]
    name: str | NotGiven = NOT_GIVEN
    role: Literal["user"] = "user"

@dataclass(slots=True)
class AssistantMessage:
    content: str | list[Block] | None | NotGiven = NOT_GIVEN
    tool_calls: list[ToolCall] | NotGiven = NOT_GIVEN
    name: str | NotGiven = NOT_GIVEN
    role: Literal["assistant"] = "assistant"

@dataclass(slots=True)
class ToolMessage:
    tool_call_id: str
    content: str | list[Block]
    name: str | NotGiven = NOT_GIVEN
    is_error: bool | NotGiven = NOT_GIVEN
    cache_control: dict[str, Any] | NotGiven = NOT_GIVEN
    role: Literal["tool"] = "tool"

@dataclass(slots=True)
class Tool:
    name: str
    description: str | NotGiven = NOT_GIVEN
    parameters: dict[str, Any] | NotGiven = NOT_GIVEN
    strict: bool | NotGiven = NOT_GIVEN
    cache_control: dict[str, Any] | NotGiven = NOT_GIVEN

@dataclass(slots=True)
class ForcedTool:
    name: str

@dataclass(slots=True)
class Config:
    temperature: float | NotGiven = NOT_GIVEN
    max_tokens: int | NotGiven = NOT_GIVEN
    top_p: float | NotGiven = NOT_GIVEN
    top_k: int | NotGiven = NOT_GIVEN
    seed: int | NotGiven = NOT_GIVEN
    stop_sequences: list[str] | NotGiven = NOT_GIVEN
    frequency_penalty: float | NotGiven = NOT_GIVEN
    presence_penalty: float | NotGiven = NOT_GIVEN
    parallel_tool_calls: bool | NotGiven = NOT_GIVEN
    n: int | NotGiven = NOT_GIVEN
    logprobs: bool | NotGiven = NOT_GIVEN
    top_logprobs: int | NotGiven = NOT_GIVEN
    user: str | NotGiven = NOT_GIVEN
    reasoning_effort: str | NotGiven = NOT_GIVEN
    reasoning_budget: int | NotGiven = NOT_GIVEN
    json_mode: bool | NotGiven = NOT_GIVEN
    schema_name: str | NotGiven = NOT_GIVEN
    schema_description: str | NotGiven = NOT_GIVEN
    schema_strict: bool | NotGiven = NOT_GIVEN
    prompt_cache_key: str | NotGiven = NOT_GIVEN
    metadata: dict[str, Any] | NotGiven = NOT_GIVEN
    input_type: str | NotGiven = NOT_GIVEN
    dimensions: int | NotGiven = NOT_GIVEN
    encoding_format: str | NotGiven = NOT_GIVEN
    betas: list[str] | NotGiven = NOT_GIVEN
    extras: dict[str, Any] | NotGiven = NOT_GIVEN

@dataclass(slots=True)
class Request:
    model: str
    messages: list[Message]
    tools: list[Tool] | NotGiven = NOT_GIVEN
    tool_choice: ToolChoice | NotGiven = NOT_GIVEN
    config: Config | NotGiven = NOT_GIVEN
    response_schema: dict[str, Any] | NotGiven = NOT_GIVEN
    carried: Carried | None = None

@dataclass(slots=True)
class Usage:
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    total_tokens: int | None = None
    cached_tokens: int | None | NotGiven = NOT_GIVEN
    cache_creation_tokens: int | None | NotGiven = NOT_GIVEN
    reasoning_tokens: int | None | NotGiven = NOT_GIVEN

@dataclass(slots=True)
class Response:
    message: AssistantMessage
    finish_reason: FinishReason
    usage: Usage
    raw: Any = field(default_factory=dict)
    parsed: Any = NOT_GIVEN
    carried: Carried | None = None

@dataclass(slots=True)
class EmbeddingsResponse:
    embeddings: list[list[float]]
    usage: Usage
    model: str | NotGiven = NOT_GIVEN
    raw: Any = field(default_factory=dict)
    carried: Carried | None = None

@dataclass(slots=True)
class GeneratedImage:
    source: Source
    media_type: str | NotGiven = NOT_GIVEN
    revised_prompt: str | NotGiven = NOT_GIVEN

@dataclass(slots=True)
class ImagesResponse:
    images: list[GeneratedImage]
    usage: Usage | NotGiven = NOT_GIVEN
    raw: Any = field(default_factory=dict)
    carried: Carried | None = None

@dataclass(frozen=True, slots=True)
class WireChange:
    rule: str
    action: str
    path: str
    before: Any
    after: Any = None

@dataclass(slots=True)
class WireMap:
    ids: dict[str, str] = field(default_factory=dict)
    names: dict[str, str] = field(default_factory=dict)
    changes: list[WireChange] = field(default_factory=list)
'''

_reference: dict[str, Any] = {"NOT_GIVEN": NOT_GIVEN, "__name__": __name__}
exec(compile(REFERENCE, "reference", "exec"), _reference)
PAIRS = [
    (name, getattr(canonical, name) if hasattr(canonical, name) else getattr(wire_rules, name), ref)
    for name, ref in _reference.items()
    if isinstance(ref, type) and dataclasses.is_dataclass(ref)
]


def test_every_record_is_compared() -> None:
    records = {n for n in canonical.__all__ if isinstance(getattr(canonical, n), type)} - {"NotGiven"}
    assert {name for name, _, _ in PAIRS} == records | {"WireChange", "WireMap"}


def _required(ref: type) -> list[str]:
    return [f"<{f.name}>" for f in dataclasses.fields(ref) if f.default is dataclasses.MISSING
            and f.default_factory is dataclasses.MISSING]


def _field_spec(cls: type) -> list[tuple[Any, ...]]:
    return [(f.name, f.type, f.default, f.default_factory, f.init, f.repr, f.hash, f.compare, f.kw_only)
            for f in dataclasses.fields(cls)]


@pytest.mark.parametrize(("name", "cls", "ref"), PAIRS, ids=[p[0] for p in PAIRS])
def test_record_behaves_as_its_dataclass(name: str, cls: type, ref: type) -> None:
    assert cls.__name__ == cls.__qualname__ == name
    # the class: constructor, slots, match args, dataclass introspection
    assert [str(p) for p in inspect.signature(cls).parameters.values()] == [
        str(p) for p in inspect.signature(ref).parameters.values()]
    assert cls.__slots__ == ref.__slots__ == cls.__match_args__ == ref.__match_args__  # type: ignore[attr-defined]
    assert dataclasses.is_dataclass(cls)
    assert _field_spec(cls) == _field_spec(ref)
    assert repr(cls.__dataclass_params__) == repr(ref.__dataclass_params__)  # type: ignore[attr-defined]
    frozen = ref.__dataclass_params__.frozen  # type: ignore[attr-defined]
    assert (cls.__hash__ is None) == (ref.__hash__ is None) == (not frozen)

    # an instance: repr, equality, copies, replace, asdict
    args = _required(ref)
    new, old = cls(*args), ref(*args)
    assert repr(new) == repr(old)
    assert dataclasses.asdict(new) == dataclasses.asdict(old)
    assert dataclasses.astuple(new) == dataclasses.astuple(old)
    assert new == cls(*args) and not (new != cls(*args))
    assert new != old and old != new  # another class, even with the same fields
    for name in ref.__match_args__:  # type: ignore[attr-defined]  # every field takes part
        assert dataclasses.replace(new, **{name: "<other>"}) != new
        assert (dataclasses.replace(new, **{name: "<other>"}) == dataclasses.replace(new, **{name: "<other>"}))
    first = ref.__match_args__[0]  # type: ignore[attr-defined]
    changed = dataclasses.replace(new, **{first: "<other>"})
    assert type(changed) is cls and changed != new
    assert repr(changed) == repr(dataclasses.replace(old, **{first: "<other>"}))
    assert pickle.loads(pickle.dumps(new)) == new
    assert copy.deepcopy(new) == new and copy.copy(new) == new
    assert not hasattr(new, "__dict__")
    with pytest.raises(AttributeError):
        object.__setattr__(new, "no_such_field", 1)
    for field in dataclasses.fields(ref):
        if field.default_factory is not dataclasses.MISSING:  # a fresh value per instance
            assert getattr(new, field.name) == field.default_factory()
            assert getattr(new, field.name) is not getattr(cls(*args), field.name)
    if frozen:
        assert hash(new) == hash(old)
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(new, first, "x")
        with pytest.raises(dataclasses.FrozenInstanceError):
            delattr(new, first)
    else:
        with pytest.raises(TypeError):
            hash(new)
        setattr(new, first, "x")
        setattr(old, first, "x")
        assert repr(new) == repr(old)


def test_match_and_recursive_repr() -> None:
    from wiremap import ForcedTool, Request, UserMessage

    match Request("m", [UserMessage("hi")]):
        case Request(model, [UserMessage(text)]):
            assert (model, text) == ("m", "hi")
        case _:
            raise AssertionError("no match")
    req = Request("m", [])
    req.messages.append(req)  # type: ignore[arg-type]
    ref = _reference["Request"]("m", [])
    ref.messages.append(ref)
    assert repr(req) == repr(ref) == (
        "Request(model='m', messages=[...], tools=NOT_GIVEN, tool_choice=NOT_GIVEN, config=NOT_GIVEN, "
        "response_schema=NOT_GIVEN, carried=None)")
    assert ForcedTool("x") == ForcedTool("x") and ForcedTool("x") != ForcedTool("y")
    assert (ForcedTool("x") == "x") is False


def test_record_declarations_are_checked() -> None:
    from wiremap.runtime.records import Record

    with pytest.raises(TypeError, match="__match_args__ must list the __slots__"):
        class Bad(Record):  # noqa: F841
            __slots__ = ("a", "b")
            __match_args__ = ("b", "a")

            def __eq__(self, other: Any) -> bool:
                return NotImplemented

    with pytest.raises(TypeError, match="writes its own __eq__"):
        class NoEq(Record):  # noqa: F841
            __slots__ = ("a",)
            __match_args__ = ("a",)

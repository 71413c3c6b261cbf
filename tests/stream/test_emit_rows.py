"""Compiled stream emit rows (codegen/emit/stream.py): each template form writes what the
emitter's interpreter wrote before the rows were compiled, on the cases the committed tables do
not reach (touching placeholders, escapes, values that are missing, null or not text, `|json`
paths, a lazy value after an unwritable slot). The committed tables' rows are covered byte for
byte by tests/stream and the generated fixture tests."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import pytest

from wiremap.codegen.emit.stream import EmitRow, row_function
from wiremap.codegen.wiretemplate import parse_template
from wiremap.runtime.stream import StreamEmitter
from wiremap.runtime.stream_emit import MISSING, Lazy, Unreported, Unwritable

Row = Callable[[Mapping[str, Any]], tuple[Any, Any]]


def compiled(data: Any, event: str | None = None) -> Row:
    """The row function the generator writes for these templates, run as a converter runs it."""
    row = EmitRow("_stream_emit_0", "/stream/emit/text_delta/0", parse_template(event, emit_only=True) if event else None,
                  parse_template(data, emit_only=True))
    fn = row_function(row)
    source = (
        "from collections.abc import Mapping\nfrom typing import Any\n"
        "from wiremap.runtime.stream_emit import MISSING as _MISSING, Lazy as _Lazy, Unreported as _Unreported, "
        "json_slot as _json_slot, slot_text as _slot_text\n"
        f"def {fn.name}{fn.signature}:\n" + "\n".join(fn.body) + "\n"
    )
    namespace: dict[str, Any] = {}
    exec(compile(source, "<row>", "exec"), namespace)
    result: Row = namespace[fn.name]
    return result


def test_interpolation_escapes_touching_slots_and_values_that_are_not_text() -> None:
    row = compiled({"a": "{{literal}} {text}", "b": "{index}{text}", "c": "{block}|{error}|{name}"})
    _, data = row({"text": "hé", "index": 0, "block": None, "error": {"k": "ü"}})
    assert data == {"a": "{literal} hé", "b": "0hé", "c": 'null|{"k": "ü"}|'}


def test_missing_values_are_left_out_of_objects_and_lists_in_template_order() -> None:
    row = compiled({"first": "{text}", "keep": 1, "opt": "{data?}", "usage": "{usage?}", "list": ["{text}", "{name}", "x"], "last": "{name}"})
    _, data = row({"name": "n", "data": None, "usage": Unreported(a=0)})
    assert list(data) == ["keep", "list", "last"] and data["list"] == ["n", "x"]
    _, data = row({"text": None, "name": "n", "data": "d", "usage": {"a": 1}})
    assert data == {"first": None, "keep": 1, "opt": "d", "usage": {"a": 1}, "list": [None, "n", "x"], "last": "n"}


def test_dotted_names_read_a_path_into_an_object_value() -> None:
    row = compiled({"message": "{error.error.message}", "code": "{error.error.code?}", "text": "e: {error.error.type}"}, "{error.kind}")
    event, data = row({"error": {"kind": "error", "error": {"message": "m", "code": None, "type": 3}}})
    assert (event, data) == ("error", {"message": "m", "text": "e: 3"})
    event, data = row({"error": {"error": "not an object"}})
    assert data == {"text": "e: "}
    assert event is MISSING  # a whole value that is missing: the sentinel, as the interpreter gave


def test_json_slots_decode_and_refuse_as_the_interpreter_did() -> None:
    row = compiled({"item": "{signature|json}", "id": "{signature.id|json}", "opt": "{data?|json}"})
    _, data = row({"signature": '{"id": "rs_1", "n": [1]}'})
    assert data == {"item": {"id": "rs_1", "n": [1]}, "id": "rs_1"}
    for values, message in (
        ({}, "there is no signature to write"),
        ({"signature": None}, "there is no signature to write"),
        ({"signature": "[1]"}, "its signature is not the JSON text of an object"),
        ({"signature": "{not json"}, "its signature is not the JSON text of an object"),
        ({"signature": {"id": "x"}}, "its signature is not the JSON text of an object"),
        ({"signature": '{"other": 1}'}, "its signature has no id"),
        ({"signature": '{"id": 1}', "data": "3"}, "its data is not the JSON text of an object"),
    ):
        with pytest.raises(Unwritable) as info:
            row(values)
        assert str(info.value) == message


def test_a_lazy_value_is_resolved_once_when_named_and_not_after_an_unwritable_slot() -> None:
    # once per row (the interpreter called it at every mention; the emitter's `{response}` keeps
    # its body, so the bytes were the same)
    calls: list[int] = []

    def body() -> dict[str, Any]:
        calls.append(1)
        return {"id": "resp"}

    row = compiled({"a": "{response}", "b": {"c": "{response}", "d": "{response.id}"}})
    _, data = row({"response": Lazy(body)})
    assert data == {"a": {"id": "resp"}, "b": {"c": {"id": "resp"}, "d": "resp"}} and calls == [1]
    calls.clear()
    row = compiled({"sig": "{signature|json}", "response": "{response}"})
    with pytest.raises(Unwritable):
        row({"signature": None, "response": Lazy(body)})
    assert calls == []


def test_an_event_template_is_rendered_after_the_data() -> None:
    order: list[str] = []

    def lazy(name: str) -> Lazy:
        return Lazy(lambda: order.append(name) or name)

    row = compiled({"x": "{text}"}, "response.{finish_reason}")
    event, data = row({"text": lazy("text"), "finish_reason": lazy("stop")})
    assert (event, data, order) == ("response.stop", {"x": "text"}, ["text", "stop"])
    assert compiled({"x": 1})({}) == (None, {"x": 1})


def test_a_module_generated_with_template_rows_is_refused_by_name() -> None:
    import copy
    import types

    import wiremap

    base = wiremap.get_format("openai_chat")
    module = types.ModuleType("pre_compiled_rows")
    module.__dict__.update(vars(base.module))
    table = copy.copy(base.module.STREAM)
    table["emit"] = {**table["emit"], "end": [{"event": None, "data": "[DONE]"}]}
    module.STREAM = table
    with pytest.raises(NotImplementedError, match="openai_chat was generated before stream emit rows were compiled"):
        StreamEmitter(wiremap.load_format(module))

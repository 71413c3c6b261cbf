"""Issue 16: the generator never emits broken code.

Each mapping here once compiled without an error into a converter that did not work (the
issue's list, found writing Bedrock Converse and Cohere from mappings/README.md). Each now
compiles into one that does, and the test asserts what a user of that converter relies on.
The mappings the generator must refuse instead, among them the tables its proof
(codegen/check/prove.py) catches, are in tests/mappings_err.
"""

from __future__ import annotations

import importlib
import importlib.util
import itertools
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from wiremap.codegen import generate
from wiremap.codegen.generate import module_name
from wiremap.runtime import format as format_registry

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
TINY_BASE = TESTS / "mappings_err" / "_base" / "tiny_base.yaml"
_ids = itertools.count()

USER = [{"role": "user", "content": [{"type": "text", "text": "hi"}]}]


def build(tmp_path: Path, key: str, text: str, *, base: Path = TINY_BASE) -> tuple[ModuleType, dict[str, str]]:
    """Generate `text` (a mapping extending the base) and import its converter."""
    folder = tmp_path / f"m{next(_ids)}" / "mappings"
    folder.mkdir(parents=True)
    shutil.copy(base, folder / base.name)
    (folder / f"{key}.yaml").write_text(text, "utf-8")
    files = generate(str(folder))
    package = f"wiremap_proof_pkg_{os.getpid()}_{next(_ids)}"
    where = tmp_path / package
    where.mkdir()
    for rel, body in files.items():
        (where / rel).write_text(body, "utf-8")
    spec = importlib.util.spec_from_file_location(package, where / "__init__.py", submodule_search_locations=[str(where)])
    assert spec is not None and spec.loader is not None
    pkg = importlib.util.module_from_spec(spec)
    sys.modules[package] = pkg
    spec.loader.exec_module(pkg)
    return importlib.import_module(f"{package}.{module_name(key)}"), files


BEDROCK_TOOLS = """
extends: tiny_base
meta: {id: dotted_tools}
request:
  tools:
    field: toolConfig.tools
    wire: {type: null, function: null, toolSpec: {name: "{name}", description: "{description?}", inputSchema: {json: "{parameters?}"}}}
"""


def test_a_dotted_tools_field_is_read_where_it_is_written(tmp_path: Path) -> None:
    conv, _ = build(tmp_path, "dotted_tools", BEDROCK_TOOLS)
    tools = [{"name": "get_weather", "description": "Weather.", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}]
    wire = conv.request_to_wire({"model": "m", "messages": USER, "tools": tools})
    assert wire["toolConfig"]["tools"][0]["toolSpec"]["name"] == "get_weather"
    assert "toolConfig.tools" not in wire
    back = conv.request_from_wire(wire).to_dict()
    assert back["tools"] == tools  # was None: read as the literal key "toolConfig.tools"


KEY_PARTS = """
extends: tiny_base
meta: {id: key_parts}
request:
  part_dispatch: keys
  content_parts:
    text: {type: null, text: "{text}"}
    image.url: reject
    image.inline: {type: null, image_url: null, image: {format: "{media_type|image_fmt}", source: {bytes: "{source.base64_data}"}}}
    audio.inline: {type: null, input_audio: null, audio: {format: "{media_type|audio_format}", source: {bytes: "{source.base64_data}"}}}
value_maps:
  image_fmt:
    image/png: png
    image/jpeg: jpeg
    "*": reject
"""


def test_key_dispatched_parts_with_a_value_map_read_back(tmp_path: Path) -> None:
    conv, _ = build(tmp_path, "key_parts", KEY_PARTS)
    image = {"type": "image", "source": {"type": "inline", "base64_data": "AAAA"}, "media_type": "image/jpeg"}
    audio = {"type": "audio", "source": {"type": "inline", "base64_data": "BBBB"}, "media_type": "audio/wav"}
    request = {"model": "m", "messages": [{"role": "user", "content": [{"type": "text", "text": "look"}, image, audio]}]}
    wire = conv.request_to_wire(request)
    assert wire["messages"][0]["content"][1] == {"image": {"format": "jpeg", "source": {"bytes": "AAAA"}}}
    back = conv.request_from_wire(wire).to_dict()
    assert back["messages"][0]["content"] == [{"type": "text", "text": "look"}, image, audio]


def test_an_unmatched_key_dispatched_part_is_named_without_contradiction(tmp_path: Path) -> None:
    conv, _ = build(tmp_path, "key_parts", KEY_PARTS)
    wire = {"model": "m", "messages": [{"role": "user", "content": [{"image": {"format": "bmp", "source": {"bytes": "AAAA"}}}]}]}
    with pytest.raises(Exception) as info:
        conv.request_from_wire(wire)
    assert "messages[0].content[0]" in str(info.value)
    assert "with the values its template requires" in str(info.value)


SHARED_KEY = """
extends: tiny_base
meta: {id: shared_key}
request:
  part_dispatch: keys
  content_parts:
    text: {type: null, text: "{text}"}
    image.url: reject
    image.inline: reject
    audio.inline: reject
    thinking: {reasoningContent: {reasoningText: {text: "{text}", signature: "{signature?}"}}}
    redacted_thinking: {reasoningContent: {redactedContent: "{data}"}}
  assistant:
    content: always_parts
"""


def test_parts_that_share_a_top_level_key_read_back_as_themselves(tmp_path: Path) -> None:
    conv, _ = build(tmp_path, "shared_key", SHARED_KEY)
    thinking = {"type": "thinking", "text": "hmm", "signature": "c2ln", "origin": "tiny"}
    redacted = {"type": "redacted_thinking", "data": "eHl6", "origin": "tiny"}
    request = {"model": "m", "messages": [USER[0], {"role": "assistant", "content": [thinking, redacted, {"type": "text", "text": "ok"}]}, USER[0]]}
    back = conv.request_from_wire(conv.request_to_wire(request)).to_dict()
    assert back["messages"][1]["content"] == [thinking, redacted, {"type": "text", "text": "ok"}]


BEDROCK_CHOICE = """
extends: tiny_base
meta: {id: choice_keys}
request:
  tool_choice:
    field: toolConfig.toolChoice
    auto: {auto: {}}
    required: {any: {}}
    none: {none: {}}
    tool: {type: null, function: null, tool: {name: "{name}"}}
"""


@pytest.mark.parametrize("choice", ["auto", "required", "none", {"type": "tool", "name": "f"}])
def test_tool_choice_modes_told_apart_only_by_their_keys_read_back(tmp_path: Path, choice: Any) -> None:
    conv, _ = build(tmp_path, "choice_keys", BEDROCK_CHOICE)
    request = {"model": "m", "messages": USER, "tools": [{"name": "f", "parameters": {"type": "object"}}], "tool_choice": choice}
    back = conv.request_from_wire(conv.request_to_wire(request)).to_dict()
    assert back["tool_choice"] == choice  # `required` ({any: {}}) read back as auto


ENVELOPE = """
extends: tiny_base
meta: {id: nested_envelope}
response:
  message: output.message
  envelope:
    choices: null
    output: {message: "{message}"}
    stopReason: "{finish_reason}"
    metrics: [{latencyMs: 0}]
  finish_reason:
    path: stopReason
    map: {stop: null, length: null, tool_calls: null, content_filter: null, end_turn: stop, max_tokens: length, tool_use: tool_calls, guardrail_intervened: content_filter}
    emit: {error: end_turn}
"""


def test_an_envelope_object_places_the_message_not_the_placeholder(tmp_path: Path) -> None:
    conv, _ = build(tmp_path, "nested_envelope", ENVELOPE)
    response = {"message": {"role": "assistant", "content": "hi"}, "finish_reason": "content_filter", "usage": {"prompt_tokens": 1, "completion_tokens": 2, "total_tokens": 3}}
    wire = conv.response_to_wire(response)
    assert wire["output"] == {"message": {"role": "assistant", "content": "hi"}}  # was the string "{message}"
    assert wire["stopReason"] == "guardrail_intervened"
    assert wire["metrics"] == [{"latencyMs": 0}]
    assert "{message}" not in json.dumps(wire)
    assert conv.response_from_wire(wire).to_dict()["message"]["content"] == "hi"


NO_ERROR_TYPE = """
extends: tiny_base
meta: {id: no_error_type}
errors:
  type: null
"""

JSON_SCHEMA_SLOT = """
extends: tiny_base
meta: {id: json_schema_slot}
structured_output:
  mode: native
  field: response_format
  wire: {type: json_schema, json_schema: {name: "{name}", schema: "{schema|json}"}}
  name: derived
  strict: when_schema_qualifies
  schema: verbatim
  directive: "Reply with JSON matching {schema}"
"""


def test_the_modules_the_readme_skeleton_and_a_json_schema_slot_give_pass_mypy_strict(tmp_path: Path) -> None:
    """The README's new-provider skeleton leaves `errors.type` out, and `{schema|json}` sends the
    schema as JSON text: both generated code that failed `mypy --strict`. Keyed array items
    (issue 16) are checked with them, and the rows of issue 17 (an optional placeholder with a
    value map, `{media_type?|image_format}`, failed too; a boolean value map)."""
    pytest.importorskip("mypy")
    tree = tmp_path / "typed"
    (tree / "wiremap" / "generated").mkdir(parents=True)
    # the package as installed: the runtime inside wiremap/ (a source checkout has it beside)
    (tree / "wiremap" / "__init__.py").symlink_to(ROOT / "wiremap" / "__init__.py")
    (tree / "wiremap" / "runtime").symlink_to(ROOT / "runtime", target_is_directory=True)
    (tree / "wiremap" / "generated" / "__init__.py").write_text("", "utf-8")
    (tree / "wiremap" / "py.typed").write_text("", "utf-8")
    names = []
    for key, text in (("no_error_type", NO_ERROR_TYPE), ("json_schema_slot", JSON_SCHEMA_SLOT), ("keyed_items", KEYED_ITEMS), ("bedrock_rows", BEDROCK_ROWS), ("cache_points_rows", CACHE_POINTS)):
        conv, files = build(tmp_path, key, text)
        # a dialect imports what it shares with its base; the signatures name the _types TypedDicts
        for name in (f"{key}.py", "tiny_base.py", f"{key}_types.py", "tiny_base_types.py"):
            (tree / "wiremap" / "generated" / name).write_text(files[name], "utf-8")
        names += ["-m", f"wiremap.generated.{key}"]
    run = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--follow-imports=silent", *names],
        cwd=tree, capture_output=True, text=True, env={**os.environ, "MYPYPATH": ""},
    )
    assert run.returncode == 0, run.stdout + run.stderr
    # and they work: an error body without a type; a schema sent as JSON text and read back
    conv = build(tmp_path, "json_schema_slot", JSON_SCHEMA_SLOT)[0]
    schema = {"type": "object", "properties": {"reasoning": {"type": "string"}, "answer": {"type": "string"}}}
    wire = conv.request_to_wire({"model": "m", "messages": USER, "response_schema": schema})
    assert json.loads(wire["response_format"]["json_schema"]["schema"]) == schema
    assert list(json.loads(wire["response_format"]["json_schema"]["schema"])["properties"]) == ["reasoning", "answer"]
    error = build(tmp_path, "no_error_type", NO_ERROR_TYPE)[0].error_from_wire(429, {"error": {"message": "slow down", "type": "rate"}})
    assert type(error).__name__ == "RateLimitError" and error.provider_type is None


def test_a_block_start_places_the_index_of_its_part(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`{index}` in a stream `blocks.start` template was dropped without a word."""
    dialect = """
extends: anthropic_messages
meta: {id: indexed.anthropic_messages, title: Indexed, doc_ref: "https://example.invalid"}
stream:
  emit:
    blocks:
      start:
        text: {event: content_block_start, data: {type: content_block_start, index: "{block}", part: "{index}", content_block: {type: text, text: ""}}}
"""
    folder = tmp_path / "mappings"
    (folder / "dialects" / "indexed").mkdir(parents=True)
    base = (ROOT / "mappings" / "anthropic_messages.yaml").read_text("utf-8")
    (folder / "anthropic_messages.yaml").write_text(base.replace("\nfuse:", "\nx-fuse:"), "utf-8")  # no openai_chat here
    (folder / "dialects" / "indexed" / "anthropic_messages.yaml").write_text(dialect, "utf-8")
    files = generate(str(folder))
    where = tmp_path / f"wiremap_proof_pkg_{os.getpid()}_{next(_ids)}"
    where.mkdir()
    for rel, body in files.items():
        (where / rel).write_text(body, "utf-8")
    spec = importlib.util.spec_from_file_location(where.name, where / "__init__.py", submodule_search_locations=[str(where)])
    assert spec is not None and spec.loader is not None
    sys.modules[where.name] = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(sys.modules[where.name])
    conv = importlib.import_module(f"{where.name}.{module_name('indexed.anthropic_messages')}")
    from wiremap.runtime.stream import StreamEmitter

    emitter = StreamEmitter(format_registry.Format(conv))
    out = emitter.emit({"type": "message_start", "id": "msg_1", "model": "m"})
    out += emitter.emit({"type": "text_delta", "index": 3, "text": "Hel"})
    starts = [json.loads(line[6:]) for line in out.decode().splitlines() if line.startswith("data: ") and "content_block_start" in line]
    assert starts and starts[0]["part"] == 3 and starts[0]["index"] == 0


COHERE_CHOICE = """
extends: tiny_base
meta: {id: cohere_choice}
request:
  tool_choice:
    auto: omit
    required: REQUIRED
    none: NONE
    tool: reject
"""


def test_a_tool_choice_mode_can_be_left_out_or_refused(tmp_path: Path) -> None:
    """Cohere v2 means auto by leaving `tool_choice` out and has no forced tool: `omit`, `reject`."""
    conv, files = build(tmp_path, "cohere_choice", COHERE_CHOICE)
    tools = [{"name": "f", "parameters": {"type": "object"}}]
    wire = conv.request_to_wire({"model": "m", "messages": USER, "tools": tools, "tool_choice": "auto"})
    assert "tool_choice" not in wire
    assert "tool_choice" not in conv.request_from_wire(wire).to_dict()  # the provider's default
    wire = conv.request_to_wire({"model": "m", "messages": USER, "tools": tools, "tool_choice": "required"})
    assert wire["tool_choice"] == "REQUIRED"
    assert conv.request_from_wire(wire).to_dict()["tool_choice"] == "required"
    with pytest.raises(Exception) as info:
        conv.request_to_wire({"model": "m", "messages": USER, "tools": tools, "tool_choice": {"type": "tool", "name": "f"}})
    assert type(info.value).__name__ == "InvalidRequestError" and "tool_choice" in str(info.value)
    assert "a forced tool (tool_choice tool) is not supported by cohere_choice" in str(info.value)
    assert "| tool_choice `tool` | refused |" in files["COMPATIBILITY.md"].replace("`cohere_choice`", "")


AWS_ERRORS = """
extends: tiny_base
meta: {id: aws_errors}
errors:
  message: message
  type: null
  code: null
  type_header: x-amzn-ErrorType
  rules:
    - {type: ThrottlingException, category: provider_rate_limit}
    - {type: [AccessDeniedException, UnrecognizedClientException], category: provider_authentication}
    - {type: ResourceNotFoundException, category: provider_invalid_model}
    - {status: "5xx", category: provider_unavailable}
    - {status: "*", category: provider_invalid_request}
"""


def test_the_error_type_can_come_from_a_header(tmp_path: Path) -> None:
    """Bedrock names the error in `x-amzn-ErrorType`, not the body (its value may carry `:url`)."""
    conv, _ = build(tmp_path, "aws_errors", AWS_ERRORS)
    headers = {"X-Amzn-ErrorType": "ThrottlingException:http://internal.amazon.com/coral/com.amazon.coral.service/"}
    error = conv.error_from_wire(400, {"message": "Too many requests"}, headers)
    assert error.category == "provider_rate_limit" and error.provider_type == "ThrottlingException"
    error = conv.error_from_wire(403, {"message": "no"}, {"x-amzn-errortype": "AccessDeniedException"})
    assert error.category == "provider_authentication"
    assert conv.error_from_wire(400, {"message": "bad"}, {}).category == "provider_invalid_request"


RENAMED = """
extends: tiny_base
meta: {id: renamed_option}
request:
  options:
    max_tokens:
      wire: max_tokens
      scoped:
        - {models: ["o1*", "o3*"], wire: max_completion_tokens, doc: "reasoning models take max_completion_tokens"}
"""


@pytest.mark.parametrize(("model", "field"), [("gpt-4o", "max_tokens"), ("o3-mini", "max_completion_tokens")])
def test_an_option_is_renamed_for_some_models(tmp_path: Path, model: str, field: str) -> None:
    """A scoped rule can rename an option per model, not only switch it off; it reads back."""
    conv, files = build(tmp_path, "renamed_option", RENAMED)
    wire = conv.request_to_wire({"model": model, "messages": USER, "config": {"max_tokens": 64}})
    assert wire[field] == 64 and len({"max_tokens", "max_completion_tokens"} & set(wire)) == 1
    assert conv.request_from_wire(wire).to_dict()["config"] == {"max_tokens": 64}
    assert "sent as `max_completion_tokens` for `o1*`, `o3*`" in files["COMPATIBILITY.md"]


# Issue 16, "arrays in templates that hold more than one placeholder": Bedrock Converse puts a
# `cachePoint` block after the text it caches. Each array item is told apart by a key no other
# item has; the item of optional placeholders only is written when its field is present.
KEYED_ITEMS = """
extends: tiny_base
meta: {id: keyed_items}
request:
  content_parts:
    text: {type: text, text: null, blocks: [{text: "{text}"}, {cachePoint: "{cache_control?}"}]}
"""


def test_an_array_of_keyed_items_writes_and_reads_each_item(tmp_path: Path) -> None:
    conv, _ = build(tmp_path, "keyed_items", KEYED_ITEMS)
    cached = {"type": "text", "text": "long context", "cache_control": {"type": "ephemeral"}}
    plain = {"type": "text", "text": "question"}
    request = {"model": "m", "messages": [{"role": "user", "content": [cached, plain]}]}
    wire = conv.request_to_wire(request)
    assert wire["messages"][0]["content"] == [
        {"type": "text", "blocks": [{"text": "long context"}, {"cachePoint": {"type": "ephemeral"}}]},
        {"type": "text", "blocks": [{"text": "question"}]},
    ]
    back = conv.request_from_wire(wire).to_dict()
    assert back["messages"][0]["content"] == [cached, plain]
    # read by key, not by position
    wire["messages"][0]["content"][0]["blocks"].reverse()
    assert conv.request_from_wire(wire).to_dict()["messages"][0]["content"] == [cached, plain]


@pytest.mark.parametrize(
    ("blocks", "where", "what"),
    [
        ([{"cachePoint": {"type": "ephemeral"}}], "messages[0].content[0].blocks", "expected an item with the key 'text'"),
        ([{"text": "a"}, {"text": "b"}], "messages[0].content[0].blocks[1]", "a second item with the key 'text'"),
        ([{"text": "a"}, {"image": {}}], "messages[0].content[0].blocks[1]", "expected an item with one of the keys 'text', 'cachePoint'"),
    ],
)
def test_an_array_of_keyed_items_names_a_wrong_item(tmp_path: Path, blocks: list[Any], where: str, what: str) -> None:
    conv, _ = build(tmp_path, "keyed_items", KEYED_ITEMS)
    wire = {"model": "m", "messages": [{"role": "user", "content": [{"type": "text", "blocks": blocks}]}]}
    with pytest.raises(Exception) as info:
        conv.request_from_wire(wire)
    assert where in str(info.value) and what in str(info.value)


# Issue 16, "branch a part on the URL scheme": Bedrock takes an image by `s3Location` for an
# s3:// URL and no https URL at all; Gemini's `fileData` takes gs:// and https. A url kind may have
# a row per scheme (`image.url@s3`), tried before the plain row, which takes the other schemes.
BY_SCHEME = """
extends: tiny_base
meta: {id: by_scheme}
request:
  content_parts:
    image.url: reject
    image.url@s3: {type: image, image: {source: {s3Location: {uri: "{source.url}"}}}}
    image.url@gs: {type: image, image: {source: {gcsUri: "{source.url}"}}}
"""


def _image(url: str) -> dict[str, Any]:
    return {"model": "m", "messages": [{"role": "user", "content": [{"type": "image", "source": {"type": "url", "url": url}}]}]}


def test_a_url_part_is_written_by_its_scheme_and_reads_back(tmp_path: Path) -> None:
    conv, files = build(tmp_path, "by_scheme", BY_SCHEME)
    s3 = conv.request_to_wire(_image("s3://bucket/cat.png"))
    assert s3["messages"][0]["content"] == [{"type": "image", "image": {"source": {"s3Location": {"uri": "s3://bucket/cat.png"}}}}]
    gs = conv.request_to_wire(_image("GS://bucket/cat.png"))  # a scheme is case-insensitive (RFC 3986)
    assert gs["messages"][0]["content"] == [{"type": "image", "image": {"source": {"gcsUri": "GS://bucket/cat.png"}}}]
    for wire, url in ((s3, "s3://bucket/cat.png"), (gs, "GS://bucket/cat.png")):
        assert conv.request_from_wire(wire).to_dict() == _image(url)
    assert "by URL scheme: `s3:` sent as" in files["COMPATIBILITY.md"]


def test_a_url_of_another_scheme_is_refused_naming_the_schemes_taken(tmp_path: Path) -> None:
    conv, _ = build(tmp_path, "by_scheme", BY_SCHEME)
    with pytest.raises(Exception) as info:
        conv.request_to_wire(_image("https://example.com/cat.png"))
    assert type(info.value).__name__ == "UnsupportedContentBlockError"
    assert "messages[0].content[0]" in str(info.value) and "it takes s3:, gs: URLs" in str(info.value)


def test_the_plain_url_row_takes_the_schemes_without_a_row(tmp_path: Path) -> None:
    text = BY_SCHEME.replace("image.url: reject", 'image.url: {type: image_url, image_url: {url: "{source.url}"}}')
    conv, _ = build(tmp_path, "by_scheme", text)
    https = conv.request_to_wire(_image("https://example.com/cat.png"))
    assert https["messages"][0]["content"] == [{"type": "image_url", "image_url": {"url": "https://example.com/cat.png"}}]
    s3 = conv.request_to_wire(_image("s3://b/k"))
    assert s3["messages"][0]["content"][0]["image"]["source"] == {"s3Location": {"uri": "s3://b/k"}}
    for wire, url in ((https, "https://example.com/cat.png"), (s3, "s3://b/k")):
        assert conv.request_from_wire(wire).to_dict() == _image(url)


# The same in a format without type tags (Bedrock Converse): `source.s3Location` beside
# `source.bytes` under the same `image` key; the nested key tells the two rows apart.
BEDROCK_IMAGES = KEY_PARTS.replace(
    "    image.url: reject\n",
    '    image.url: reject\n    image.url@s3: {image: {format: "{media_type|image_fmt}", source: {s3Location: {uri: "{source.url}"}}}}\n',
)


def test_key_dispatched_url_rows_by_scheme_read_back_beside_inline(tmp_path: Path) -> None:
    conv, _ = build(tmp_path, "key_parts", BEDROCK_IMAGES)
    s3 = {"type": "image", "source": {"type": "url", "url": "s3://bucket/cat.png"}, "media_type": "image/png"}
    inline = {"type": "image", "source": {"type": "inline", "base64_data": "AAAA"}, "media_type": "image/jpeg"}
    request = {"model": "m", "messages": [{"role": "user", "content": [s3, inline]}]}
    wire = conv.request_to_wire(request)
    assert wire["messages"][0]["content"] == [
        {"image": {"format": "png", "source": {"s3Location": {"uri": "s3://bucket/cat.png"}}}},
        {"image": {"format": "jpeg", "source": {"bytes": "AAAA"}}},
    ]
    assert conv.request_from_wire(wire).to_dict() == request
    with pytest.raises(Exception, match="it takes s3: URLs"):
        conv.request_to_wire(_image("https://example.com/cat.png"))


# Issue 17: the rows Bedrock Converse needed, in a tiny table of their own (general rows, not a
# Bedrock case): tool_choice `none: omit_tools` and `requires: tools`, a boolean value map
# (`{is_error?|result_status}`), tool results as `always_parts` with `media_parts`, and an
# optional placeholder with a value map (`{media_type?|image_format}`, once failing mypy).
BEDROCK_ROWS = """
extends: tiny_base
meta: {id: bedrock_rows}
request:
  user: {content: always_parts}
  tool_results:
    wire: {role: tool, tool_call_id: "{tool_call_id}", content: "{content}", status: "{is_error?|result_status}"}
    content: always_parts
    media_parts: [image.url, image.inline]
  content_parts:
    image.url: {type: image_url, image_url: {url: "{source.url}", format: "{media_type?|image_format}"}}
  tool_choice:
    requires: tools
    none: omit_tools
value_maps:
  result_status:
    "true": error
    "false": success
    "*": reject
  image_format:
    image/png: png
    "*": reject
"""

_TOOLS = [{"name": "f", "parameters": {"type": "object"}}]
_CALLED = [
    {"role": "user", "content": [{"type": "text", "text": "hi"}]},
    {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "name": "f", "arguments": {}}]},
]


def test_tool_choice_none_can_leave_the_tools_out(tmp_path: Path) -> None:
    """`none: omit_tools`: a wire without a none mode withholds the tools; after tool calls,
    where such a wire needs them declared, the request is refused before it is sent."""
    conv, files = build(tmp_path, "bedrock_rows", BEDROCK_ROWS)
    wire = conv.request_to_wire({"model": "m", "messages": USER, "tools": _TOOLS, "tool_choice": "none"})
    assert "tools" not in wire and "tool_choice" not in wire
    back = conv.request_from_wire(wire).to_dict()
    assert "tools" not in back and "tool_choice" not in back
    history = [*_CALLED, {"role": "tool", "tool_call_id": "c1", "content": "ok"}]
    with pytest.raises(Exception) as info:
        conv.request_to_wire({"model": "m", "messages": history, "tools": _TOOLS, "tool_choice": "none"})
    assert type(info.value).__name__ == "InvalidRequestError" and info.value.path == "tool_choice"
    # the other modes keep their tools
    wire = conv.request_to_wire({"model": "m", "messages": history, "tools": _TOOLS, "tool_choice": "required"})
    assert wire["tool_choice"] == "required" and wire["tools"][0]["function"]["name"] == "f"
    assert "left out with the tools (refused after tool calls)" in files["COMPATIBILITY.md"]


def test_a_tool_choice_that_requires_tools_is_left_out_without_them(tmp_path: Path) -> None:
    conv, _ = build(tmp_path, "bedrock_rows", BEDROCK_ROWS)
    assert "tool_choice" not in conv.request_to_wire({"model": "m", "messages": USER, "tool_choice": "auto"})
    assert "tool_choice" not in conv.request_to_wire({"model": "m", "messages": USER, "tools": [], "tool_choice": "auto"})
    wire = conv.request_to_wire({"model": "m", "messages": USER, "tools": _TOOLS, "tool_choice": "auto"})
    assert wire["tool_choice"] == "auto"
    # without the row, the field is written as before (backward compatible)
    plain, _ = build(tmp_path, "tiny_plain", "extends: tiny_base\nmeta: {id: tiny_plain}\n")
    assert plain.request_to_wire({"model": "m", "messages": USER, "tool_choice": "auto"})["tool_choice"] == "auto"


def test_a_boolean_value_map_writes_and_reads_is_error(tmp_path: Path) -> None:
    conv, _ = build(tmp_path, "bedrock_rows", BEDROCK_ROWS)
    for flag, status in ((True, "error"), (False, "success"), (None, None)):
        result: dict[str, Any] = {"role": "tool", "tool_call_id": "c1", "content": "disk full"}
        if flag is not None:
            result["is_error"] = flag
        request = {"model": "m", "messages": [*_CALLED, result], "tools": _TOOLS}
        wire = conv.request_to_wire(request)
        assert wire["messages"][2].get("status") == status
        assert conv.request_from_wire(wire).to_dict()["messages"][2].get("is_error") == flag
    wire["messages"][2]["status"] = "maybe"
    with pytest.raises(Exception) as info:
        conv.request_from_wire(wire)
    assert "messages[2].status" in str(info.value) and "expected one of: error, success" in str(info.value)


def test_tool_results_as_always_parts_keep_their_images(tmp_path: Path) -> None:
    conv, _ = build(tmp_path, "bedrock_rows", BEDROCK_ROWS)
    wire = conv.request_to_wire({"model": "m", "messages": [*_CALLED, {"role": "tool", "tool_call_id": "c1", "content": "ok"}], "tools": _TOOLS})
    assert wire["messages"][2]["content"] == [{"type": "text", "text": "ok"}]  # a string is one text part
    assert conv.request_from_wire(wire).to_dict()["messages"][2]["content"] == "ok"
    image = {"type": "image", "source": {"type": "url", "url": "https://x.test/a.png"}, "media_type": "image/png"}
    audio = {"type": "audio", "source": {"type": "inline", "base64_data": "AAAA"}, "media_type": "audio/wav"}
    request = {"model": "m", "messages": [*_CALLED, {"role": "tool", "tool_call_id": "c1", "content": [{"type": "text", "text": "see"}, image, audio]}], "tools": _TOOLS}
    with pytest.warns(Warning, match=r"messages\[2\]\.content\[2\]: a tool result's audio.inline part is not carried"):
        wire = conv.request_to_wire(request)
    assert wire["messages"][2]["content"] == [
        {"type": "text", "text": "see"},
        {"type": "image_url", "image_url": {"url": "https://x.test/a.png", "format": "png"}},
    ]
    assert conv.request_from_wire(wire).to_dict()["messages"][2]["content"] == [{"type": "text", "text": "see"}, image]
    # the optional media type with a value map: absent, it is left out and reads back absent
    bare = {"type": "image", "source": {"type": "url", "url": "https://x.test/a"}}
    wire = conv.request_to_wire({"model": "m", "messages": [{"role": "user", "content": [bare]}]})
    assert wire["messages"][0]["content"] == [{"type": "image_url", "image_url": {"url": "https://x.test/a"}}]
    assert conv.request_from_wire(wire).to_dict()["messages"][0]["content"] == [bare]


# `request.cache_points` in a type-tagged wire (the same row Bedrock Converse uses with keys):
# a breakpoint is its own item after the part, tool or hoisted system block it marks.
CACHE_POINTS = """
extends: tiny_base
meta: {id: cache_points_rows}
request:
  system: {strategy: hoist, field: system, wire: null, blocks: {type: text, text: "{content}"}}
  cache_points:
    wire: {type: cache_point, cache: {type: "{type}", ttl: "{ttl?}"}}
"""


def test_cache_points_are_items_after_what_they_mark(tmp_path: Path) -> None:
    conv, files = build(tmp_path, "cache_points_rows", CACHE_POINTS)
    cc = {"type": "ephemeral", "ttl": "1h"}
    request = {
        "model": "m",
        "messages": [
            {"role": "system", "content": "rules", "cache_control": cc},
            {"role": "user", "content": [{"type": "text", "text": "doc", "cache_control": {"type": "ephemeral"}}]},
        ],
        "tools": [{"name": "f", "parameters": {"type": "object"}, "cache_control": cc}],
    }
    wire = conv.request_to_wire(request)
    assert wire["system"] == [{"type": "text", "text": "rules"}, {"type": "cache_point", "cache": {"type": "ephemeral", "ttl": "1h"}}]
    # a lone cached text part is not folded into a string (string_or_parts): the point needs the list
    assert wire["messages"] == [{"role": "user", "content": [{"type": "text", "text": "doc"}, {"type": "cache_point", "cache": {"type": "ephemeral"}}]}]
    assert wire["tools"][1] == {"type": "cache_point", "cache": {"type": "ephemeral", "ttl": "1h"}} and len(wire["tools"]) == 2
    assert conv.request_from_wire(wire).to_dict() == request
    assert "a `type` item after it (`cache_points`)" in files["COMPATIBILITY.md"]
    # without breakpoints nothing changes: a string, no point items
    plain = conv.request_to_wire({"model": "m", "messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}]})
    assert plain["messages"] == [{"role": "user", "content": "hi"}]


def test_a_cache_point_after_nothing_is_refused_where_nothing_is_carried(tmp_path: Path) -> None:
    conv, _ = build(tmp_path, "cache_points_rows", CACHE_POINTS)
    body = {"model": "m", "messages": [{"role": "user", "content": [{"type": "cache_point", "cache": {"type": "ephemeral"}}, {"type": "text", "text": "hi"}]}]}
    with pytest.raises(Exception) as info:
        conv.request_from_wire(body)
    assert "messages[0].content[0]" in str(info.value) and "a cache point must follow" in str(info.value)


ONLY_FOR_SOME = """
extends: tiny_base
meta: {id: only_for_some}
request:
  options:
    top_k:
      wire: top_k
      unsupported: null
      scoped:
        - {models_except: ["claude-*", "*.anthropic.*"], unsupported: drop}
"""


@pytest.mark.parametrize(("model", "sent"), [("claude-3", True), ("us.anthropic.claude", True), ("gpt-4o", False), ("anthropic", False)])
def test_a_scoped_rule_can_be_for_every_model_but_some(tmp_path: Path, model: str, sent: bool) -> None:
    """`models_except`: a field only some models take (Bedrock's additionalModelRequestFields.top_k
    is Claude's) is sent to them and dropped for every other model, named or not."""
    conv, files = build(tmp_path, "only_for_some", ONLY_FOR_SOME)
    wire = conv.request_to_wire({"model": model, "messages": USER, "config": {"top_k": 5}})
    assert ("top_k" in wire) is sent
    assert "dropped for models other than `claude-*`, `*.anthropic.*`" in files["COMPATIBILITY.md"]


EMIT_HEADERS = """
extends: tiny_base
meta: {id: emit_headers}
errors:
  type_header: x-error-type
  rules:
    - {type: auth, category: provider_authentication}
    - {type: nf, category: provider_invalid_model}
    - {type: bad, category: provider_invalid_request}
    - {type: up, category: provider_invalid_response}
    - {type: nl, category: provider_model_not_loaded}
    - {type: rl, category: provider_rate_limit}
    - {type: down, category: provider_unavailable}
    - {status: "*", category: provider_invalid_request}
  emit:
    body: {error: {message: "{message}"}}
    headers: {x-error-type: "{type}", x-error-code: "{code?}", x-served-by: tiny}
    categories:
      provider_authentication: {status: 401, type: auth}
      provider_invalid_model: {status: 404, type: nf}
      provider_invalid_request: {status: 400, type: bad, code: invalid}
      provider_invalid_response: {status: 502, type: up}
      provider_model_not_loaded: {status: 503, type: nl}
      provider_rate_limit: {status: 429, type: rl}
      provider_unsupported_content_block: {status: 400, type: bad}
      structured_output_invalid: {status: 502, type: up}
      provider_unavailable: {status: 503, type: down}
lossy_rows:
  /errors/emit/categories/provider_unsupported_content_block: "written as bad, read as an invalid request"
  /errors/emit/categories/structured_output_invalid: "written as up, read as an invalid response"
"""


def test_an_error_is_answered_with_its_type_in_a_header(tmp_path: Path) -> None:
    """`errors.emit.headers`: AWS names the error shape in x-amzn-ErrorType, beside a {message} body."""
    from wiremap.runtime.errors import InvalidRequestError, RateLimitError

    conv, _ = build(tmp_path, "emit_headers", EMIT_HEADERS)
    status, body, headers = conv.error_to_wire(RateLimitError("slow down", retry_after=2))
    assert (status, body) == (429, {"error": {"message": "slow down"}})
    assert headers["x-error-type"] == "rl" and headers["x-served-by"] == "tiny" and "x-error-code" not in headers
    assert headers["retry-after"] == "2"
    assert conv.error_to_wire(InvalidRequestError("bad"))[2]["x-error-code"] == "invalid"
    assert conv.error_from_wire(status, body, headers).category == "provider_rate_limit"

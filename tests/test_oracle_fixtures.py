"""Every fixture body, checked by the strict official-SDK oracle (tests/oracle/sdk_oracle.py).

The generated fixture tests (generated/test_*.py) compare converter output with the bodies the
mapping authors wrote; this module checks those bodies -- and the converters' output for every
fixture input -- against the provider SDK types, which reject unknown keys at every level,
missing required keys and values outside a Literal:

- `to_wire` fixtures with `expect_wire`: the request_to_wire output passes the request oracle;
- `request_from_wire` fixtures with `expect_canonical`: the input body (what a client sends a
  gateway) passes the request oracle, and so does request_to_wire(request_from_wire(body));
- `from_wire` fixtures with `expect_canonical`: the input body passes the response oracle unless
  the fixture is about a body the SDK does not describe (INPUT_NOT_SDK_SHAPED), and
  response_to_wire(response_from_wire(body)) passes it, or, for such a body, is the body itself
  (the same format in and out is the identity);
- `response_to_wire` fixtures: the output passes the response oracle.

Fixtures are read from the base mappings and from every dialect file that has a `fixtures:`
table (mappings/dialects/*/). Dialects inherit their base's rows, so the base fixtures' inputs
are also run through every registered dialect (DIALECT_*): the dialect may refuse an input
(a ProviderError is its documented choice, e.g. openarmature.anthropic_messages requires
max_tokens), but whatever it does send must pass the oracle.

Hypothesis tests check generated requests and responses the same way, and
`test_oracle_is_strict_*` prove the oracle would notice a misspelled nested key.
"""

from __future__ import annotations

import copy
import sys
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import wiremap
from wiremap import ProviderError

_TESTS = Path(__file__).resolve().parent
sys.path.insert(0, str(_TESTS))
sys.path.insert(0, str(_TESTS / "oracle"))
import strategies as gen
from gemini_oracle import GeminiOracleError, check_gemini_request, check_gemini_response
from sdk_oracle import (
    OracleError,
    check_anthropic_messages_request,
    check_anthropic_messages_response,
    check_openai_chat_request,
    check_openai_chat_response,
    check_openai_embeddings_request,
    check_openai_embeddings_response,
    check_openai_images_request,
    check_openai_images_response,
    check_openai_responses_request,
    check_openai_responses_response,
)

MAPPINGS = _TESTS.parent / "mappings"
BASE_FILES = {
    "openai": MAPPINGS / "openai_chat.yaml",
    "anthropic": MAPPINGS / "anthropic_messages.yaml",
    "google": MAPPINGS / "gemini_generate_content.yaml",
    # the non-chat kinds: their own base files, family "<provider>_<kind>"
    "openai_embeddings": MAPPINGS / "openai_embeddings.yaml",
    "openai_images": MAPPINGS / "openai_images.yaml",
    # a second chat family of one provider: the Responses API
    "openai_responses": MAPPINGS / "openai_responses.yaml",
}
#: Chat formats outside their provider's base family, and the family (base) each derives from;
#: checked against that API's SDK types.
FAMILY_BASES = {"openai_responses": "openai_responses", "prompty.openai_responses": "openai_responses"}
#: request / response oracles of the non-chat kinds (mappings/README.md "kind")
KIND_ORACLES = {
    "embeddings": (check_openai_embeddings_request, check_openai_embeddings_response),
    "images": (check_openai_images_request, check_openai_images_response),
}
DIALECT_DIRS = [
    MAPPINGS / "dialects" / "openarmature",
    MAPPINGS / "dialects" / "prompty",
    MAPPINGS / "dialects" / "anthropic",
    MAPPINGS / "dialects" / "gemini",
]
#: Root body fields a cloud-hosted dialect's wire has and the first-party SDK types do not (the
#: anthropic SDK's Bedrock client writes `anthropic_beta` into the body itself; Vertex AI's
#: GenerateContentRequest has `labels`, the Developer API's v1beta protobufs do not). Only these
#: are admitted, and only for their format; everything else is checked as strictly as the base.
CLOUD_BODY_FIELDS = {"anthropic.bedrock": frozenset({"anthropic_beta"}), "gemini.vertex": frozenset({"labels"})}
KINDS = ("to_wire", "from_wire", "request_from_wire", "response_to_wire", "error_from_wire", "stream_from_wire", "stream_to_wire")

# Anthropic API 2026-10-21 removed temperature/top_p/top_k for every model (mappings/
# anthropic_messages.yaml options comment, docs/wire-notes.md §11). The oracle's
# ANTHROPIC_REQUEST_ROOT_EXTENSIONS re-admit them because the API reference still documents them
# (anthropic SDK 2.x dropped them from MessageCreateParams); that holds for formats pinned to
# 2023-06-01 only, so bodies *built* for 2026-10-21 are checked without the extension and may
# not carry them even as extras.
_SAMPLING = frozenset({"temperature", "top_p", "top_k"})
_SAMPLING_REMOVED_IN = "2026-10-21"


def quiet(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", wiremap.UnsupportedOptionWarning)
        return fn(*args, **kwargs)


def _kind(case: dict[str, Any]) -> str:
    return next(k for k in KINDS if k in case)


def _load(path: Path) -> dict[str, Any]:
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def _fixture_files() -> list[Path]:
    files = list(BASE_FILES.values())
    for folder in DIALECT_DIRS:
        files.extend(sorted(folder.glob("*.yaml")))
    return files


def _format_key(doc: dict[str, Any], path: Path) -> str:
    meta_id = (doc.get("meta") or {}).get("id")
    if meta_id:
        return meta_id
    return f"{path.parent.name}.{path.stem}"  # a dialect registers as <family>.<name>


def _fixtures_of(path: Path) -> list[dict[str, Any]]:
    """A mapping's fixtures: `mappings/fixtures/<key>.yaml` (mappings/README.md "fixtures"), or its own section."""
    doc = _load(path)
    own = MAPPINGS / "fixtures" / f"{_format_key(doc, path)}.yaml"
    return list((_load(own) if own.is_file() else doc).get("fixtures") or [])


def _all_fixtures() -> list[tuple[str, dict[str, Any]]]:
    out = []
    for path in _fixture_files():
        doc = _load(path)
        key = _format_key(doc, path)
        for case in _fixtures_of(path):
            out.append((key, case))
    return out


FIXTURES = _all_fixtures()


def _cases(kind: str, expect: str) -> list[Any]:
    return [
        pytest.param(key, case, id=f"{key}::{case['id']}")
        for key, case in FIXTURES
        if _kind(case) == kind and expect in case
    ]


# --- the oracle, per format ---------------------------------------------------------------------


def _fmt(key: str) -> Any:
    return wiremap.get_format(key)


def _sampling_removed(fmt: Any) -> bool:
    return fmt.provider == "anthropic" and fmt.api_version == _SAMPLING_REMOVED_IN


def check_request(key: str, body: Any, extras: Any = (), *, built: bool = True) -> None:
    """`extras`: the root keys the request's own config.extras put there. They are undeclared
    pass-through fields (OpenArmature §6), so the oracle is told to tolerate them at the root --
    SDK-declared ones among them are still type-checked. `built`: the body is converter output
    (False: a client-written body a gateway reads)."""
    fmt = _fmt(key)
    allowed = set(extras) | CLOUD_BODY_FIELDS.get(key, frozenset())
    if FAMILY_BASES.get(key) == "openai_responses":
        check_openai_responses_request(body, allowed)
        return
    if fmt.kind in KIND_ORACLES:
        KIND_ORACLES[fmt.kind][0](body, allowed)
        return
    if fmt.provider == "google":  # v1beta protobufs; extras live under generationConfig (§8.3)
        # oa §8.3.1 sends the JSON Schema verbatim under `parameters`, the OpenAPI-subset field
        # (lower-case types are not its Type enum): the openarmature dialects deviate from the API
        # there on purpose (test_gemini_openarmature_parameters_deviate), so those schemas are
        # taken out before the strict check and everything else is checked.
        body = _without_openapi_parameters(body)
        cloud = CLOUD_BODY_FIELDS.get(key, frozenset())
        if isinstance(body, dict) and cloud & set(body):
            # Vertex AI's GenerateContentRequest.labels: map<string, string> (the v1 reference);
            # checked here, then taken out before the v1beta protobuf parse that has no such field
            labels = body.get("labels")
            if "labels" in body and not (isinstance(labels, dict) and all(isinstance(k, str) and isinstance(v, str) for k, v in labels.items())):
                raise OracleError("labels", "labels must be a map of strings to strings")
            body = {k: v for k, v in body.items() if k not in cloud}
        _gemini(check_gemini_request, body, allowed)
        return
    if fmt.provider == "openai":
        check_openai_chat_request(body, allowed)
        return
    use_extensions = True
    if built and _sampling_removed(fmt):
        use_extensions = False
        allowed -= _SAMPLING  # removed by the API this format targets: never acceptable
    check_anthropic_messages_request(body, allowed, use_extensions=use_extensions)


def _without_openapi_parameters(body: Any) -> Any:
    if not isinstance(body, dict) or not isinstance(body.get("tools"), list):
        return body
    body = copy.deepcopy(body)
    for entry in body["tools"]:
        for decl in (entry or {}).get("functionDeclarations") or []:
            if isinstance(decl, dict):
                decl.pop("parameters", None)
    return body


def _gemini(check: Callable[..., None], *args: Any) -> None:
    """The protobuf oracle's failures as OracleError, like the SDK oracle's."""
    try:
        check(*args)
    except GeminiOracleError as exc:
        raise OracleError(exc.path, str(exc)) from None


def check_response(key: str, body: Any) -> None:
    if FAMILY_BASES.get(key) == "openai_responses":
        check_openai_responses_response(body)
        return
    if _fmt(key).kind in KIND_ORACLES:
        KIND_ORACLES[_fmt(key).kind][1](body)
    elif _fmt(key).provider == "google":
        _gemini(check_gemini_response, body)
    elif _fmt(key).provider == "openai":
        check_openai_chat_response(body)
    else:
        check_anthropic_messages_response(body)


def _extras(request: dict[str, Any]) -> set[str]:
    return set(((request.get("config") or {}).get("extras")) or {})


def _xfail(reason: str) -> Any:
    return pytest.mark.xfail(strict=True, raises=OracleError, reason=reason)


# --- known failures ---------------------------------------------------------------------------
# Fixture ids are matched in every format that has them (dialects inherit base behaviour).

#: from_wire fixtures whose INPUT is deliberately not a body the official SDK describes.
INPUT_NOT_SDK_SHAPED = {
    # openai_chat
    "resp_unknown_finish_reason_is_error": "finish_reason 'server_hiccup' is the unknown value under test",
    "resp_null_finish_reason_is_error": "a null finish_reason is the malformed value under test",
    "resp_degraded_bad_json_arguments_null": "finish_reason 'error' is a compatible-server degraded response",
    "resp_usage_malformed_counters_null": "doc: malformed usage counters (string, negative, boolean)",
    "resp_content_array_single_text_part": "array content comes from a compatible server (ChatCompletionMessage.content is a string)",
    "resp_content_array_two_text_parts": "array content comes from a compatible server (ChatCompletionMessage.content is a string)",
    # anthropic_messages
    "stop_reason_unknown_is_error": "stop_reason 'brand_new_reason' is the unknown value under test",
    "usage_missing_addend_total_null": "doc: a missing output_tokens (Usage.output_tokens is required)",
    "usage_absent_all_null": "doc: a body without usage (Message.usage is required)",
    # openai_embeddings
    "response_base64_decoded": "encoding_format base64: the SDK decodes it before typing embedding as List[float]",
    # gemini_generate_content
    "resp_future_finish_reason_is_error": "finishReason 'SOMETHING_NEW' is the unknown (future) value under test",
}

#: request_from_wire fixtures whose input is outside the SDK's types on purpose: they pin that
#: what no table row reads is carried for its own wire (runtime/carry.py), and the same format
#: writes it back as it came (identity), SDK-shaped or not.
INPUT_CARRIED = {
    "rfw_unknown_part_type_carried": "a video_url part (no chat completions content part)",
    "rfw_key_at_root_and_under_generation_config_carried": "cachedContent under generationConfig",
    "rfw_root_field_carried": "labels (a Vertex field) on the Gemini API",
    "rfw_assistant_input_text_part_carried": "input_text on an assistant input message",
}

#: Output checks expected to fail: {fixture id: xfail reason}. Empty now: the four bugs this
#: table held when it was written (raw finish reasons re-emitted through the '*' row; several
#: text blocks written as an OpenAI content array; API-2026-10-21-removed sampling fields read
#: as extras and forwarded) were fixed in 7e93ba8 and are regression checks below.
OUTPUT_BUGS: dict[str, str] = {}


#: to_wire fixtures of a dialect that deliberately sends what its spec says rather than what the
#: current API accepts. {(format, fixture id): the path where the oracle must reject the body}.
SPEC_OVER_API = {
    # prompty §7.1.2 maps audio/flac -> flac and strips audio/ from any other type; the current
    # API's input_audio.format is Literal["wav", "mp3"] (mappings/dialects/prompty/openai_chat.yaml
    # notes). The dialect follows Prompty on purpose, so the SDK cannot accept these bodies.
    ("prompty.openai_chat", "flac_audio_mapped"): "messages[0].content[0].input_audio.format",
    # prompty §7.4 (vector responses_with_tools) sends flat function tools without `strict`;
    # FunctionToolParam.strict is a required (nullable) key
    # (mappings/dialects/prompty/openai_responses.yaml notes).
    ("prompty.openai_responses", "tools_without_strict"): "tools[0].strict",
    (
        "prompty.openai_chat",
        "other_audio_prefix_stripped",
    ): "messages[0].content[0].input_audio.format",
}


def check_request_or_known_deviation(key: str, case_id: str, body: Any, extras: Any) -> None:
    rejected_at = SPEC_OVER_API.get((key, case_id))
    if rejected_at is None:
        check_request(key, body, extras)
        return
    with pytest.raises(OracleError) as caught:
        check_request(key, body, extras)
    assert caught.value.path == rejected_at, str(caught.value)


def _mark(params: list[Any], table: dict[str, str]) -> list[Any]:
    """Apply a strict xfail to each param whose fixture id is in `table`."""
    out = []
    for p in params:
        key, case = p.values
        if case["id"] in table:
            p = pytest.param(key, case, id=p.id, marks=_xfail(table[case["id"]]))
        out.append(p)
    return out


# ==============================================================================================
# Fixture bodies
# ==============================================================================================


@pytest.mark.parametrize("key, case", _mark(_cases("to_wire", "expect_wire"), OUTPUT_BUGS))
def test_to_wire_output_passes_oracle(key: str, case: dict[str, Any]) -> None:
    body = quiet(_fmt(key).request_to_wire, case["to_wire"])
    check_request_or_known_deviation(key, case["id"], body, _extras(case["to_wire"]))


@pytest.mark.parametrize("key, case", _cases("to_wire", "expect_wire"))
def test_to_wire_expected_body_passes_oracle(key: str, case: dict[str, Any]) -> None:
    """The body the fixture pins is itself SDK-valid (a wrong expectation is caught even where
    the converter agrees with it)."""
    check_request_or_known_deviation(key, case["id"], case["expect_wire"], _extras(case["to_wire"]))


@pytest.mark.parametrize("key, case", _cases("request_from_wire", "expect_canonical"))
def test_request_from_wire_input_passes_oracle(key: str, case: dict[str, Any]) -> None:
    # A client-written body: the sampling extension applies (older clients send temperature).
    if case["id"] in INPUT_CARRIED:  # the list is honest: the oracle refuses each of these
        with pytest.raises(OracleError):
            check_request(key, case["request_from_wire"], _extras(case["expect_canonical"]), built=False)
        return
    check_request(key, case["request_from_wire"], _extras(case["expect_canonical"]), built=False)


@pytest.mark.parametrize(
    "key, case", _mark(_cases("request_from_wire", "expect_canonical"), OUTPUT_BUGS)
)
def test_request_from_wire_round_trip_passes_oracle(key: str, case: dict[str, Any]) -> None:
    fmt = _fmt(key)
    canonical = fmt.request_from_wire(case["request_from_wire"])
    body = quiet(fmt.request_to_wire, canonical)
    if case["id"] in INPUT_CARRIED:  # same format in and out: the body as it came
        assert body == case["request_from_wire"]
        return
    check_request(key, body, _extras(case["expect_canonical"]))


_FROM_WIRE = _cases("from_wire", "expect_canonical")


@pytest.mark.parametrize(
    "key, case",
    [
        (
            p
            if p.values[1]["id"] not in INPUT_NOT_SDK_SHAPED
            else pytest.param(
                *p.values,
                id=p.id,
                marks=pytest.mark.skip(
                    reason="input not SDK-shaped: " + INPUT_NOT_SDK_SHAPED[p.values[1]["id"]]
                ),
            )
        )
        for p in _FROM_WIRE
    ],
)
def test_from_wire_input_passes_oracle(key: str, case: dict[str, Any]) -> None:
    check_response(key, case["from_wire"])


def test_input_not_sdk_shaped_list_is_honest() -> None:
    """Every fixture listed as 'not SDK-shaped' really is rejected by the oracle (the skip list
    cannot hide a realistic body), and names a fixture that exists."""
    seen = set()
    for key, case in FIXTURES:
        if _kind(case) == "from_wire" and case["id"] in INPUT_NOT_SDK_SHAPED:
            seen.add(case["id"])
            with pytest.raises(OracleError):
                check_response(key, case["from_wire"])
    assert seen == set(INPUT_NOT_SDK_SHAPED)


@pytest.mark.parametrize("key, case", _mark(_FROM_WIRE, OUTPUT_BUGS))
def test_from_wire_round_trip_passes_oracle(key: str, case: dict[str, Any]) -> None:
    fmt = _fmt(key)
    response = fmt.response_from_wire(
        case["from_wire"], response_schema=case.get("response_schema")
    )
    _check_round_trip(key, case, fmt.response_to_wire(response))


def _check_round_trip(key: str, case: dict[str, Any], body: Any) -> None:
    """A response read and written back by one format is the body it read (identity, what the
    tables do not model carried: runtime/carry.py); an SDK-shaped input therefore gives an
    SDK-shaped output, and one the SDK does not describe comes back as it was."""
    if case["id"] in INPUT_NOT_SDK_SHAPED and (_fmt(key).kind == "chat" or case["id"] in TASK_IDENTITY):
        assert body == case["from_wire"]
        return
    check_response(key, body)


#: task-kind fixtures (the other kinds carry no wire data yet) whose body comes back as it was:
#: base64 vectors are written back as base64 (`wire.raw_vector_encoding`)
TASK_IDENTITY = {"response_base64_decoded"}


@pytest.mark.parametrize("key, case", _mark(_cases("response_to_wire", "expect_wire"), OUTPUT_BUGS))
def test_response_to_wire_output_passes_oracle(key: str, case: dict[str, Any]) -> None:
    check_response(key, _fmt(key).response_to_wire(case["response_to_wire"]))


@pytest.mark.parametrize("key, case", _cases("response_to_wire", "expect_wire"))
def test_response_to_wire_expected_body_passes_oracle(key: str, case: dict[str, Any]) -> None:
    check_response(key, case["expect_wire"])


# ==============================================================================================
# Base fixtures through every dialect
# ==============================================================================================

BASE_KEYS = {
    "openai": "openai_chat",
    "anthropic": "anthropic_messages",
    "google": "gemini_generate_content",
    "openai_embeddings": "openai_embeddings",
    "openai_images": "openai_images",
    "openai_responses": "openai_responses",
}


def _family(fmt: Any) -> str:
    """The BASE_FILES / BASE_KEYS entry a format derives from: its provider, plus its kind."""
    if fmt.key in FAMILY_BASES:
        return FAMILY_BASES[fmt.key]
    return fmt.provider if fmt.kind == "chat" else f"{fmt.provider}_{fmt.kind}"

# Dialects share their base's family; formats of other providers (the OpenAI-compatible family,
# ...) have their own oracle tests (tests/test_oracle_compat.py).
DIALECTS = [k for k in wiremap.formats() if k not in BASE_KEYS.values() and _family(_fmt(k)) in BASE_KEYS]


def _dialect_cases(kind: str, expect: str) -> list[Any]:
    out = []
    for key in DIALECTS:
        base = BASE_KEYS[_family(_fmt(key))]
        for case in _fixtures_of(BASE_FILES[_family(_fmt(key))]):
            if _kind(case) == kind and expect in case:
                out.append(pytest.param(key, case, id=f"{key}<-{base}::{case['id']}"))
    return out


#: Base fixtures whose extras only make sense in the base mapping: in the dialect the extras key
#: is not a managed field, so it rides untouched (OpenArmature §6) and the oracle type-checks the
#: fixture's own value. {(dialect, fixture id): the path the oracle must reject}.
DIALECT_EXTRAS_NOT_MANAGED = {
    # base: extras max_completion_tokens 100.0 equals declared max_tokens 100 (absorbed); the
    # openarmature dialects send max_tokens, so max_completion_tokens is unmanaged and the
    # float 100.0 goes out as given (CompletionCreateParams.max_completion_tokens is an int).
    ("openarmature.openai_chat", "req_extras_equal_numeric_value_is_noop"): "max_completion_tokens",
    (
        "openarmature.openai_chat_prompt_fallback",
        "req_extras_equal_numeric_value_is_noop",
    ): "max_completion_tokens",
    # Not extras, the same mechanism: prompty §7.4 tools carry no `strict` (SPEC_OVER_API above).
    ("prompty.openai_responses", "req_tool_round"): "tools[0].strict",
    ("prompty.openai_responses", "req_tools_strict_and_tool_choice"): "tools[1].strict",
    ("prompty.openai_responses", "req_tool_choice_strings"): "tools[0].strict",
    ("openarmature.openai_chat_atomic", "req_extras_equal_numeric_value_is_noop"): "max_completion_tokens",
}


@pytest.mark.parametrize("key, case", _dialect_cases("to_wire", "expect_wire"))
def test_dialect_to_wire_output_passes_oracle(key: str, case: dict[str, Any]) -> None:
    try:
        body = quiet(_fmt(key).request_to_wire, case["to_wire"])
    except ProviderError:
        return  # the dialect refuses this input (its documented choice); nothing was sent
    rejected_at = DIALECT_EXTRAS_NOT_MANAGED.get((key, case["id"]))
    if rejected_at is None:
        check_request(key, body, _extras(case["to_wire"]))
    else:
        with pytest.raises(OracleError) as caught:
            check_request(key, body, _extras(case["to_wire"]))
        assert caught.value.path == rejected_at


@pytest.mark.parametrize(
    "key, case", _mark(_dialect_cases("from_wire", "expect_canonical"), OUTPUT_BUGS)
)
def test_dialect_from_wire_round_trip_passes_oracle(key: str, case: dict[str, Any]) -> None:
    fmt = _fmt(key)
    try:
        response = fmt.response_from_wire(
            case["from_wire"], response_schema=case.get("response_schema")
        )
    except ProviderError:
        return  # the dialect refuses this body (an oa dialect refuses parts its spec does not list)
    _check_round_trip(key, case, fmt.response_to_wire(response))


@pytest.mark.parametrize(
    "key, case", _mark(_dialect_cases("response_to_wire", "expect_wire"), OUTPUT_BUGS)
)
def test_dialect_response_to_wire_output_passes_oracle(key: str, case: dict[str, Any]) -> None:
    check_response(key, _fmt(key).response_to_wire(case["response_to_wire"]))


# ==============================================================================================
# Generated bodies
# ==============================================================================================

SETTINGS = settings(
    max_examples=150,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    print_blob=True,
)


@pytest.mark.parametrize("key", gen.FORMATS)
@SETTINGS
@given(data=st.data())
def test_generated_requests_pass_oracle(key: str, data: st.DataObject) -> None:
    request = data.draw(gen.canonical_requests(key), label="request")
    body = quiet(_fmt(key).request_to_wire, request)
    # x_* extras are undeclared pass-through fields (tolerated); the SDK-declared extras the
    # generator adds (user, metadata, service_tier, ...) are type-checked by the oracle.
    check_request(key, body, _extras(request))


@pytest.mark.parametrize("key", gen.FORMATS)
@SETTINGS
@given(data=st.data())
def test_generated_responses_pass_oracle(key: str, data: st.DataObject) -> None:
    response = data.draw(gen.canonical_responses(key), label="response")
    check_response(key, _fmt(key).response_to_wire(response))


# ==============================================================================================
# The oracle is strict
# ==============================================================================================


def _fixture(key: str, case_id: str) -> dict[str, Any]:
    return next(case for k, case in FIXTURES if k == key and case["id"] == case_id)


def test_oracle_is_strict_openai_request() -> None:
    body = _fmt("openai_chat").request_to_wire(
        _fixture("openai_chat", "req_image_url_with_detail")["to_wire"]
    )
    check_openai_chat_request(body)  # the real output passes ...
    broken = copy.deepcopy(body)
    part = broken["messages"][0]["content"][0]["image_url"]
    part["detial"] = part.pop("detail")  # ... one misspelled nested key does not
    with pytest.raises(OracleError) as caught:
        check_openai_chat_request(broken)
    assert caught.value.path == "messages[0].content[0].image_url.detial"
    assert "did you mean 'detail'" in str(caught.value)


def test_oracle_is_strict_anthropic_request() -> None:
    body = _fmt("anthropic_messages").request_to_wire(
        _fixture("anthropic_messages", "image_inline_becomes_base64_source")["to_wire"]
    )
    check_anthropic_messages_request(body)
    broken = copy.deepcopy(body)
    source = broken["messages"][0]["content"][1]["source"]
    source["media_typ"] = source.pop("media_type")
    with pytest.raises(OracleError) as caught:
        check_anthropic_messages_request(broken)
    assert caught.value.path.startswith("messages[0].content[1].source")


def test_oracle_is_strict_responses() -> None:
    openai_body = _fixture("openai_chat", "resp_tool_calls")["from_wire"]
    check_openai_chat_response(openai_body)
    broken = copy.deepcopy(openai_body)
    call = broken["choices"][0]["message"]["tool_calls"][0]["function"]
    call["argument"] = call.pop("arguments")
    with pytest.raises(OracleError) as caught:
        check_openai_chat_response(broken)
    assert caught.value.path.startswith("choices[0].message.tool_calls[0]")

    anthropic_body = _fixture("anthropic_messages", "response_text_and_tool_use")["from_wire"]
    check_anthropic_messages_response(anthropic_body)
    broken = copy.deepcopy(anthropic_body)
    broken["content"][1]["inputs"] = broken["content"][1].pop("input")
    with pytest.raises(OracleError) as caught:
        check_anthropic_messages_response(broken)
    assert caught.value.path.startswith("content[1]")


def test_oracle_is_strict_gemini() -> None:
    body = _fmt("gemini_generate_content").request_to_wire(
        _fixture("gemini_generate_content", "req_user_media_parts")["to_wire"]
    )
    check_request("gemini_generate_content", body)
    broken = copy.deepcopy(body)
    part = broken["contents"][0]["parts"][2]["fileData"]
    part["fileUrl"] = part.pop("fileUri")
    with pytest.raises(OracleError) as caught:
        check_request("gemini_generate_content", broken)
    assert caught.value.path == "contents[0].parts[2].fileData.fileUrl"
    response = _fixture("gemini_generate_content", "resp_function_call_signed")["from_wire"]
    check_response("gemini_generate_content", response)
    broken = copy.deepcopy(response)
    broken["usageMetadata"]["promptTokens"] = broken["usageMetadata"].pop("promptTokenCount")
    with pytest.raises(OracleError) as caught:
        check_response("gemini_generate_content", broken)
    assert caught.value.path == "usageMetadata.promptTokens"


def test_gemini_openarmature_parameters_deviate() -> None:
    """oa §8.3.1 puts the JSON Schema under `parameters` (an OpenAPI-subset Schema whose `type` is
    an upper-case enum); the v1beta types reject it there, which is why the base mapping sends
    `parametersJsonSchema`. The base's output for the same request passes."""
    case = _fixture("openarmature.gemini_generate_content", "tool_parameters_under_parameters")
    body = _fmt("openarmature.gemini_generate_content").request_to_wire(case["to_wire"])
    with pytest.raises(GeminiOracleError) as caught:
        check_gemini_request(body)
    assert caught.value.path.startswith("tools[0].functionDeclarations[0].parameters")
    check_request("gemini_generate_content", _fmt("gemini_generate_content").request_to_wire(case["to_wire"]))


def test_sampling_fields_rejected_for_2026_10_21_bodies() -> None:
    """The exception made above is real: without the extension the oracle refuses temperature."""
    body = {
        "model": "claude-sonnet-4-5",
        "max_tokens": 64,
        "temperature": 0.5,
        "messages": [{"role": "user", "content": "Hi"}],
    }
    check_anthropic_messages_request(body)  # 2023-06-01 reading: documented by the API reference
    with pytest.raises(OracleError):
        check_request("anthropic_messages", body, {"temperature"})

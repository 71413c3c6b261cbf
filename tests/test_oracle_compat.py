"""The OpenAI-compatible family against the official SDK types (tests/oracle/compat_oracle.py).

Mistral: every fixture body of mappings/fixtures/mistral.yaml, and what the converter sends and writes
for every fixture input, passes the `mistralai` SDK models strictly. The other family members
speak the OpenAI wire: their bodies pass the openai SDK types, with only the root keys each
provider documents beside them allowed (COMPAT_EXTRA_ROOT_KEYS, each with its source).
Hypothesis draws canonical requests and responses (tests/strategies.py, the openai_chat profile)
and checks what each family member makes of them.
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path
from typing import Any, Callable

import pytest
import yaml
from hypothesis import assume, HealthCheck, given, settings
from hypothesis import strategies as st

import wiremap
from wiremap import ProviderError

_TESTS = Path(__file__).resolve().parent
sys.path.insert(0, str(_TESTS))
sys.path.insert(0, str(_TESTS / "oracle"))
import strategies as gen  # noqa: E402
from compat_oracle import OracleError, check_mistral_request, check_mistral_response  # noqa: E402
from sdk_oracle import check_openai_chat_request, check_openai_chat_response  # noqa: E402

MAPPINGS = _TESTS.parent / "mappings"

Checker = Callable[..., None]


def _without_reasoning(body: Any, keys: tuple[str, ...], where: str) -> Any:
    """The body with the documented reasoning keys taken off its assistant messages (they are
    the mapping's `request.reasoning` row, checked by the fixtures; the openai types lack them)."""
    if not isinstance(body, dict):
        return body
    out = dict(body)
    if where == "request" and isinstance(out.get("messages"), list):
        out["messages"] = [
            {k: v for k, v in m.items() if k not in keys} if isinstance(m, dict) and m.get("role") == "assistant" else m
            for m in out["messages"]
        ]
    if where == "response" and isinstance(out.get("choices"), list):
        out["choices"] = [
            {**c, "message": {k: v for k, v in c["message"].items() if k not in keys}} if isinstance(c, dict) and isinstance(c.get("message"), dict) else c
            for c in out["choices"]
        ]
    return out


def _without_usage_keys(body: Any, keys: tuple[str, ...]) -> Any:
    """The body with the provider's documented usage counters taken off (its mapping's usage
    rows, checked by the fixtures; the openai CompletionUsage type is closed)."""
    if not keys or not isinstance(body, dict) or not isinstance(body.get("usage"), dict):
        return body
    return {**body, "usage": {k: v for k, v in body["usage"].items() if k not in keys}}


def _openai_family(
    extra_root: frozenset[str],
    reasoning: tuple[str, ...],
    usage: tuple[str, ...] = (),
    response_root: tuple[str, ...] = (),
    response_lacks: dict[str, Any] | None = None,
) -> tuple[Checker, Checker]:
    """`response_root`: the provider's documented top-level response keys beside the OpenAI ones
    (taken off before the check); `response_lacks`: OpenAI-required keys its documented response
    does not have, filled in for the check only."""

    def request(body: Any, extras: frozenset[str] = frozenset()) -> None:
        check_openai_chat_request(_without_reasoning(body, reasoning, "request"), extra_root | extras)

    def response(body: Any) -> None:
        body = _without_usage_keys(_without_reasoning(body, reasoning, "response"), usage)
        if isinstance(body, dict) and (response_root or response_lacks):
            body = {**(response_lacks or {}), **{k: v for k, v in body.items() if k not in response_root}}
        check_openai_chat_response(body)

    return request, response


_TOP_K = frozenset({"top_k"})  # vllm / together / llama.cpp sampling parameter, not in the openai types

#: format key -> (request checker, response checker). Root keys and message keys a provider
#: documents beside the OpenAI ones are allowed per format (sources in each mapping's rows).
FAMILY: dict[str, tuple[Checker, Checker]] = {
    "mistral": (lambda body, extras=frozenset(): check_mistral_request(body, extras), check_mistral_response),
    "openai_compatible": _openai_family(_TOP_K, ("reasoning_content", "reasoning")),
    "vllm": _openai_family(_TOP_K, ("reasoning", "reasoning_content")),
    "together": _openai_family(_TOP_K, ("reasoning", "reasoning_content")),
    # api-docs.deepseek.com (Create Chat Completion): usage.prompt_cache_hit_tokens / _miss_tokens
    "deepseek": _openai_family(frozenset(), ("reasoning_content",), ("prompt_cache_hit_tokens", "prompt_cache_miss_tokens")),
    "groq": _openai_family(frozenset(), ("reasoning",)),
    "ollama": _openai_family(frozenset(), ("reasoning", "reasoning_content")),
    "openrouter": _openai_family(_TOP_K, ("reasoning", "reasoning_details")),
    # issue 17, the long tail: each root key is one the provider's reference lists beside the OpenAI
    # ones (the mapping's header names the source); min_p & co. are sent through config.extras
    "fireworks": _openai_family(_TOP_K | {"min_p", "repetition_penalty"}, ("reasoning_content",)),
    "cerebras": _openai_family(frozenset(), ("reasoning",)),
    "deepinfra": _openai_family(_TOP_K | {"min_p", "repetition_penalty"}, ("reasoning_content", "reasoning")),
    "sambanova": _openai_family(_TOP_K, ("reasoning",)),
    "nebius": _openai_family(_TOP_K, ("reasoning_content", "reasoning")),
    "novita": _openai_family(_TOP_K | {"min_p", "separate_reasoning"}, ("reasoning_content",)),
    "nvidia_nim": _openai_family(_TOP_K, ("reasoning", "reasoning_content")),
    "huggingface": _openai_family(frozenset(), ("reasoning_content", "reasoning")),
    "lmstudio": _openai_family(_TOP_K | {"repeat_penalty"}, ("reasoning_content", "reasoning")),
    "llamacpp": _openai_family(_TOP_K | {"min_p", "cache_prompt", "repeat_penalty"}, ("reasoning_content", "reasoning")),
    # issue 17 (long tail): each provider's documented root fields beside the OpenAI ones, as its
    # mapping header sources them (the search and thinking switches ride in config.extras)
    "xai": _openai_family(frozenset(), ("reasoning_content",)),
    # docs.perplexity.ai (chat completions): citations, search_results, images, related_questions
    # beside choices; citation_tokens, num_search_queries, search_context_size in usage
    "perplexity": _openai_family(
        _TOP_K | {"search_domain_filter", "search_recency_filter", "search_mode", "return_images", "return_related_questions"},
        ("reasoning_content",),
        ("citation_tokens", "num_search_queries", "search_context_size", "reasoning_tokens"),
        ("citations", "search_results", "images", "related_questions"),
    ),
    # docs.z.ai (chat completion): request_id and web_search beside choices, and no `object` key
    "zai": _openai_family(
        frozenset({"user_id", "thinking", "do_sample"}), ("reasoning_content",), (),
        ("request_id", "web_search"), {"object": "chat.completion"},
    ),
    # usage.cached_tokens beside prompt_tokens_details (openclaw#25436, real Kimi K2.5 answers)
    "moonshot": _openai_family(frozenset({"thinking"}), ("reasoning_content",), ("cached_tokens",)),
    "dashscope": _openai_family(_TOP_K | {"thinking_budget", "enable_thinking"}, ("reasoning_content",)),
}


def _fixtures(key: str) -> list[dict[str, Any]]:
    own = MAPPINGS / "fixtures" / f"{key}.yaml"  # mappings/README.md "fixtures": their own file, or inline
    doc = yaml.safe_load((own if own.is_file() else MAPPINGS / f"{key}.yaml").read_text())
    return list(doc.get("fixtures", []))


def _cases(predicate: Callable[[dict[str, Any]], bool]) -> list[Any]:
    return [pytest.param(key, case, id=f"{key}-{case['id']}") for key in FAMILY for case in _fixtures(key) if predicate(case)]


def _kwargs(case: dict[str, Any]) -> dict[str, Any]:
    return {"wire_map": wiremap.WireMap.from_dict(case["wire_map"])} if "wire_map" in case else {}


def quiet(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


#: Request bodies a format writes beyond the SDK types its family is checked with: the format's
#: own documented extension (api), not in the official types.
TO_WIRE_BEYOND_SDK = {  # (what the oracle must name, why)
    ("openrouter", "cache_breakpoints_both_ways"): ("cache_control", "OpenRouter's cache_control (prompt-caching guide), not in the openai types"),
    ("perplexity", "search_options_as_extras"): (
        "user_location", "Perplexity's web_search_options.user_location {country, ...} (api), not OpenAI's {type, approximate}",
    ),
}


@pytest.mark.parametrize("key,case", _cases(lambda c: "to_wire" in c and "expect_wire" in c))
def test_to_wire_bodies_pass_oracle(key: str, case: dict[str, Any]) -> None:
    check_request, _ = FAMILY[key]
    if (key, case["id"]) in TO_WIRE_BEYOND_SDK:
        with pytest.raises(OracleError, match=TO_WIRE_BEYOND_SDK[key, case["id"]][0]):
            check_request(case["expect_wire"])  # the list stays honest: it must really deviate
        assert quiet(wiremap.get_format(key).request_to_wire, case["to_wire"], **_kwargs(case)) == case["expect_wire"]
        return
    check_request(case["expect_wire"])
    check_request(quiet(wiremap.get_format(key).request_to_wire, case["to_wire"], **_kwargs(case)))


#: Request fixture inputs outside the SDK types on purpose: what a client may send that the
#: provider's types lack, carried back to the same wire unchanged.
REQUEST_NOT_SDK_SHAPED = {
    ("mistral", "rfw_developer_role_carried"): "a role the Mistral types lack (request.unknown: carry)",
}


@pytest.mark.parametrize("key,case", _cases(lambda c: "request_from_wire" in c and "expect_canonical" in c))
def test_request_from_wire_bodies_pass_oracle(key: str, case: dict[str, Any]) -> None:
    check_request, _ = FAMILY[key]
    f = wiremap.get_format(key)
    if (key, case["id"]) in REQUEST_NOT_SDK_SHAPED:
        with pytest.raises(OracleError):
            check_request(case["request_from_wire"])  # the list stays honest: it must really deviate
        # carried as it came (request.unknown: carry): the same body goes back, the API decides
        assert quiet(f.request_to_wire, f.request_from_wire(case["request_from_wire"])) == case["request_from_wire"]
        return
    check_request(case["request_from_wire"])
    check_request(quiet(f.request_to_wire, f.request_from_wire(case["request_from_wire"])))


#: Fixture inputs that are the provider's own values outside the SDK types the family member is
#: checked with (their output is still checked).
INPUT_NOT_SDK_SHAPED = {
    ("deepseek", "resp_insufficient_system_resource_is_error"): "DeepSeek's own finish reason (api), not in the openai types",
    ("fireworks", "resp_reasoning_key_is_not_fireworks_reasoning"): "a `reasoning` key Fireworks does not document: the value under test",
    ("novita", "resp_reasoning_key_not_read"): "a `reasoning` key Novita does not document: the value under test",
    ("cerebras", "resp_reasoning_read"): "Cerebras' own time_info beside the OpenAI keys (api, recorded)",
    ("nebius", "resp_reasoning_content_read"): "vLLM's own choice.stop_reason (recorded through the Hugging Face router)",
    ("huggingface", "resp_routed_reasoning_read"): "the routed provider's own choice.seed (recorded through the together route)",
    ("llamacpp", "resp_reasoning_content_and_timings"): "llama.cpp's own timings object (api)",
    ("zai", "resp_finish_sensitive"): "Z.AI's own finish reason (api), not in the openai types",
    ("zai", "resp_finish_network_error"): "Z.AI's own finish reason (api), not in the openai types",
    ("zai", "resp_finish_context_window_exceeded"): "Z.AI's own finish reason (api), not in the openai types",
}


@pytest.mark.parametrize("key,case", _cases(lambda c: "from_wire" in c and "expect_canonical" in c))
def test_from_wire_bodies_pass_oracle(key: str, case: dict[str, Any]) -> None:
    _, check_response = FAMILY[key]
    f = wiremap.get_format(key)
    if (key, case["id"]) in INPUT_NOT_SDK_SHAPED:
        with pytest.raises(OracleError):
            check_response(case["from_wire"])  # the list stays honest: it must really deviate
        return  # and a gateway writes the provider's own value back (raw kept), so does its output
    check_response(case["from_wire"])
    check_response(f.response_to_wire(f.response_from_wire(case["from_wire"], **_kwargs(case))))


@pytest.mark.parametrize("key,case", _cases(lambda c: "response_to_wire" in c and "expect_wire" in c))
def test_response_to_wire_bodies_pass_oracle(key: str, case: dict[str, Any]) -> None:
    _, check_response = FAMILY[key]
    check_response(case["expect_wire"])
    check_response(wiremap.get_format(key).response_to_wire(case["response_to_wire"]))


SETTINGS = settings(max_examples=60, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much])


@pytest.mark.parametrize("key", sorted(FAMILY))
@SETTINGS
@given(data=st.data())
def test_generated_requests_pass_oracle(key: str, data: st.DataObject) -> None:
    request = data.draw(gen.canonical_requests("openai_chat"), label="request")
    check_request, _ = FAMILY[key]
    given_extras = (request.get("config") or {}).get("extras") or {}
    # extras pass through as given: OpenAI's service_tier "flex" is not a value of Mistral's own
    # service_tier (its SDK types: auto | standard_only), which the provider would refuse
    assume(not (key == "mistral" and given_extras.get("service_tier") == "flex"))
    extras = frozenset(given_extras)
    try:
        body = quiet(wiremap.get_format(key).request_to_wire, request, wire_map=wiremap.WireMap()) if wiremap.get_format(key).wire_rules else quiet(wiremap.get_format(key).request_to_wire, request)
    except ProviderError:
        return  # a documented refusal (a part kind or option this provider rejects)
    check_request(body, extras)


@pytest.mark.parametrize("key", sorted(FAMILY))
@SETTINGS
@given(data=st.data())
def test_generated_responses_pass_oracle(key: str, data: st.DataObject) -> None:
    response = data.draw(gen.canonical_responses("openai_chat"), label="response")
    _, check_response = FAMILY[key]
    check_response(wiremap.get_format(key).response_to_wire(response))


def test_family_oracle_is_strict() -> None:
    """Only the documented reasoning keys are taken off; a misspelled one still fails."""
    check_request, _ = FAMILY["deepseek"]
    body = wiremap.get_format("deepseek").request_to_wire(
        {"model": "m", "messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": [{"type": "thinking", "text": "t"}], "tool_calls": [{"id": "c", "name": "f", "arguments": {}}]}, {"role": "tool", "tool_call_id": "c", "content": "r"}]}
    )
    assert body["messages"][1]["reasoning_content"] == "t"
    check_request(body)
    body["messages"][1]["reasoning_contnet"] = body["messages"][1].pop("reasoning_content")
    with pytest.raises(OracleError, match="reasoning_contnet"):
        check_request(body)


def test_mistral_oracle_is_strict() -> None:
    body = wiremap.get_format("mistral").request_to_wire({"model": "m", "messages": [{"role": "user", "content": "hi"}], "config": {"seed": 1}})
    check_mistral_request(body)
    body["seed"] = body.pop("random_seed")
    with pytest.raises(OracleError, match="seed: unknown key"):
        check_mistral_request(body)
    with pytest.raises(OracleError, match="is not one of"):
        check_mistral_request({"model": "m", "messages": [], "tool_choice": "requird"})

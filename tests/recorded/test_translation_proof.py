"""Every recorded real request, translated to every base chat format (issue #14, "Proof").

For each of the 871 recorded requests and each target:
- the translation either succeeds or refuses with a typed `ProviderError` (never anything else);
- `strict=True` raises exactly when the loss report is non-empty;
- an empty loss report means the target reads back what the source said (`comparable`, the
  form the loss report itself compares): no silent change;
- a target body of another wire passes the official SDK's request types (tests/oracle). A body
  for the same wire is the provider's own body, carried back as given (the identity); the SDK
  types lag the live API there (`mcp_servers`, `context_management`, `toolCall` parts), so they
  are not the judge of it.
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path
from typing import Any, Callable

import pytest

import recorded_harness as harness

if not harness.RECORDED_DIR.is_dir():  # pragma: no cover - the data sits beside the repository
    pytest.skip(f"no recorded traffic at {harness.RECORDED_DIR}", allow_module_level=True)

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "oracle"))
from gemini_oracle import check_gemini_request  # noqa: E402
from sdk_oracle import (  # noqa: E402
    check_anthropic_messages_request,
    check_openai_chat_request,
    check_openai_responses_request,
)

import wiremap  # noqa: E402
from wiremap import ProviderError  # noqa: E402
from wiremap.runtime.translate import comparable, origin_of  # noqa: E402

ORACLES: dict[str, Callable[[Any], None]] = {
    "openai_chat": check_openai_chat_request,
    "anthropic_messages": check_anthropic_messages_request,
    "openai_responses": check_openai_responses_request,
    "gemini_generate_content": check_gemini_request,
}


def _reading(fmt: Any, body: Any) -> Any:
    d = fmt.request_from_wire(body).to_dict()
    d.pop("carried", None)
    return comparable(d)


@pytest.mark.parametrize("target", sorted(ORACLES))
def test_recorded_requests_translate_with_their_meaning(target: str) -> None:
    dst = wiremap.get_format(target)
    problems: list[str] = []
    translated = 0
    for record in harness.records():
        if record["kind"] != "request":
            continue
        body = harness._request_body(record)
        src = wiremap.get_format(record["format"])
        if getattr(src, "kind", "chat") != "chat":
            continue
        where = record["_where"]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                result = wiremap.translate_request(body, src, dst)
            except ProviderError:
                continue  # refused, typed, naming its path: nothing silent
            except Exception as exc:  # noqa: BLE001 - the proof names every untyped failure
                problems.append(f"{where}: untyped {type(exc).__name__}: {exc}")
                continue
            translated += 1
            try:
                wiremap.translate_request(body, src, dst, strict=True)
                raised = False
            except ProviderError:
                raised = True
            if raised != bool(result.losses):
                problems.append(f"{where}: strict raised={raised} with {len(result.losses)} losses")
            if not result.losses:
                try:
                    if _reading(src, body) != _reading(dst, result.result):
                        problems.append(f"{where}: the target reads something else, and no loss says so")
                except ProviderError as exc:
                    problems.append(f"{where}: the target cannot read its own body back: {exc}")
        if origin_of(src) != origin_of(dst):
            try:
                ORACLES[target](result.result)
            except Exception as exc:  # noqa: BLE001 - OracleError and the SDK's own
                problems.append(f"{where}: the {target} SDK types refuse the body: {exc}")
    assert translated > 700  # the proof ran on the corpus, not on a handful
    assert problems == []

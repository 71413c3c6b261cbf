"""Recorded traffic of the long-tail providers through their own formats (issue 17).

The shared recordings (`../shared/recorded`, README there) file Cerebras and the Hugging Face
router under `openai_compatible`, the generic base, since no format of their own existed when they
were assigned. Here each of those records is also read with its provider's own format (by the host
of its URI) and must survive the same-format round trip (recorded_harness.outcome: request,
response, stream), exactly as under the base: the provider's dialect file must not lose anything
real traffic carries (Cerebras' time_info and `reasoning`, a routed provider's `reasoning` or
`reasoning_content`, pydantic-ai's null `name`/`tool_calls` keys).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlparse

import pytest

import recorded_harness as harness

if not harness.RECORDED_DIR.is_dir():  # pragma: no cover - the data sits beside the repository
    pytest.skip(f"no recorded traffic at {harness.RECORDED_DIR}", allow_module_level=True)

#: host of the recorded URI -> the format of that provider (the mapping's transport.base_url host)
HOSTS = {"api.cerebras.ai": "cerebras", "router.huggingface.co": "huggingface"}


def _records() -> list[dict[str, Any]]:
    out = []
    for record in harness.records():
        host = urlparse(record.get("uri") or "").hostname
        if record["format"] == "openai_compatible" and host in HOSTS:
            out.append({**record, "format": HOSTS[host]})
    return out


RECORDS = _records()


def test_the_recordings_hold_both_providers() -> None:
    """The test is not vacuous: both providers have requests and responses, the router a stream too."""
    kinds = {(r["format"], harness.kind_of(r)) for r in RECORDS}
    assert {("cerebras", "request"), ("cerebras", "response"), ("huggingface", "request"), ("huggingface", "response"), ("huggingface", "stream")} <= kinds


@pytest.mark.parametrize("record", RECORDS, ids=[f"{r['format']}-{r['_where']}" for r in RECORDS])
def test_record_survives_its_own_format(record: dict[str, Any]) -> None:
    import wiremap

    assert wiremap.get_format(record["format"]).transport["base_url"] == f"https://{urlparse(record['uri']).hostname}"
    result, detail = harness.outcome(record)
    assert (result, detail) == ("pass", ""), record["source"]

"""The gateway's loss report from a fused translator's proof (`_Gateway.translate(body=...)`,
`translate.proven_losses`: `Translator.request_with_losses`, and the carried top-level keys such
as `"stream": false` named as dropped) is the one the two-step way gives (`request_losses`): every
recorded request of a pair with a fused translator, as sent, with `stream` true and false, and
under `strict` (the same `TranslationLossError`); the canonical request and model the upstream
gets are the same too."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette")

import wiremap  # noqa: E402
from wiremap.gateway import _Gateway  # noqa: E402
from wiremap.gateway_config import GatewayConfig  # noqa: E402
from wiremap.runtime.translate import TranslationLossError, proven_losses  # noqa: E402

RECORDED = Path(__file__).resolve().parents[2].parent / "shared" / "recorded"

SMALL = [
    {"model": "m", "messages": [{"role": "user", "content": "Say hello."}], "max_completion_tokens": 32},
    {"model": "m", "messages": [{"role": "user", "content": "Say hello."}]},  # the target adds max_tokens
    {"model": "m", "max_tokens": 20, "messages": [{"role": "user", "content": [{"type": "text", "text": "Hi"}]}]},
]


#: the recorded traffic of a format's own wire under a dialect's key (the dated Anthropic version)
SAME_WIRE = {"anthropic_messages": ("anthropic.messages_2023_06_01",)}


def _requests(fmt: str) -> list[Any]:
    out: list[Any] = list(SMALL)
    if RECORDED.is_dir():
        for path in sorted(RECORDED.glob("*.jsonl")):
            for line in path.read_text(encoding="utf-8").splitlines():
                record = json.loads(line)
                if record.get("format") in (fmt, *SAME_WIRE.get(fmt, ())) and record.get("kind") == "request" and isinstance(record.get("body"), dict):
                    out.append(record["body"])
    return out


def _outcome(gateway: _Gateway, plain: dict[str, Any], body: Any) -> Any:
    try:
        sent, model, losses = gateway.translate(plain, gateway.config, body=body)
    except TranslationLossError as exc:
        return ("strict", str(exc), [loss.to_dict() for loss in exc.losses])
    except Exception as exc:  # noqa: BLE001 - a request the upstream cannot take: the same error both ways
        return (type(exc).__name__, str(exc))
    return (json.dumps(sent, sort_keys=True, default=repr), model, [loss.to_dict() for loss in losses])


@pytest.mark.parametrize("inbound, upstream", [("openai_chat", "anthropic_messages"), ("anthropic_messages", "openai_chat")])
def test_the_fused_loss_report_is_the_two_step_one(inbound: str, upstream: str) -> None:
    assert wiremap.translator(inbound, upstream).fused
    proven = compared = 0
    for strict in (False, True):
        gateway = _Gateway(GatewayConfig(inbound, upstream, "http://127.0.0.1:9", strict=strict))
        for body in _requests(inbound):
            for variant in ({k: v for k, v in body.items() if k != "stream"}, {**body, "stream": False}, {**body, "stream": True}):
                try:
                    plain, _streaming, _client_body, read_from = gateway.read(json.dumps(variant).encode(), {})
                except Exception:  # noqa: BLE001 - a body the inbound tables refuse never reaches translate
                    continue
                compared += 1
                proven += proven_losses(wiremap.translator(inbound, upstream), read_from) is not None
                assert _outcome(gateway, plain, read_from) == _outcome(gateway, plain, None), variant
    assert compared > len(SMALL) * 2
    assert proven >= 20  # the fused path was taken (with `"stream": false` too), not only the two-step one

"""What the gateway's modules share: the loss header and the request-body errors.

A leaf of the gateway (it imports none of `gateway`, `gateway_config`, `gateway_endpoints`,
`gateway_stream`), so each of them imports these from here rather than from another.
"""

from __future__ import annotations

import json

from wiremap.runtime.translate import Loss

__all__ = ["MAX_LOSS_HEADER", "loss_header", "ClientGone", "BodyTooLarge", "BodyTimeout", "BearerToken", "sends_as_bearer"]

#: The longest `x-wiremap-losses` header value: past it, losses are cut and counted.
MAX_LOSS_HEADER = 6000


def loss_header(losses: list[Loss], responses: int = 0) -> str:
    """JSON for `x-wiremap-losses`; the last `responses` losses are of the response direction."""
    cut = len(losses) - responses
    items = [{"direction": "request" if i < cut else "response", **loss.to_dict()} for i, loss in enumerate(losses)]
    text = json.dumps(items, ensure_ascii=True, separators=(",", ":"))
    while len(text) > MAX_LOSS_HEADER and items:
        items = items[: len(items) // 2]
        text = json.dumps([*items, {"path": "", "kind": "truncated", "detail": f"{len(losses) - len(items)} more"}], ensure_ascii=True, separators=(",", ":"))
    return text


class ClientGone(Exception):
    """The client disconnected; its upstream call was cancelled."""


class BodyTooLarge(Exception):
    """The request body is larger than the gateway's `max_body` (answered 413)."""

    def __init__(self, size: int, limit: int) -> None:
        super().__init__(f"the request body ({size} bytes or more) is larger than this gateway's limit of {limit} bytes")


class BodyTimeout(Exception):
    """The request body did not arrive within the gateway's `body_timeout` (answered 408)."""

    def __init__(self, seconds: float, size: int) -> None:
        super().__init__(f"the request body did not arrive within {seconds:g} s ({size} bytes read; is Content-Length larger than the body?)")


class BearerToken(str):
    """A client credential that came as `Authorization: Bearer` to an inbound format whose auth
    says a bearer token may replace its key (`transport.auth.bearer_tokens`: Azure's Entra ID
    tokens). It is forwarded as a bearer token to an upstream that says the same, and in the
    upstream's own key scheme to any other (where it is just the key)."""

    __slots__ = ()


def sends_as_bearer(key: str, upstream_auth: object) -> bool:
    """Whether `key` goes to an upstream with `upstream_auth` as `Authorization: Bearer`
    instead of in its key scheme."""
    return isinstance(key, BearerToken) and isinstance(upstream_auth, dict) and upstream_auth.get("bearer_tokens") is True

"""Transport helpers for the cloud-hosted formats (Bedrock, Vertex AI): the table's `params`
(placeholders of the base URL and paths that are no request field), AWS Signature Version 4
and Google OAuth tokens (`transport.auth.fallback`).

botocore and google-auth are optional (`pip install 'wiremap[aws]'`, `'wiremap[google]'`) and are
imported only when a request is signed with them.
"""

from __future__ import annotations

import os
import re
import urllib.parse
from collections.abc import Callable, Mapping
from typing import Any

from .errors import AuthenticationError
from .format import Format

__all__ = ["transport_params", "aws_sigv4_headers", "google_token"]

_PLACEHOLDER = re.compile(r"\{([^{}]*)\}")


_PARAM_VALUE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]*")


def transport_params(fmt: Format, given: Mapping[str, str] | None) -> tuple[Callable[[str], str], str | None]:
    """(fill, missing): `fill(text)` replaces each `{param}` of `fmt`'s `transport.params` (from
    `given`, else its environment variable, else its default) and leaves other placeholders (the
    request's path-bound model field) as they are; `missing` names what has no value (None when
    all have one). A value that is not a non-empty string, or a name the table does not declare,
    is a ValueError."""
    spec: Mapping[str, Any] = (fmt.transport or {}).get("params") or {}
    given = dict(given or {})
    unknown = sorted(set(given) - set(spec))
    if unknown:
        raise ValueError(f"format {fmt.key!r} has no transport param {unknown[0]!r}; "
                         f"its params: {', '.join(sorted(spec)) or 'none'}")
    values: dict[str, str] = {}
    missing: list[str] = []
    for name, row in spec.items():
        value = given.get(name)
        if value is None:
            value = os.environ.get(str(row["env"])) or row.get("default")
        if value is None:
            missing.append(f"{{{name}}} (pass params={{{name!r}: ...}} or set {row['env']})")
            continue
        if not isinstance(value, str) or not value:
            raise ValueError(f"transport param {name!r} must be a non-empty string, got {value!r}")
        if not _PARAM_VALUE.fullmatch(value):  # it becomes part of a host name or a path segment
            raise ValueError(f"transport param {name!r} ({row['env']}) must be letters, digits, '-' and '_' "
                             f"(it goes into the URL), got {value!r}")
        values[name] = value

    def fill(text: str) -> str:
        # a value is URL-quoted: it lands in a host name or a path segment
        return _PLACEHOLDER.sub(lambda m: urllib.parse.quote(values[m.group(1)], safe="") if m.group(1) in values else m.group(0), text)

    message = f"{fmt.key} needs a value for " + ", ".join(missing) if missing else None
    return fill, message


def aws_sigv4_headers(method: str, url: str, headers: Mapping[str, str], content: bytes | None, service: str, region: str) -> dict[str, str]:
    """The headers AWS Signature Version 4 adds to this request (`Authorization`, `X-Amz-Date`,
    `X-Amz-Security-Token` for temporary credentials), signed by botocore with the credentials
    its default chain finds (environment variables, shared config and credentials files, …)."""
    try:
        from botocore.auth import SigV4Auth  # type: ignore[import-untyped]  # botocore ships no types
        from botocore.awsrequest import AWSRequest  # type: ignore[import-untyped]
        from botocore.session import Session  # type: ignore[import-untyped]
    except ImportError:
        raise AuthenticationError("no API key given, and signing with AWS credentials needs botocore: "
                                  "pip install 'wiremap[aws]'") from None
    credentials = Session().get_credentials()
    if credentials is None:
        raise AuthenticationError("no API key given and no AWS credentials found (AWS_ACCESS_KEY_ID / "
                                  "AWS_SECRET_ACCESS_KEY, a profile, or a role)")
    # the connection header may be dropped by a proxy: it is not signed
    unsigned = {k: v for k, v in headers.items() if k.lower() not in ("connection", "user-agent")}
    request = AWSRequest(method=method.upper(), url=url, headers=unsigned, data=content or b"")
    SigV4Auth(credentials.get_frozen_credentials(), service, region).add_auth(request)
    return {k: v for k, v in request.headers.items() if k.lower() in ("authorization", "x-amz-date", "x-amz-security-token", "x-amz-content-sha256")}


def google_token(credentials: Any, scopes: list[str]) -> tuple[Any, str]:
    """(credentials, access token): Google's application-default credentials (google-auth),
    loaded once and refreshed when their token is missing or expires within a minute."""
    try:
        import google.auth
        import google.auth.transport.requests
    except ImportError:
        raise AuthenticationError("no access token given, and Google application-default credentials need google-auth: "
                                  "pip install 'wiremap[google]'") from None
    if credentials is None:
        try:
            credentials, _project = google.auth.default(scopes=scopes)
        except google.auth.exceptions.DefaultCredentialsError as exc:
            raise AuthenticationError(f"no access token given and no Google application-default credentials: {exc}") from None
    if not getattr(credentials, "token", None) or not getattr(credentials, "valid", False):  # valid: not expired (with google-auth's clock skew)
        try:
            credentials.refresh(google.auth.transport.requests.Request())
        except google.auth.exceptions.RefreshError as exc:
            raise AuthenticationError(f"the Google credentials could not be refreshed: {exc}") from None
    return credentials, str(credentials.token)

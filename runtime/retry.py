"""Retries of a Provider call: SDK-style `RetryPolicy` and the OpenArmature §7.1 records.

    from wiremap.runtime.retry import RetryPolicy, RetryConfig, call_with_retries

    Provider(..., max_retries=2)                          # RetryPolicy(max_retries=2)
    await p.complete(messages, retry=RetryPolicy(max_retries=5, initial_delay=1.0))
    await p.complete(messages, retry=RetryConfig(max_attempts=3, reask=builder))   # §7.1

Two shapes say the same thing, "how many attempts and how long to wait between them":

- `RetryPolicy`: the knobs of the official openai and anthropic SDKs (`max_retries` counts the
  retries after the first attempt; exponential backoff with jitter; a server's Retry-After,
  already parsed into `ProviderError.retry_after`, is honoured up to `max_retry_after`).
- `RetryConfig`: the OpenArmature record (pipeline-utilities §6.1 four fields `max_attempts`,
  `classifier`, `backoff`, `on_retry`) plus the llm-provider §7.1 extension fields
  `per_attempt_override` and `reask`. A plain mapping with those keys is accepted too
  (`retry_config()`); `backoff` may then be `{type: deterministic, seconds: S}` or
  `{type: exponential, base: B, cap: C}` (default: exponential, full jitter, base 1 s, cap
  30 s). It waits what its backoff says, or the server's `retry_after` when that is longer.

Either way an error is retried only when it is transient (`ProviderError.transient`: rate
limits, 5xx/529 overload, timeouts, connection failures, a model still loading) or the record's
classifier says so; every other error propagates at once; after the last attempt the last error
propagates unchanged. Cancellation is never retried (§7.1 "Cancellation signals MUST propagate").
Nothing here imports httpx, yaml or pydantic.
"""

from __future__ import annotations

import asyncio
import math
import random
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Protocol, TypeVar

from .errors import ProviderError

__all__ = [
    "RetryPolicy",
    "RetryConfig",
    "RetryPlan",
    "RetryState",
    "Backoff",
    "exponential_backoff",
    "deterministic_backoff",
    "default_classifier",
    "call_with_retries",
    "retry_config",
    "retry_plan",
]

T = TypeVar("T")

# pipeline-utilities §6.1 default backoff (quoted in llm-provider §7.1 "Backoff behavior"):
# exponential with full jitter, base 1 s, cap 30 s.
DEFAULT_BACKOFF_BASE: Final = 1.0
DEFAULT_BACKOFF_CAP: Final = 30.0


class Backoff(Protocol):
    """§6.1 `backoff`: seconds to wait before retry number `attempt_index` (0 = the first retry)."""

    def __call__(self, attempt_index: int, /) -> float: ...


def default_classifier(error: BaseException, state: Any = None) -> bool:
    """§6.1 default transient classifier: `provider_unavailable`, `provider_rate_limit`,
    `provider_model_not_loaded` (every `ProviderError` whose class is transient). `state` is
    ignored (its shape at the call level is implementation-defined, §7.1)."""
    return isinstance(error, ProviderError) and error.transient


@dataclass(frozen=True)
class _Exponential:
    base: float
    cap: float
    rng: random.Random | None = None

    def __call__(self, attempt_index: int, /) -> float:
        ceiling = min(self.cap, self.base * 2.0 ** max(0, attempt_index))
        return (self.rng or random).uniform(0.0, ceiling)  # full jitter


@dataclass(frozen=True)
class _Deterministic:
    seconds: float

    def __call__(self, attempt_index: int, /) -> float:
        return self.seconds


def exponential_backoff(
    base: float = DEFAULT_BACKOFF_BASE, cap: float = DEFAULT_BACKOFF_CAP, *, rng: random.Random | None = None
) -> Backoff:
    """Exponential backoff with full jitter: uniform in [0, min(cap, base * 2**attempt_index)]."""
    _check_seconds("backoff base", base)
    _check_seconds("backoff cap", cap)
    return _Exponential(float(base), float(cap), rng)


def deterministic_backoff(seconds: float) -> Backoff:
    """The same wait before every retry (the conformance fixtures' `{type: deterministic}`)."""
    _check_seconds("backoff seconds", seconds)
    return _Deterministic(float(seconds))


@dataclass(frozen=True)
class RetryPolicy:
    """SDK-style retries (the openai and anthropic Python SDKs' `max_retries`).

    `max_retries` retries follow the first attempt; retry `n` (1-based) waits
    `min(max_delay, initial_delay * multiplier**(n-1))`, varied by +-`jitter` (a fraction), or
    the server's `retry_after` when the error carries one. A `retry_after` longer than
    `max_retry_after` is not waited for: that error propagates at once.
    """

    max_retries: int = 2
    initial_delay: float = 0.5
    max_delay: float = 8.0
    multiplier: float = 2.0
    jitter: float = 0.25
    max_retry_after: float = 60.0

    def __post_init__(self) -> None:
        if not isinstance(self.max_retries, int) or isinstance(self.max_retries, bool) or self.max_retries < 0:
            raise ValueError(f"RetryPolicy.max_retries must be an integer >= 0, got {self.max_retries!r}")
        for name in ("initial_delay", "max_delay", "max_retry_after"):
            _check_seconds(f"RetryPolicy.{name}", getattr(self, name))
        if not _is_number(self.multiplier) or not self.multiplier >= 1.0:
            raise ValueError(f"RetryPolicy.multiplier must be a number >= 1, got {self.multiplier!r}")
        if not _is_number(self.jitter) or not 0.0 <= self.jitter <= 1.0:
            raise ValueError(f"RetryPolicy.jitter must be a fraction between 0 and 1, got {self.jitter!r}")

    @property
    def max_attempts(self) -> int:
        return self.max_retries + 1

    def delay(self, retry: int, error: BaseException | None, *, rng: random.Random | None = None) -> float:
        """Seconds to wait before retry number `retry` (1 = the first retry) after `error`."""
        after = _retry_after(error)
        if after is not None:
            return after
        base = min(self.max_delay, self.initial_delay * self.multiplier ** max(0, retry - 1))
        spread = base * self.jitter
        return max(0.0, base + (rng or random).uniform(-spread, spread))

    def retryable(self, error: BaseException) -> bool:
        """A transient `ProviderError` whose server-requested wait (if any) is acceptable."""
        if not default_classifier(error):
            return False
        after = _retry_after(error)
        return after is None or after <= self.max_retry_after


# §7.1 reask builder: (output_content, error_message) -> the content of the corrective user
# message (a string or a list of content blocks), exactly as the caller wrote it.
ReaskBuilder = Callable[[Any, str], Any]


@dataclass(frozen=True)
class RetryConfig:
    """The OpenArmature retry record: pipeline-utilities §6.1 four fields plus the llm-provider
    §7.1 retry-config extension.

    `max_attempts`: attempts in all (>= 1). `classifier(error, state) -> bool`: is this error
    worth another attempt (default: §6.1's transient categories; `state` is the `RetryState` of
    the call). `backoff(attempt_index) -> seconds` before retry `attempt_index` (0-based; default
    exponential, full jitter, base 1 s, cap 30 s). `on_retry(error, attempt_index)`: observes
    each retry before its wait (it cannot change the request). `per_attempt_override`: a
    schedule of partial `config` records, the i-th merged onto the base config for retry i (the
    last one carries forward). `reask(output_content, error_message)`: makes
    `structured_output_invalid` retryable for this call and returns the corrective user turn.
    """

    max_attempts: int = 3
    classifier: Callable[[BaseException, Any], bool] | None = None
    backoff: Backoff | None = None
    on_retry: Callable[[BaseException, int], Any] | None = None
    per_attempt_override: Sequence[Mapping[str, Any]] | None = None
    reask: ReaskBuilder | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.max_attempts, int) or isinstance(self.max_attempts, bool) or self.max_attempts < 1:
            raise ValueError(f"retry.max_attempts must be an integer >= 1, got {self.max_attempts!r}")
        for name in ("classifier", "backoff", "on_retry", "reask"):
            value = getattr(self, name)
            if value is not None and not callable(value):
                raise TypeError(f"retry.{name} must be callable, got {type(value).__name__}")
        overrides = self.per_attempt_override
        if overrides is not None:
            if isinstance(overrides, (str, bytes, Mapping)) or not isinstance(overrides, Sequence):
                raise TypeError(
                    "retry.per_attempt_override must be a list of partial config records, "
                    f"got {type(overrides).__name__}"
                )
            for i, item in enumerate(overrides):
                if not isinstance(_plain(item), Mapping):
                    raise TypeError(
                        f"retry.per_attempt_override[{i}] must be a partial config record (a mapping), "
                        f"got {type(item).__name__}"
                    )


@dataclass(frozen=True)
class RetryPlan:
    """What a call's retry loop runs on, whichever record it came from (see `retry_plan`)."""

    max_attempts: int
    retryable: Callable[[BaseException, int], bool]  # (error, attempt_index) -> retry it?
    delay: Callable[[int, BaseException], float]  # (retry number, 1-based; error) -> seconds
    on_retry: Callable[[int, BaseException, float], None] | None = None  # (retry, error, delay)
    overrides: tuple[Mapping[str, Any], ...] = ()
    reask: ReaskBuilder | None = None

    def config_for(self, attempt: int, base: Any) -> Any:
        """The request `config` of attempt `attempt` (0-based): the base for attempt 0, then the
        base with the schedule's entry merged on top per key (None inherits, §7.1); a copy."""
        if attempt == 0 or not self.overrides:
            return base
        override = self.overrides[min(attempt, len(self.overrides)) - 1]
        merged: dict[str, Any] = dict(_plain(base) or {})
        for key, value in _plain(override).items():
            if value is None:
                continue
            if key == "extras" and isinstance(value, Mapping) and isinstance(merged.get("extras"), Mapping):
                extras = dict(merged["extras"])
                extras.update({k: v for k, v in value.items() if v is not None})
                merged["extras"] = extras
            else:
                merged[key] = value
        return merged


@dataclass
class RetryState:
    """The `state` a §6.1 classifier receives at the call level: the attempt that failed
    (0-based) and the attempt budget."""

    attempt_index: int
    max_attempts: int


def retry_config(value: Any, *, where: str = "retry") -> RetryConfig:
    """A `RetryConfig` from a mapping with the record's keys (unknown keys are an error);
    `backoff` as a callable or `{type: deterministic, seconds}` / `{type: exponential, base, cap}`."""
    if isinstance(value, RetryConfig):
        return value
    if not isinstance(value, Mapping):
        raise TypeError(
            f"{where} must be a RetryPolicy, a RetryConfig or a mapping with its fields, got {type(value).__name__}"
        )
    known = {"max_attempts", "classifier", "backoff", "on_retry", "per_attempt_override", "reask"}
    unknown = sorted(str(k) for k in value if k not in known)
    if unknown:
        raise ValueError(f"{where}: unknown field(s) {', '.join(unknown)}; expected some of: {', '.join(sorted(known))}")
    fields = dict(value)
    backoff = fields.get("backoff")
    if isinstance(backoff, Mapping):
        fields["backoff"] = _backoff_from(backoff, f"{where}.backoff")
    return RetryConfig(**fields)


def retry_plan(value: RetryPolicy | RetryConfig | Mapping[str, Any]) -> RetryPlan:
    """The loop's view of either record."""
    if isinstance(value, RetryPolicy):
        policy = value
        return RetryPlan(
            max_attempts=policy.max_attempts,
            retryable=lambda error, attempt: policy.retryable(error),
            delay=policy.delay,
        )
    config = retry_config(value)
    classifier = config.classifier or default_classifier
    backoff = config.backoff or exponential_backoff()
    reask = config.reask

    def retryable(error: BaseException, attempt: int) -> bool:
        if reask is not None and isinstance(error, ProviderError) and error.category == "structured_output_invalid":
            return True
        return bool(classifier(error, RetryState(attempt, config.max_attempts)))

    observer = config.on_retry

    def on_retry(retry: int, error: BaseException, delay: float) -> None:
        if observer is not None:
            observer(error, retry - 1)

    def delay(retry: int, error: BaseException) -> float:
        # the server's Retry-After is a floor: waiting less would only earn another 429
        after = _retry_after(error)
        wait = float(backoff(retry - 1))
        return after if after is not None and after > wait else wait

    return RetryPlan(
        max_attempts=config.max_attempts,
        retryable=retryable,
        delay=delay,
        on_retry=on_retry if observer is not None else None,
        overrides=tuple(_plain(o) for o in (config.per_attempt_override or ())),
        reask=reask,
    )


async def call_with_retries(
    policy: RetryPolicy | RetryConfig | RetryPlan | Mapping[str, Any],
    attempt: Callable[[int], Awaitable[T]],
    *,
    sleep: Callable[[float], Awaitable[Any]] = asyncio.sleep,
    on_retry: Callable[[int, BaseException, float], None] | None = None,
    until: float | None = None,
) -> T:
    """`await attempt(i)` for i = 0, 1, ... until it returns, an error is not retryable, or the
    attempts run out (the last error propagates). Between attempts it calls `on_retry(retry,
    error, delay)` (retry is 1-based), then `await sleep(delay)`. Cancellation propagates.

    `until` is the call's deadline on the running loop's clock (`loop.time()`): a wait that
    would end after it is not started, the error propagates at once instead."""
    plan = policy if isinstance(policy, RetryPlan) else retry_plan(policy)
    index = 0
    while True:
        try:
            return await attempt(index)
        except (asyncio.CancelledError, KeyboardInterrupt, SystemExit, GeneratorExit):
            raise
        except Exception as error:
            if index + 1 >= plan.max_attempts or not plan.retryable(error, index):
                raise
            index += 1
            delay = plan.delay(index, error)
            if until is not None and asyncio.get_running_loop().time() + delay >= until:
                raise
            if plan.on_retry is not None:
                plan.on_retry(index, error, delay)
            if on_retry is not None:
                on_retry(index, error, delay)
            if delay > 0:
                await sleep(delay)


def _backoff_from(spec: Mapping[str, Any], where: str) -> Backoff:
    kind = spec.get("type")
    try:
        if kind == "deterministic":
            return deterministic_backoff(spec.get("seconds", 0))
        if kind == "exponential":
            return exponential_backoff(spec.get("base", DEFAULT_BACKOFF_BASE), spec.get("cap", DEFAULT_BACKOFF_CAP))
    except ValueError as exc:
        raise ValueError(f"{where}: {exc}") from None
    raise ValueError(f"{where}.type: expected 'deterministic' or 'exponential', got {kind!r}")


def _check_seconds(name: str, value: Any) -> None:
    if not _is_number(value) or not value >= 0 or not math.isfinite(value):
        raise ValueError(f"{name} must be a finite number of seconds >= 0, got {value!r}")


def _retry_after(error: BaseException | None) -> float | None:
    """The server's requested wait in seconds (`ProviderError.retry_after`), if usable."""
    after: Any = getattr(error, "retry_after", None)
    if _is_number(after) and math.isfinite(after) and after >= 0:
        return float(after)
    return None


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _plain(value: Any) -> Any:
    to_dict = getattr(value, "to_dict", None)
    return to_dict() if callable(to_dict) else value

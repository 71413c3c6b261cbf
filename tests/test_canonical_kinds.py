"""The canonical results of the non-chat kinds (docs/canonical.md): EmbeddingsResponse,
GeneratedImage, ImagesResponse. `from_dict(d).to_dict() == d` on valid dicts (`raw` is always
written); any other input raises `InvalidRequestError` naming the path."""

from __future__ import annotations

import copy
from typing import Any

import pytest

import wiremap
from wiremap.runtime.canonical import (
    NOT_GIVEN,
    EmbeddingsResponse,
    GeneratedImage,
    ImagesResponse,
    InlineSource,
    UrlSource,
    Usage,
)
from wiremap.runtime.errors import InvalidRequestError

USAGE = {"prompt_tokens": 3, "completion_tokens": None, "total_tokens": 3}

VALID_EMBEDDINGS = [
    {"embeddings": [], "usage": USAGE, "raw": {}},
    {"embeddings": [[0.1, -2], [3.5]], "model": "text-embedding-3-small", "usage": USAGE, "raw": {"x": 1}},
    {"embeddings": [[]], "usage": {"prompt_tokens": None, "completion_tokens": None, "total_tokens": None}, "raw": []},
]
VALID_IMAGES = [
    {"images": [], "raw": {}},
    {
        "images": [
            {"source": {"type": "url", "url": "https://x/y.png"}, "revised_prompt": ""},
            {"source": {"type": "inline", "base64_data": "AA=="}, "media_type": "image/png"},
        ],
        "usage": {"prompt_tokens": 1, "completion_tokens": 2, "total_tokens": 3, "cached_tokens": 0},
        "raw": {"created": 1},
    },
]


@pytest.mark.parametrize("d", VALID_EMBEDDINGS)
def test_embeddings_identity(d: dict[str, Any]) -> None:
    before = copy.deepcopy(d)
    assert EmbeddingsResponse.from_dict(d).to_dict() == d
    assert d == before


@pytest.mark.parametrize("d", VALID_IMAGES)
def test_images_identity(d: dict[str, Any]) -> None:
    before = copy.deepcopy(d)
    assert ImagesResponse.from_dict(d).to_dict() == d
    assert d == before


def test_defaults_and_null_skip() -> None:
    r = EmbeddingsResponse.from_dict({"embeddings": [[1]], "model": None, "usage": USAGE})
    assert r.model is NOT_GIVEN and r.raw == {}
    assert r.to_dict() == {"embeddings": [[1]], "usage": USAGE, "raw": {}}
    i = ImagesResponse.from_dict({"images": [{"source": {"type": "url", "url": "u"}, "revised_prompt": None}], "usage": None})
    assert i.usage is NOT_GIVEN and i.images[0].revised_prompt is NOT_GIVEN
    assert i.to_dict() == {"images": [{"source": {"type": "url", "url": "u"}}], "raw": {}}


def test_typed_records() -> None:
    i = ImagesResponse.from_dict(VALID_IMAGES[1])
    assert isinstance(i.images[0].source, UrlSource) and isinstance(i.images[1].source, InlineSource)
    assert isinstance(i.images[1], GeneratedImage) and isinstance(i.usage, Usage)
    assert GeneratedImage.from_dict({"source": {"type": "url", "url": "u"}}, "images[4]").source == UrlSource("u")
    assert wiremap.EmbeddingsResponse is EmbeddingsResponse and wiremap.ImagesResponse is ImagesResponse


@pytest.mark.parametrize(
    "d, path",
    [
        ([], ""),
        ({"usage": USAGE}, "embeddings"),
        ({"embeddings": [[1]], "usage": USAGE, "extra": 1}, "extra"),
        ({"embeddings": [[1, "x"]], "usage": USAGE}, "embeddings[0][1]"),
        ({"embeddings": [[1], [True]], "usage": USAGE}, "embeddings[1][0]"),
        ({"embeddings": [[float("nan")]], "usage": USAGE}, "embeddings[0][0]"),
        ({"embeddings": ["abc"], "usage": USAGE}, "embeddings[0]"),
        ({"embeddings": [], "usage": {"prompt_tokens": -1, "completion_tokens": None, "total_tokens": 1}}, "usage.prompt_tokens"),
        ({"embeddings": []}, "usage"),
        ({"embeddings": [], "usage": USAGE, "model": 3}, "model"),
    ],
)
def test_embeddings_bad_input_names_the_path(d: Any, path: str) -> None:
    with pytest.raises(InvalidRequestError) as info:
        EmbeddingsResponse.from_dict(d)
    assert info.value.path == path, str(info.value)


@pytest.mark.parametrize(
    "d, path",
    [
        ("x", ""),
        ({}, "images"),
        ({"images": [{}]}, "images[0].source"),
        ({"images": [{"source": {"type": "file"}}]}, "images[0].source.type"),
        ({"images": [{"source": {"type": "url", "url": "u"}, "media_type": 4}]}, "images[0].media_type"),
        ({"images": [{"source": {"type": "url", "url": "u"}, "detail": "low"}]}, "images[0].detail"),
        ({"images": [], "usage": []}, "usage"),
        ({"images": [], "parsed": {}}, "parsed"),
    ],
)
def test_images_bad_input_names_the_path(d: Any, path: str) -> None:
    with pytest.raises(InvalidRequestError) as info:
        ImagesResponse.from_dict(d)
    assert info.value.path == path, str(info.value)


@pytest.mark.parametrize("option", [{"input_type": "search_query"}, {"dimensions": 256}, {"encoding_format": "float"}])
@pytest.mark.parametrize("key", [k for k in wiremap.formats() if wiremap.get_format(k).kind != "embeddings"])
def test_chat_and_images_formats_refuse_the_embeddings_options(key: str, option: dict[str, Any]) -> None:
    # no chat or images row sends them: a request that sets one is refused at its path, never
    # written without it (the same request goes to an embeddings format as asked)
    (name,) = option
    request = {"model": "m", "messages": [{"role": "user", "content": "a cat"}], "config": option}
    with pytest.raises(InvalidRequestError, match=f"{name} is an embeddings option") as info:
        wiremap.get_format(key).request_to_wire(copy.deepcopy(request))
    assert info.value.path == f"config.{name}"
    body = wiremap.get_format("cohere_embed").request_to_wire(copy.deepcopy(request))
    assert {"input_type": "input_type", "dimensions": "output_dimension", "encoding_format": "embedding_types"}[name] in body


def test_a_base64_embeddings_answer_reads_and_writes_back_as_it_came() -> None:
    # the same format in and out is the identity: a response read from base64 vectors is written
    # back as base64 when no request says otherwise (recorded: openai_embeddings.jsonl:2); an
    # explicit encoding still decides, and a float answer stays float
    import base64
    import struct

    import wiremap

    vector = [0.5, -1.25, 3.0]
    b64 = base64.b64encode(struct.pack("<3f", *vector)).decode()
    openai = wiremap.get_format("openai_embeddings")
    body = {"object": "list", "data": [{"object": "embedding", "index": 0, "embedding": b64}], "model": "m",
            "usage": {"prompt_tokens": 1, "total_tokens": 1}}
    assert openai.response_to_wire(openai.response_from_wire(body)) == body
    assert openai.response_to_wire(openai.response_from_wire(body), encoding_format="float")["data"][0]["embedding"] == vector
    floats = {**body, "data": [{"object": "embedding", "index": 0, "embedding": vector}]}
    assert openai.response_to_wire(openai.response_from_wire(floats)) == floats
    cohere = wiremap.get_format("cohere_embed")
    by_type = {"id": "e1", "response_type": "embeddings_by_type", "embeddings": {"base64": [b64]}, "texts": ["hi"]}
    assert cohere.response_to_wire(cohere.response_from_wire(by_type))["embeddings"] == {"base64": [b64]}


def _task_formats(kind: str) -> list[str]:
    from wiremap.generated._index import FORMATS

    return sorted(k for k in FORMATS if wiremap.get_format(k).kind == kind)


@pytest.mark.parametrize("key", _task_formats("embeddings") + _task_formats("images"))
def test_task_results_carry_what_no_table_reads(key: str) -> None:
    """An embeddings or images answer's fields no table reads (Cohere's `meta.api_version`, a
    field a provider adds tomorrow) are carried: the same format writes them back (through the
    canonical dict form too), and a translation to another provider's wire names each one
    `dropped` at its wire path instead of losing it without a word."""
    fmt = wiremap.get_format(key)
    if fmt.kind == "embeddings":
        canonical: Any = EmbeddingsResponse([[0.5, -0.25]], Usage(prompt_tokens=3, total_tokens=3), "m")
    else:
        canonical = ImagesResponse([GeneratedImage(UrlSource("https://example.com/a.png"))])
    body = dict(fmt.response_to_wire(canonical))
    body["x_unmodelled"] = {"tier": "flex", "n": [1, 2]}
    read = fmt.response_from_wire(body)
    assert read.carried is not None
    assert fmt.response_to_wire(read) == body
    again = type(read).from_dict(read.to_dict())
    assert again == read and fmt.response_to_wire(again) == body
    others = [k for k in _task_formats(fmt.kind) if wiremap.get_format(k).provider != fmt.provider]
    for other in others:
        losses = wiremap.translate_response(body, key, other).losses
        assert any(loss.path == "x_unmodelled" and loss.kind == "dropped" for loss in losses), (other, losses)


def test_a_cohere_answer_keeps_its_api_version() -> None:
    cohere = wiremap.get_format("cohere_embed")
    body = {"id": "e1", "embeddings": {"float": [[0.1, 0.2]]}, "texts": ["hi"], "response_type": "embeddings_by_type",
            "meta": {"api_version": {"version": "2"}, "billed_units": {"input_tokens": 1}}}
    assert cohere.response_to_wire(cohere.response_from_wire(body)) == body
    losses = wiremap.translate_response(body, "cohere_embed", "openai_embeddings").losses
    # the carried field, and the envelope values OpenAI's answer has no field for
    assert [(loss.path, loss.kind) for loss in losses] == [("meta.api_version", "dropped"), ("id", "dropped"), ("texts", "dropped")]

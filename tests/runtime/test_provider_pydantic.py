"""`response_schema=` given as a pydantic v2 model class: its JSON Schema is sent, `parsed` is an
instance, a value the model refuses is `StructuredOutputInvalidError` (and reask can fix it)."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel, field_validator

import wiremap
from loopback import Reply, Seen, openai_body

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "stream"))
from recorded import _chunk, sse  # noqa: E402

KEY = "sk-test-0123456789"
ASK = [{"role": "user", "content": "Generate a person record."}]


class Person(BaseModel):
    name: str
    age: int
    tags: list[str] = []

    @field_validator("age")
    @classmethod
    def _adult(cls, value: int) -> int:  # a rule JSON Schema cannot state: only pydantic checks it
        if value < 18:
            raise ValueError("must be 18 or more")
        return value


def _provider(url: str, **kw: Any) -> wiremap.Provider:
    return wiremap.Provider("openai_chat", model="gpt-test", api_key=KEY, base_url=url, **kw)


def test_the_model_schema_is_sent_and_parsed_is_an_instance(serve: Any) -> None:
    server = serve(lambda seen: Reply(200, openai_body('{"name":"Ada","age":36}')))

    async def main() -> Any:
        async with _provider(server.url) as p:
            return await p.complete(ASK, response_schema=Person)

    response = asyncio.run(main())
    assert isinstance(response.parsed, Person)
    assert response.parsed == Person(name="Ada", age=36)
    assert response.parsed_as(Person).age == 36  # typed for mypy: a Person
    with pytest.raises(wiremap.StructuredOutputInvalidError, match="the parsed value is a Person, not a dict"):
        response.parsed_as(dict)
    assert response.message.content == '{"name":"Ada","age":36}'  # verbatim
    sent = server.requests[0].json()["response_format"]["json_schema"]
    # OpenAI structured outputs (platform.openai.com/docs/api-reference/chat/create,
    # response_format.json_schema): the model's schema, its key order kept
    expected = Person.model_json_schema()
    assert sent["name"] and list(sent["schema"]) == list(expected)
    assert sent["schema"]["properties"] == expected["properties"]


def test_a_value_the_model_refuses_is_structured_output_invalid(serve: Any) -> None:
    server = serve(lambda seen: Reply(200, openai_body('{"name":"Tim","age":9}')))

    async def main() -> None:
        async with _provider(server.url) as p:
            with pytest.raises(wiremap.StructuredOutputInvalidError) as info:
                await p.complete(ASK, response_schema=Person)
            error = info.value
            assert "Person" in str(error) and "/age" in error.error_message
            assert "18 or more" in error.error_message
            assert error.output_content == '{"name":"Tim","age":9}'
            assert error.response_schema == Person.model_json_schema()
            assert error.finish_reason == "stop" and error.usage.prompt_tokens == 11
            assert not error.transient

    asyncio.run(main())


def test_reask_corrects_a_refused_value(serve: Any) -> None:
    answers = iter(['{"name":"Tim","age":9}', '{"name":"Tim","age":19}'])
    server = serve(lambda seen: Reply(200, openai_body(next(answers))))
    builder_calls: list[tuple[Any, str]] = []

    def reask(output: Any, message: str) -> str:
        builder_calls.append((output, message))
        return f"Fix: {message}"

    async def main() -> Any:
        async with _provider(server.url) as p:
            return await p.complete(ASK, response_schema=Person, retry={"max_attempts": 2, "reask": reask, "backoff": {"type": "deterministic", "seconds": 0}})

    response = asyncio.run(main())
    assert response.parsed == Person(name="Tim", age=19)
    # the builder ran once (not after the last attempt), with the refused output and the reason
    assert len(builder_calls) == 1
    assert builder_calls[0][0] == '{"name":"Tim","age":9}' and "18 or more" in builder_calls[0][1]
    appended = server.requests[1].json()["messages"][1:]
    assert appended == [
        {"role": "assistant", "content": '{"name":"Tim","age":9}'},
        {"role": "user", "content": f"Fix: {builder_calls[0][1]}"},
    ]


def test_a_stream_parses_into_the_model(serve: Any) -> None:
    body = sse(
        [
            _chunk({"role": "assistant", "content": '{"name":"Ada",'}),
            _chunk({"content": '"age":36}'}),
            _chunk({}, "stop"),
            _chunk(None, usage={"prompt_tokens": 5, "completion_tokens": 9, "total_tokens": 14}),
            "[DONE]",
        ]
    )
    server = serve(lambda seen: Reply(200, body, content_type="text/event-stream"))

    async def main() -> Any:
        async with _provider(server.url) as p:
            stream = p.stream(ASK, response_schema=Person)
            async for _event in stream:
                pass
            return stream.response

    response = asyncio.run(main())
    assert response.parsed == Person(name="Ada", age=36)


def test_a_class_that_is_not_a_model_is_refused_before_sending(serve: Any) -> None:
    server = serve(lambda seen: Reply(500, {}))

    class NotAModel:
        @staticmethod
        def model_json_schema() -> dict[str, Any]:
            return {"type": "object"}

        @staticmethod
        def model_validate(value: Any) -> Any:
            return value

    async def main() -> None:
        async with _provider(server.url) as p:
            with pytest.raises(wiremap.InvalidRequestError, match="pydantic model class") as info:
                await p.complete(ASK, response_schema=NotAModel)
            assert info.value.path == "response_schema"

    asyncio.run(main())
    assert server.requests == []


def test_a_dict_schema_does_not_import_pydantic(tmp_path: Path) -> None:
    here = Path(__file__).resolve().parent
    script = f"""
import asyncio, json, sys
sys.path.insert(0, {str(here)!r})
import wiremap
from loopback import LoopbackServer, Reply, openai_body

schema = {{"type": "object", "properties": {{"n": {{"type": "integer"}}}}, "required": ["n"]}}
with LoopbackServer(lambda seen: Reply(200, openai_body('{{"n": 1}}'))) as server:
    async def main():
        async with wiremap.Provider("openai_chat", model="m", api_key="sk-x-1234", base_url=server.url) as p:
            return await p.complete([{{"role": "user", "content": "n?"}}], response_schema=schema)
    r = asyncio.run(main())
print(json.dumps([r.parsed, "pydantic" in sys.modules]))
"""
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == [{"n": 1}, False]

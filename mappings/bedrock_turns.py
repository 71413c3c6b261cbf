"""Bedrock Converse: user and assistant turns alternate (mappings/README.md "strategies").

api (Converse, Message): "the conversation must alternate between user and assistant roles";
a run of tool results grouped into one user turn followed by the user's next text is two user
turns, so consecutive turns of one role are merged into one turn holding their blocks in order.
"""

from typing import Any


def merge_turns(body: dict[str, Any]) -> dict[str, Any]:
    """Consecutive turns of one role become one turn holding their content blocks in order."""
    merged: list[dict[str, Any]] = []
    for message in body.get("messages", []):
        if merged and merged[-1]["role"] == message["role"] and message["role"] in ("user", "assistant"):
            merged[-1] = {**merged[-1], "content": [*merged[-1]["content"], *message["content"]]}
        else:
            merged.append(message)
    return {**body, "messages": merged}

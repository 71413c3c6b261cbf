"""A real MCP server for the wiremap.tools tests (the official `mcp` SDK's MCPServer).

    python mcp_server.py stdio
    python mcp_server.py http PORT      (streamable HTTP at http://127.0.0.1:PORT/mcp)
"""

from __future__ import annotations

import base64
import sys

from mcp.server.mcpserver import Image, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import ToolAnnotations

# a 1x1 red PNG
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
)

server = MCPServer("wiremap-test")


@server.tool(annotations=ToolAnnotations(read_only_hint=True, title="Weather"))
def get_weather(city: str, api_key: str, units: str = "metric") -> str:
    """The weather in a city."""
    if api_key != "secret-key":
        raise ToolError("bad api key")
    return f"{city}: 21 degrees ({units})"


@server.tool(name="files.read")
def files_read(path: str) -> str:
    """Read a file (an MCP name with a dot)."""
    return f"contents of {path}"


@server.tool()
def fail(reason: str) -> str:
    """Always fails."""
    raise ToolError(f"failed: {reason}")


@server.tool(structured_output=False)
def chart(title: str):  # type: ignore[no-untyped-def]
    """A chart: a caption and a PNG image."""
    return [f"chart {title}", Image(data=PNG, format="png")]


if __name__ == "__main__":
    if sys.argv[1] == "stdio":
        server.run("stdio")
    else:
        server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))

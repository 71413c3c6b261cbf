"""wiremap.runtime: the hand-written, stdlib-only runtime (docs/design.md).

Re-exports the canonical model, the error classes and request validation; `wiremap` re-exports
everything listed in `__all__`. Extend by appending imports and `__all__ +=` lines.
"""

from __future__ import annotations

from . import canonical as _canonical
from . import errors as _errors
from . import validate as _validate
from .canonical import *  # noqa: F401,F403
from .errors import *  # noqa: F401,F403
from .validate import *  # noqa: F401,F403

__all__: list[str] = []
__all__ += _canonical.__all__
__all__ += _errors.__all__
__all__ += _validate.__all__

from . import format as _format  # noqa: E402
from .format import *  # noqa: E402,F401,F403

__all__ += _format.__all__

from . import provider as _provider  # noqa: E402
from .provider import *  # noqa: E402,F401,F403

__all__ += _provider.__all__

from . import translate as _translate  # noqa: E402
from .translate import *  # noqa: E402,F401,F403

__all__ += _translate.__all__

from . import wire_rules as _wire_rules  # noqa: E402
from .wire_rules import WireChange, WireMap, WireRepairWarning  # noqa: E402,F401

__all__ += ["WireChange", "WireMap", "WireRepairWarning"]

from . import stream as _stream  # noqa: E402
from .stream import StreamAssembler, StreamEmitter, StreamParser, StreamTranslation, parse_stream, stream_request_to_wire, translate_stream  # noqa: E402,F401

__all__ += ["StreamAssembler", "StreamEmitter", "StreamParser", "StreamTranslation", "parse_stream", "stream_request_to_wire", "translate_stream"]

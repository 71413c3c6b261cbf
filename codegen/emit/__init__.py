"""Stage 3, emit: the IR written as Python and documents. `emitter` turns templates into
straight-line code, `messages`/`errors`/`stream`/`fused` write the converter's functions, the
jinja2 `templates/` lay the modules out; `share` keeps a dialect's module to what differs;
`fixtures`, `wire_schema` and `compat_matrix` write the tests, the wire types and
COMPATIBILITY.md."""

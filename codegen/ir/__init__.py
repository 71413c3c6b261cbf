"""Stage 2, IR: every decision about a format, made once (`chat.build_ir` -> `FormatIR`, typed
by section). `catalog` says which canonical fields a template context may name; `wire_path`
reads the wire paths the tables write."""

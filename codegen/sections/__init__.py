"""The mapping sections with rules of their own, each one module with a hook per stage (Kaitai's
split): its JSON Schema (read by load/schema.py), its IR builder (called by ir/chat.py) and
its emitter (called by emit/ and generate.py): `usage`, `reasoning`, `wire_rules`, `stream`,
`items` (item lists), `transport_rows`, `strategies` (a mapping's own Python functions), and
`task` (the non-chat kinds, a pipeline of their own)."""

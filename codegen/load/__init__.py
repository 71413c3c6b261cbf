"""Stage 1, load: mapping files read strictly with the line of every node (`source`), `extends:`
resolved and the result validated against the mapping JSON Schema (`resolve`, `schema`). What
comes out is a `Resolved` mapping whose every value still knows its file:line."""

"""Stage 4, check: a rendered converter is run in memory on one probe per row before it is
written (`prove`); a row that does not read back as itself is a MappingError at its file:line."""

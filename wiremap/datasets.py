"""Dataset files for `wiremap convert`: JSONL, Parquet, and Hugging Face `datasets` folders.

pyarrow is imported only when a Parquet or Arrow file is read or written (the `datasets` extra:
`pip install 'wiremap[datasets]'`). A Hugging Face dataset is read through its files: a folder
written by `Dataset.save_to_disk` (Arrow IPC streams listed in its `state.json`) or a folder of
Parquet files, as on the Hub (`*.parquet`, read in name order). Rows are numbered from 1 in file
order, as JSONL lines are, so reject records, `--resume` and every engine count the same way.

A Parquet output holds one string column (`record`, or `--field`'s name) of compact JSON, one row
per translated record: wire records mix types within one field (`content` is a string in one
message and a list of parts in the next), which one Arrow schema cannot hold. Read it back with
`json.loads` per row, DuckDB's JSON functions, or `datasets.load_dataset("parquet", ...)`.
"""

from __future__ import annotations

import importlib
import json
import os
from collections.abc import Iterator
from typing import Any

__all__ = [
    "FORMATS", "infer_format", "read_records", "record_of_row", "MissingField", "count_records", "write_parquet",
    "DatasetFormatError",
]

FORMATS = ("jsonl", "parquet")

#: Rows read from Parquet at a time: memory stays flat whatever the file size.
_ROWS_PER_READ = 4096


class DatasetFormatError(ValueError):
    """A dataset file that cannot be read or written as asked; the message names the file."""


def _pyarrow(module: str = "pyarrow") -> Any:
    try:
        return importlib.import_module(module)
    except ImportError:
        raise DatasetFormatError(
            "Parquet and Arrow files need pyarrow: pip install 'wiremap[datasets]'"
        ) from None


def infer_format(path: str) -> str:
    """`parquet` for a `.parquet`/`.pq` file or a folder (a Hugging Face dataset), else `jsonl`."""
    if path != "-" and (path.lower().endswith((".parquet", ".pq")) or os.path.isdir(path)):
        return "parquet"
    return "jsonl"


def _files(path: str) -> list[tuple[str, str]]:
    """(kind, file) for each data file of `path`, in order: `parquet` or `arrow` (an IPC stream)."""
    if not os.path.isdir(path):
        return [("parquet", path)]
    state = os.path.join(path, "state.json")
    if os.path.isfile(state):  # Dataset.save_to_disk
        try:
            with open(state, encoding="utf-8") as fh:
                names = [entry["filename"] for entry in json.load(fh)["_data_files"]]
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise DatasetFormatError(f"{state}: not a Hugging Face dataset state file ({exc})") from None
        return [("arrow", os.path.join(path, name)) for name in names]
    found = sorted(
        os.path.join(root, name)
        for root, _dirs, names in os.walk(path)
        for name in names
        if name.lower().endswith((".parquet", ".pq"))
    )
    if not found:
        raise DatasetFormatError(f"{path}: a folder with neither a state.json (save_to_disk) nor Parquet files")
    return [("parquet", f) for f in found]


def count_records(path: str) -> int | None:
    """The number of rows, from the files' metadata (None when it is not cheap to know)."""
    if path == "-":
        return None
    pq = _pyarrow("pyarrow.parquet")
    total = 0
    for kind, name in _files(path):
        if kind != "parquet":
            return None
        try:
            total += int(pq.ParquetFile(name).metadata.num_rows)
        except (OSError, ValueError) as exc:
            raise DatasetFormatError(f"{name}: not a Parquet file ({exc})") from None
    return total


def _batches(kind: str, name: str) -> Iterator[Any]:
    pa = _pyarrow()
    try:
        if kind == "arrow":
            with pa.memory_map(name) as source:
                reader = pa.ipc.open_stream(source)
                yield from reader
        else:
            pq = _pyarrow("pyarrow.parquet")
            yield from pq.ParquetFile(name).iter_batches(batch_size=_ROWS_PER_READ)
    except (OSError, pa.ArrowInvalid) as exc:
        raise DatasetFormatError(f"{name}: not a readable {'Arrow' if kind == 'arrow' else 'Parquet'} file ({exc})") from None


def read_records(path: str, field: str | None, skip: int = 0) -> Iterator[tuple[int, Any]]:
    """(row number, record) for every row after the first `skip`; see
    `record_of_row` for what a row's record is."""
    number = 0
    for kind, name in _files(path):
        for batch in _batches(kind, name):
            if number + batch.num_rows <= skip:
                number += batch.num_rows
                continue
            for row in batch.to_pylist():
                number += 1
                if number > skip:
                    yield number, record_of_row(row, field)


def write_parquet(jsonl_path: str, out_path: str, column: str) -> None:
    """The lines of `jsonl_path` as rows of one string column of `out_path`, in order."""
    pa = _pyarrow()
    pq = _pyarrow("pyarrow.parquet")
    schema = pa.schema([pa.field(column, pa.string(), nullable=False)])
    tmp = out_path + ".tmp"
    with pq.ParquetWriter(tmp, schema) as writer, open(jsonl_path, encoding="utf-8") as fh:
        rows: list[str] = []
        for line in fh:
            rows.append(line.rstrip("\n"))
            if len(rows) >= _ROWS_PER_READ:
                writer.write_table(pa.table({column: rows}, schema=schema))
                rows = []
        if rows:
            writer.write_table(pa.table({column: rows}, schema=schema))
    os.replace(tmp, out_path)


def record_of_row(row: Any, field: str | None) -> Any:
    """A table row -> the record it holds: the row itself (its columns are the record's keys,
    null ones left out, as Parquet cannot tell a null field from a missing one), or with
    `field` the row's `field` value: an object is the record, a list becomes `{field: list}`
    (`--field messages` over a column of conversations), a string is JSON text."""
    if field is not None:
        if not isinstance(row, dict):
            return row
        if field not in row:
            return MissingField(field, sorted(row))
        value = row[field]
        if isinstance(value, (bytes, str)):
            return value
        if isinstance(value, list):
            return {field: _drop_nulls(value)}
        return _drop_nulls(value)
    return _drop_nulls(row)


class MissingField:
    """A row without the `--field` column: its reject names the columns it has."""

    def __init__(self, field: str, columns: list[str]) -> None:
        self.field, self.columns = field, columns


def _drop_nulls(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _drop_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_drop_nulls(v) for v in value]
    return value

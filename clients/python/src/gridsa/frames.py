"""Answers as DataFrames: the same frame from JSON records or from CSV text.

The index is the records' stamp, tz-aware: ``ts`` (the hour beginning) converted to the request's
zone, or ``date`` (a period's first day) at 00:00 in it. Number fields are float64 (counts too, so
a missing value is NaN), in the order the service serves them; a nested object (grid stress
``components``) becomes ``components.<name>`` columns, as in the service's CSV; ``date-time``
strings (``issued_at``) become tz-aware timestamps; other strings stay strings, None where missing.
"""

from __future__ import annotations

import csv
import io
import math
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence

import pandas as pd

#: What the catalog says of a field: its JSON type and format.
FieldTypes = Mapping[str, Mapping[str, Any]]

STAMPS = ("ts", "date")


def _flatten(record: Mapping[str, Any]) -> Dict[str, Any]:
    out: Dict[str, Any] = {}
    for name, value in record.items():
        if isinstance(value, Mapping):
            for member, inner in value.items():
                out[f"{name}.{member}"] = inner
        else:
            out[name] = value
    return out


def _is_text(name: str, types: FieldTypes) -> bool:
    return types.get(name, {}).get("type") == "string"


def _number(value: Any) -> float:
    if value is None or value == "":
        return math.nan
    return float(value)


def _column(name: str, values: Sequence[Any], types: FieldTypes, tz: str) -> pd.Series:
    field = types.get(name, {})
    if field.get("format") == "date-time":
        stamps = pd.to_datetime([None if v in (None, "") else v for v in values], utc=True)
        return pd.Series(stamps.tz_convert(tz), name=name)
    if _is_text(name, types) or (
        name not in types and any(isinstance(v, str) and v != "" and not _numeric(v) for v in values)
    ):
        return pd.Series([None if v in (None, "") else v for v in values], name=name, dtype="object")
    return pd.Series([_number(v) for v in values], name=name, dtype="float64")


def _numeric(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def frame(rows: List[Dict[str, Any]], columns: Sequence[str], types: FieldTypes, tz: str) -> pd.DataFrame:
    """A frame of flat rows (values as JSON or CSV gives them) with `columns`, the stamp first."""
    stamp, values = columns[0], list(columns[1:])
    data = {name: _column(name, [row.get(name) for row in rows], types, tz) for name in values}
    raw = [row.get(stamp) for row in rows]
    if stamp == "ts":
        index = pd.DatetimeIndex(pd.to_datetime(raw, utc=True)).tz_convert(tz)
    else:
        index = pd.DatetimeIndex(pd.to_datetime(raw)).tz_localize(tz)
    index.name = stamp
    df = pd.DataFrame({name: series.to_numpy() for name, series in data.items()}, index=index, columns=values)
    for name, series in data.items():
        df[name] = df[name].astype(series.dtype)
    return df


def from_records(records: Iterable[Mapping[str, Any]], fallback: Sequence[str], types: FieldTypes, tz: str) -> pd.DataFrame:
    """The frame of JSON records; `fallback` names the columns when there is no record."""
    rows = [_flatten(record) for record in records]
    columns = list(rows[0].keys()) if rows else list(fallback)
    return frame(rows, columns, types, tz)


def from_csv(text: str, types: FieldTypes, tz: str) -> pd.DataFrame:
    """The frame of the service's CSV (a header row, the stamp first, empty cells for nulls)."""
    reader = csv.reader(io.StringIO(text))
    header = next(reader, None)
    if header is None:
        raise ValueError("the CSV answer is empty: not even a header")
    rows = [dict(zip(header, line)) for line in reader if line]
    return frame(rows, header, types, tz)


def expected_columns(fields: Optional[Sequence[Mapping[str, Any]]]) -> List[str]:
    """The columns a dataset's fields give, objects flattened as the CSV writes them."""
    columns: List[str] = []
    for field in fields or []:
        if field.get("optional"):
            continue
        if field.get("type") == "object":
            columns.extend(f"{field['name']}.{member['name']}" for member in field.get("properties", []))
        else:
            columns.append(field["name"])
    return columns or ["ts"]


def field_types(fields: Optional[Sequence[Mapping[str, Any]]]) -> Dict[str, Mapping[str, Any]]:
    """Each field's description by column name, members of objects included."""
    types: Dict[str, Mapping[str, Any]] = {}
    for field in fields or []:
        types[field["name"]] = field
        for member in field.get("properties", []) or []:
            types[f"{field['name']}.{member['name']}"] = member
    return types

"""Instants as the client takes them (dates, ``datetime``, ``pd.Timestamp``, ISO strings) and the
windows a long range is asked in."""

from __future__ import annotations

import datetime as dt
from typing import Iterator, Tuple, Union

import pandas as pd

TimeLike = Union[str, dt.date, dt.datetime, pd.Timestamp]

ZONES = ("UTC", "Africa/Johannesburg")


def instant(value: TimeLike, tz: str) -> pd.Timestamp:
    """The instant ``value`` names, tz-aware. A date, a bare ``YYYY-MM-DD`` and a naive date-time
    mean that wall clock in ``tz`` (as the API reads a bare date); an aware one is kept as it is."""
    if isinstance(value, str):
        text = value.strip()
        stamp = pd.Timestamp(text)
    elif isinstance(value, pd.Timestamp):
        stamp = value
    elif isinstance(value, dt.datetime):
        stamp = pd.Timestamp(value)
    elif isinstance(value, dt.date):
        stamp = pd.Timestamp(value.isoformat())
    else:
        raise TypeError(f"not a date or time: {value!r}")
    if stamp is pd.NaT:
        raise ValueError(f"not a date or time: {value!r}")
    return stamp.tz_localize(tz) if stamp.tzinfo is None else stamp


def iso(stamp: pd.Timestamp) -> str:
    """The instant as the API takes it: ISO 8601 with its offset (``Z`` for UTC)."""
    utc = stamp.tz_convert("UTC")
    text = utc.strftime("%Y-%m-%dT%H:%M:%S")
    if utc.microsecond:
        text += f".{utc.microsecond // 1000:03d}"
    return text + "Z"


def windows(start: pd.Timestamp, end: pd.Timestamp, days: int) -> Iterator[Tuple[pd.Timestamp, pd.Timestamp]]:
    """``[start, end)`` in consecutive windows of at most ``days`` days (each record's beginning
    lies in exactly one)."""
    step = pd.Timedelta(days=days)
    at = start
    while at < end:
        upto = min(at + step, end)
        yield at, upto
        at = upto

"""The client: the service's datasets as pandas DataFrames, whole histories included, with the
waiting its limits ask for done for you."""

from __future__ import annotations

import os
import time
import warnings
from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional, Sequence, Union

import pandas as pd
import requests

from .errors import BadRequestError, SampleDataWarning
from .frames import expected_columns, field_types, from_csv, from_records
from .times import ZONES, TimeLike, instant, iso, windows
from .transport import Transport

#: The longest span of one JSON answer, in days: 366 at 1h, 7,320 at a day or longer.
JSON_DAYS = {"1h": 366, "period": 7320}
#: The longest span of one streamed (CSV) answer at 1h, in days.
STREAM_DAYS = 7320
#: The longest range of the forecast's ``issues=all`` at 1h, in days.
ALL_ISSUES_DAYS = 31

FORECAST = "forecasts.demand"
OUTLOOK = "features.load_shedding_outlook"
GRID_STRESS = "features.grid_stress_index"
#: The kinds of dataset read from stored hours (the catalog's ``kind``): they stream long ranges.
HOURLY_KINDS = ("readings", "computed")


class Client:
    """A connection to one Grid Data Service.

    ``url`` and ``api_key`` default to the environment's ``GDS_URL`` and ``GDS_KEY``. ``max_wait``
    bounds the seconds one call may spend waiting on the server's limits and outages before it
    raises; ``retries`` bounds the retries of connection errors and 502/503/504.
    """

    def __init__(
        self,
        url: Optional[str] = None,
        api_key: Optional[str] = None,
        *,
        max_wait: float = 120.0,
        retries: int = 5,
        timeout: float = 300.0,
        sleep: Callable[[float], None] = time.sleep,
        session: Optional[requests.Session] = None,
    ) -> None:
        url = os.environ.get("GDS_URL") if url is None else url
        api_key = os.environ.get("GDS_KEY") if api_key is None else api_key
        if not url:
            raise ValueError("no service URL: pass url= or set GDS_URL (e.g. http://127.0.0.1:8000)")
        if not api_key:
            raise ValueError("no API key: pass api_key= or set GDS_KEY (make one in the dashboard)")
        self._http = Transport(
            url, api_key, max_wait=max_wait, retries=retries, timeout=timeout, sleep=sleep, session=session
        )
        self._catalog: Optional[Dict[str, Any]] = None

    def __repr__(self) -> str:
        return f"Client(url={self._http.url!r})"

    def close(self) -> None:
        """Closes the session's connections."""
        self._http.session.close()

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # The catalog --------------------------------------------------------------------------------

    def catalog(self, refresh: bool = False) -> Dict[str, Any]:
        """The service's ``/api/v1/datasets`` answer, as JSON (read once, then kept)."""
        if self._catalog is None or refresh:
            self._catalog = self._http.get("/api/v1/datasets", {}).json()
        return self._catalog

    def datasets(self) -> pd.DataFrame:
        """Every dataset: its path, intervals, fields with units, aggregates, your limit, and the
        hours the store holds (for the datasets of hourly readings)."""
        catalog = self.catalog(refresh=True)
        coverage = catalog.get("coverage", {})
        rows = []
        for d in catalog["datasets"]:
            fields = [f for interval in d["fields"].values() for f in interval]
            hourly = d.get("kind", "readings") in HOURLY_KINDS
            rows.append(
                {
                    "dataset": d["id"],
                    "path": d["path"],
                    "description": d["description"],
                    "intervals": list(d["intervals"]),
                    "fields": list(dict.fromkeys(f["name"] for f in fields)),
                    "units": {f["name"]: f["unit"] for f in fields if f.get("unit")},
                    "aggregates": {f["name"]: f["aggregates"] for f in fields if f.get("aggregates")},
                    "formats": list(d.get("formats", [])),
                    "limit_per_minute": d["limit"]["requests"],
                    "first_hour": pd.Timestamp(coverage["first_hour"]) if hourly and coverage.get("first_hour") else pd.NaT,
                    "last_hour": pd.Timestamp(coverage["last_hour"]) if hourly and coverage.get("last_hour") else pd.NaT,
                }
            )
        return pd.DataFrame(rows).set_index("dataset")

    def _dataset(self, dataset: str) -> Dict[str, Any]:
        for d in self.catalog()["datasets"]:
            if dataset in (d["id"], d["path"]):
                return d
        known = ", ".join(d["id"] for d in self.catalog()["datasets"])
        raise ValueError(f"no dataset {dataset!r}: the service has {known}")

    # Records ------------------------------------------------------------------------------------

    def get(
        self,
        dataset: str,
        start: TimeLike,
        end: TimeLike,
        interval: Optional[str] = None,
        tz: Optional[str] = None,
        agg: Optional[str] = None,
        columns: Optional[Sequence[str]] = None,
        as_of: Optional[TimeLike] = None,
        **params: Any,
    ) -> pd.DataFrame:
        """The records of ``dataset`` (its id, e.g. ``"generation.mix"``, or its path) in
        ``[start, end)`` as a DataFrame indexed by a tz-aware DatetimeIndex (UTC, or SAST with
        ``tz="Africa/Johannesburg"``). ``start`` and ``end`` may be dates, datetimes, Timestamps
        or ISO strings; a date or a naive time is read in ``tz``. Any length: a range longer than
        one JSON answer may hold is asked as one CSV stream (or several JSON answers where the
        dataset has no stream), and gives the same frame. ``df.attrs["meta"]`` is the answer's
        ``meta``; ``df.attrs["sample"]`` is True, with a SampleDataWarning, for generated data."""
        d = self._dataset(dataset)
        zone = tz or "UTC"
        if zone not in ZONES:
            raise ValueError(f"tz must be one of {', '.join(ZONES)}, not {tz!r}")
        interval = interval or d["intervals"][0]
        query = {k: _text(v) for k, v in params.items() if v is not None}
        if tz is not None:
            query["tz"] = tz
        if agg is not None:
            query["agg"] = agg
        if columns is not None:
            query["columns"] = ",".join(columns)
        if as_of is not None:
            query["as_of"] = iso(instant(as_of, zone))
        query["interval"] = interval
        begin, until = instant(start, zone), instant(end, zone)
        if until <= begin:
            raise BadRequestError("'end' must be after 'start'; the range is [start, end).", error="bad_request")
        return self._records(d, begin, until, interval, zone, query)

    def latest(self, dataset: str, hours: int = 24, tz: Optional[str] = None, **params: Any) -> pd.DataFrame:
        """The newest ``hours`` hourly records of ``dataset``, wherever they end."""
        d = self._dataset(dataset)
        zone = tz or "UTC"
        query = {"hours": str(hours), **{k: _text(v) for k, v in params.items() if v is not None}}
        if tz is not None:
            query["tz"] = tz
        body = self._http.get(d["path"] + "/latest", query).json()
        meta = dict(body["meta"])
        return _marked(self._frame(d, body, "1h", zone, query), meta, bool(meta.get("sample")), stacklevel=3)

    def grid_stress(
        self,
        start: TimeLike,
        end: TimeLike,
        interval: str = "1h",
        components: bool = True,
        version: Optional[str] = None,
        **kwargs: Any,
    ) -> pd.DataFrame:
        """The grid-stress index (``features.grid_stress_index``), with its components as
        ``components.<name>`` columns unless ``components=False``; ``version`` ``"v2"`` (the
        service's default) or ``"v1"``."""
        return self.get(
            GRID_STRESS, start, end, interval, components=components or None, version=version, **kwargs
        )

    def forecast(
        self,
        start: TimeLike,
        end: TimeLike,
        interval: str = "1h",
        issues: str = "latest",
        as_of: Optional[TimeLike] = None,
    ) -> pd.DataFrame:
        """Eskom's 3-month demand forecast by target hour, with ``issued_at`` (when each issue was
        first seen) as a column: the newest issue of each hour (``issues="latest"``), or every
        issue (``issues="all"``, oldest first within an hour), as it stood at ``as_of``."""
        if issues not in ("latest", "all"):
            raise ValueError(f"issues must be 'latest' or 'all', not {issues!r}")
        return self.get(FORECAST, start, end, interval, as_of=as_of, issues=issues)

    def outlook(
        self,
        interval: str = "1h",
        tz: Optional[str] = None,
        as_of: Optional[TimeLike] = None,
    ) -> pd.DataFrame:
        """The load-shedding outlook (``features.load_shedding_outlook``): for every hour from the
        one after the newest hour with an actual load-reduction value to 168 hours after it is
        issued, ``probability`` (the chance of load reduction), ``lead_h`` and ``band``; per day
        (``interval="1d"``) the chance of any and ``expected_hours``. Issued now, or as it would
        have been issued at ``as_of``. Stamps are SAST unless ``tz="UTC"``; ``df.attrs["meta"]``
        says when it was issued, the hour it started from and what it read."""
        d = self._dataset(OUTLOOK)
        zone = tz or "Africa/Johannesburg"
        if zone not in ZONES:
            raise ValueError(f"tz must be one of {', '.join(ZONES)}, not {tz!r}")
        if interval not in ("1h", "1d"):
            raise ValueError(f"interval must be '1h' or '1d', not {interval!r}")
        query = {"interval": interval, "tz": zone, "format": "json"}
        if as_of is not None:
            query["as_of"] = iso(instant(as_of, zone))
        body = self._http.get(d["path"], query).json()
        meta = dict(body["meta"])
        return _marked(self._frame(d, body, interval, zone, query), meta, bool(meta.get("sample")), stacklevel=3)

    # How a range is asked -----------------------------------------------------------------------

    def _records(
        self,
        d: Mapping[str, Any],
        start: pd.Timestamp,
        end: pd.Timestamp,
        interval: str,
        zone: str,
        query: Dict[str, str],
    ) -> pd.DataFrame:
        hourly = interval == "1h"
        days = JSON_DAYS["1h" if hourly else "period"]
        if d["id"] == FORECAST and hourly and query.get("issues") == "all":
            days = ALL_ISSUES_DAYS
        span = (end - start) / pd.Timedelta(days=1)
        streams = hourly and "csv" in d.get("formats", []) and d.get("kind", "readings") in HOURLY_KINDS
        if span > days and streams:
            parts = [self._csv(d, a, b, zone, query) for a, b in windows(start, end, STREAM_DAYS)]
            meta = {
                "dataset": d["id"],
                "interval": interval,
                "timezone": zone,
                "start": iso(start),
                "end": iso(end),
                "format": "csv",
            }
            frames = [f for f, _ in parts]
            sample = any(s for _, s in parts)
        else:
            answers = [self._json(d, a, b, query) for a, b in windows(start, end, days)]
            frames = [self._frame(d, body, interval, zone, query) for body in answers]
            meta = dict(answers[-1]["meta"])
            meta["start"] = answers[0]["meta"]["start"]
            sample = bool(meta.get("sample"))
        df = frames[0] if len(frames) == 1 else pd.concat(frames)
        return _marked(df, meta, sample, stacklevel=4)

    def _json(self, d: Mapping[str, Any], start: pd.Timestamp, end: pd.Timestamp, query: Mapping[str, str]):
        params = {"start": iso(start), "end": iso(end), **query, "format": "json"}
        return self._http.get(d["path"], params).json()

    def _csv(self, d: Mapping[str, Any], start: pd.Timestamp, end: pd.Timestamp, zone: str, query: Mapping[str, str]):
        params = {"start": iso(start), "end": iso(end), **query, "format": "csv"}
        response = self._http.get(d["path"], params, stream=True)
        response.encoding = "utf-8"
        text = response.text
        sample = response.headers.get("Data-Source") == "sample"
        return from_csv(text, self._types(d), zone), sample

    def _types(self, d: Mapping[str, Any]) -> Dict[str, Mapping[str, Any]]:
        fields = [f for interval in d["fields"].values() for f in interval]
        return field_types(fields)

    def _frame(self, d: Mapping[str, Any], body: Mapping[str, Any], interval: str, zone: str, query: Mapping[str, str]) -> pd.DataFrame:
        key = "1h" if interval == "1h" else next((k for k in d["fields"] if k != "1h"), "1d")
        fallback = expected_columns(d["fields"].get(key))
        if "columns" in query:
            fallback = fallback[:1] + query["columns"].split(",")
        return from_records(body["data"], fallback, self._types(d), zone)


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _marked(df: pd.DataFrame, meta: Dict[str, Any], sample: bool, stacklevel: int) -> pd.DataFrame:
    """Sets the answer's meta and sample mark on the frame; warns, at the caller's line, for sample data."""
    df.attrs["meta"] = meta
    df.attrs["sample"] = sample
    if sample:
        warnings.warn(
            "This is generated sample data, not Eskom's: the service holds no real data yet.",
            SampleDataWarning,
            stacklevel=stacklevel,
        )
    return df

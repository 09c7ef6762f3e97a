"""The client against a real Grid Data Service on loopback, started by test/python-client.test.ts,
which passes what the tests need in the environment: the service (GDS_URL), a key without limits
(GDS_KEY), one limited to 3 requests a minute (GDS_LIMITED_KEY), a revoked one (GDS_REVOKED_KEY),
the address that moves the server's clock (GDS_CLOCK_URL: the limiter's window moves only when a
client sleeps), and the instants of the store's two ingests. Expected frames are built here from
the API's own JSON with plain pandas, not with the client's code."""

import datetime as dt
import http.server
import json
import os
import threading
import unittest
import warnings

import pandas as pd
import requests

import gridsa
from gridsa import AuthenticationError, BadRequestError, Client, ConnectionFailed, RateLimitError

URL = os.environ["GDS_URL"]
KEY = os.environ["GDS_KEY"]


def api(path, key=KEY, **params):
    """The API's own JSON answer."""
    response = requests.get(URL + path, params=params, headers={"X-API-KEY": key}, timeout=60)
    response.raise_for_status()
    return response.json()


def expected(records, tz="UTC"):
    """The frame the JSON records make, with plain pandas."""
    df = pd.DataFrame.from_records(records)
    stamp = "ts" if "ts" in df.columns else "date"
    if stamp == "ts":
        index = pd.to_datetime(df.pop("ts"), utc=True).dt.tz_convert(tz)
    else:
        index = pd.to_datetime(df.pop("date")).dt.tz_localize(tz)
    df.index = pd.DatetimeIndex(index, name=stamp)
    return df.astype("float64")


def advance_clock(seconds):
    requests.post(os.environ["GDS_CLOCK_URL"], data=str(seconds), timeout=10).raise_for_status()


def quiet():
    """The store is sample data: every answer warns; these tests read past it."""
    manager = warnings.catch_warnings()
    manager.__enter__()
    warnings.simplefilter("ignore", gridsa.SampleDataWarning)
    return manager


class Frames(unittest.TestCase):
    def setUp(self):
        self.warnings = quiet()
        self.client = Client(URL, KEY)
        self.addCleanup(self.client.close)

    def tearDown(self):
        self.warnings.__exit__(None, None, None)

    def test_two_years_hourly_equal_the_json_asked_366_days_at_a_time(self):
        start, end = pd.Timestamp("2024-01-01", tz="UTC"), pd.Timestamp("2025-12-31", tz="UTC")
        got = self.client.get("generation.mix", "2024-01-01", dt.date(2025, 12, 31))
        self.assertEqual(len(got), 17_520)
        parts, at = [], start
        while at < end:
            upto = min(at + pd.Timedelta(days=366), end)
            parts.append(api("/api/v1/generation/mix", start=at.isoformat(), end=upto.isoformat())["data"])
            at = upto
        want = expected([r for part in parts for r in part])
        pd.testing.assert_frame_equal(got, want, check_freq=False)
        self.assertEqual(str(got.index.tz), "UTC")
        self.assertTrue(got.attrs["sample"])
        self.assertEqual(got.attrs["meta"]["dataset"], "generation.mix")

    def test_the_same_frame_from_one_json_answer(self):
        got = self.client.get("grid.system_state", pd.Timestamp("2025-03-01T00:00Z"), "2025-03-08T00:00:00Z")
        want = expected(api("/api/v1/grid/system-state", start="2025-03-01T00:00:00Z", end="2025-03-08T00:00:00Z")["data"])
        pd.testing.assert_frame_equal(got, want, check_freq=False)
        self.assertEqual(got.attrs["meta"]["interval"], "1h")

    def test_sast_days(self):
        got = self.client.get("generation.mix", dt.date(2025, 3, 1), dt.date(2025, 3, 8), interval="1d", tz="Africa/Johannesburg")
        self.assertEqual(len(got), 7)
        self.assertEqual(str(got.index.tz), "Africa/Johannesburg")
        self.assertEqual(got.index[0].isoformat(), "2025-03-01T00:00:00+02:00")
        self.assertTrue((got["hours"] == 24).all())
        want = expected(
            api("/api/v1/generation/mix", start="2025-03-01", end="2025-03-08", interval="1d", tz="Africa/Johannesburg")["data"],
            "Africa/Johannesburg",
        )
        pd.testing.assert_frame_equal(got, want, check_freq=False)

    def test_as_of_gives_the_values_before_the_revision(self):
        before = os.environ["GDS_BETWEEN_INGESTS"]
        then = self.client.get("generation.mix", "2025-06-01", "2025-06-02", as_of=before)
        now = self.client.get("generation.mix", "2025-06-01", "2025-06-02")
        self.assertFalse(then.equals(now), "the second ingest revised the day")
        want = expected(api("/api/v1/generation/mix", start="2025-06-01", end="2025-06-02", as_of=before)["data"])
        pd.testing.assert_frame_equal(then, want, check_freq=False)
        self.assertEqual(then.attrs["meta"]["as_of"][:19], before[:19])

    def test_forecast_issues_all_with_issued_at(self):
        start, end = os.environ["GDS_FORECAST_START"], os.environ["GDS_FORECAST_END"]
        got = self.client.forecast(start, end, issues="all")
        raw = api("/api/v1/forecasts/demand", start=start, end=end, issues="all")["data"]
        self.assertEqual(len(got), len(raw))
        self.assertGreater(got["issued_at"].nunique(), 1)
        self.assertEqual(str(got["issued_at"].dt.tz), "UTC")
        self.assertEqual(list(got.columns), ["issued_at", "rsa_contracted_forecast_mw", "residual_forecast_mw"])
        self.assertEqual(got["issued_at"].iloc[0], pd.Timestamp(raw[0]["issued_at"]))
        self.assertEqual(got["residual_forecast_mw"].iloc[-1], raw[-1]["residual_forecast_mw"])
        latest = self.client.forecast(start, end)
        self.assertEqual(len(latest), len({r["ts"] for r in raw}))

    def test_grid_stress_components_and_latest(self):
        got = self.client.grid_stress("2025-03-01", "2025-03-02")
        self.assertTrue(any(c.startswith("components.") for c in got.columns), list(got.columns))
        self.assertEqual(got["band"].dtype, object)
        latest = self.client.latest("grid.system_state", hours=24)
        self.assertEqual(len(latest), 24)
        self.assertTrue(latest.attrs["sample"])
        self.assertEqual(latest.attrs["meta"]["dataset"], "grid.system_state")

    def test_outlook_now_and_as_of(self):
        path = "/api/v1/features/load-shedding-outlook"
        got = self.client.outlook()
        raw = api(path)
        self.assertEqual(len(got), len(raw["data"]))
        self.assertEqual(list(got.columns), ["probability", "lead_h", "band"])
        self.assertEqual(str(got.index.tz), "Africa/Johannesburg")
        self.assertEqual(got.index[0], pd.Timestamp(raw["data"][0]["ts"]))
        self.assertEqual(list(got["probability"]), [r["probability"] for r in raw["data"]])
        self.assertEqual(got.attrs["meta"]["issued_at"], raw["meta"]["issued_at"])
        before = os.environ["GDS_BETWEEN_INGESTS"]
        days = self.client.outlook(interval="1d", as_of=before)
        raw_days = api(path, interval="1d", as_of=before)
        self.assertEqual(list(days["expected_hours"]), [d["expected_hours"] for d in raw_days["data"]])
        self.assertEqual(pd.Timestamp(days.attrs["meta"]["as_of"]), pd.Timestamp(before))
        with self.assertRaises(ValueError):
            self.client.outlook(interval="1w")

    def test_catalog_frame(self):
        catalog = self.client.datasets()
        self.assertEqual(catalog.loc["generation.mix", "path"], "/api/v1/generation/mix")
        self.assertIn("1w", catalog.loc["generation.mix", "intervals"])
        self.assertEqual(catalog.loc["generation.mix", "units"]["wind_mw"], "MW")
        self.assertIsInstance(catalog.loc["generation.mix", "first_hour"], pd.Timestamp)


class Limits(unittest.TestCase):
    def setUp(self):
        self.warnings = quiet()

    def tearDown(self):
        self.warnings.__exit__(None, None, None)

    def test_a_key_limited_to_3_a_minute_makes_6_calls_each_wait_as_the_server_says(self):
        waits, asked = [], []

        def sleep(seconds):
            waits.append(seconds)
            advance_clock(seconds)

        session = requests.Session()
        session.hooks["response"].append(
            lambda r, *a, **k: asked.append(float(r.headers["Retry-After"])) if r.status_code == 429 else None
        )
        self.addCleanup(session.close)
        client = Client(URL, os.environ["GDS_LIMITED_KEY"], sleep=sleep, session=session)
        frames = [client.get("grid.system_state", "2025-03-01", "2025-03-02") for _ in range(6)]
        self.assertTrue(all(len(f) == 24 for f in frames))
        self.assertGreaterEqual(len(asked), 1)
        self.assertEqual(waits, asked)
        # Past max_wait, the next call raises at once with the wait the server asked for.
        hurried = Client(URL, os.environ["GDS_LIMITED_KEY"], sleep=sleep, session=session, max_wait=5)
        before = len(waits)
        with self.assertRaises(RateLimitError) as caught:
            for _ in range(4):
                hurried.get("grid.system_state", "2025-03-01", "2025-03-02")
        self.assertEqual(len(waits), before)
        self.assertGreater(caught.exception.retry_after, 5)
        self.assertEqual(caught.exception.status, 429)

    def test_a_revoked_key_raises_at_once(self):
        calls = []
        session = requests.Session()
        session.hooks["response"].append(lambda r, *a, **k: calls.append(r.status_code))
        self.addCleanup(session.close)
        client = Client(URL, os.environ["GDS_REVOKED_KEY"], sleep=lambda s: self.fail("slept"), session=session)
        with self.assertRaises(AuthenticationError) as caught:
            client.get("generation.mix", "2025-03-01", "2025-03-02")
        self.assertEqual(calls, [401])
        self.assertEqual(caught.exception.status, 401)
        self.assertTrue(caught.exception.detail)

    def test_a_bad_request_raises_at_once_with_the_api_error(self):
        calls = []
        session = requests.Session()
        session.hooks["response"].append(lambda r, *a, **k: calls.append(r.status_code))
        self.addCleanup(session.close)
        client = Client(URL, KEY, sleep=lambda s: self.fail("slept"), session=session)
        with self.assertRaises(BadRequestError) as caught:
            client.get("generation.mix", "2025-03-01", "2025-03-02", interval="2h")
        self.assertEqual(caught.exception.error, "unsupported_interval")
        self.assertIn("Unsupported interval '2h'", caught.exception.detail)
        self.assertEqual(calls, [200, 400])

    def test_connection_errors_back_off_then_raise(self):
        waits = []
        client = Client("http://127.0.0.1:9", KEY, retries=3, sleep=waits.append)
        with self.assertRaises(ConnectionFailed):
            client.datasets()
        self.assertEqual(len(waits), 3)
        self.assertTrue(all(0 <= w <= 0.5 * 2**i for i, w in enumerate(waits)))

    def test_502_and_504_are_retried_with_backoff(self):
        answers = [502, 504, 200]
        catalog = json.dumps({"datasets": [], "coverage": {}}).encode()

        class Gateway(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                status = answers.pop(0)
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                body = catalog if status == 200 else b'{"detail": "bad gateway"}'
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        server = http.server.HTTPServer(("127.0.0.1", 0), Gateway)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        try:
            waits = []
            with Client(f"http://127.0.0.1:{server.server_port}", KEY, sleep=waits.append) as client:
                self.assertEqual(client.catalog(), {"datasets": [], "coverage": {}})
            self.assertEqual(len(waits), 2)
        finally:
            server.shutdown()
            server.server_close()


class Setup(unittest.TestCase):
    def test_url_and_key_from_the_environment_and_a_user_agent(self):
        client = Client()
        self.addCleanup(client.close)
        self.assertEqual(client._http.url, URL)
        self.assertTrue(client._http.session.headers["User-Agent"].startswith(f"gridsa/{gridsa.__version__}"))
        with self.assertRaises(ValueError):
            Client(URL, "")

    def test_sample_data_warns(self):
        with Client() as client, self.assertWarns(gridsa.SampleDataWarning) as caught:
            client.get("generation.mix", "2025-03-01", "2025-03-02")
        self.assertEqual(caught.filename, __file__, "the warning names the caller's line")
        with Client() as client, self.assertWarns(gridsa.SampleDataWarning) as caught:
            client.latest("generation.mix", hours=2)
        self.assertEqual(caught.filename, __file__)


if __name__ == "__main__":
    unittest.main()

"""One HTTP session to the service, and the waiting its answers ask for.

- 429, and 503 with ``Retry-After``: wait what the server says (``Retry-After``, else the
  ``RateLimit`` field's ``t``), then try again, as long as the call's total wait stays within
  ``max_wait``; past it, raise at once with the wait the server asked for.
- A connection error, a timeout, 502, 504 and a 503 without ``Retry-After``: exponential backoff
  with full jitter (0.5 s, 1 s, 2 s ... at most 30 s a wait), up to ``retries`` times, within
  ``max_wait``.
- Anything else below 500 (400, 401, 403, 404 ...) raises at once: trying again cannot help.
"""

from __future__ import annotations

import random
import re
import time
from typing import Callable, Mapping, Optional

import requests

from . import __version__
from .errors import ConnectionFailed, GridDataError, error_for

USER_AGENT = f"gridsa/{__version__} python-requests/{requests.__version__}"

_BACKOFF_FIRST_S = 0.5
_BACKOFF_MAX_S = 30.0


def server_wait(response: requests.Response) -> Optional[float]:
    """The seconds the server asks to wait: ``Retry-After`` (seconds), else the RateLimit ``t``."""
    retry_after = response.headers.get("Retry-After", "").strip()
    if re.fullmatch(r"\d+(\.\d+)?", retry_after):
        return float(retry_after)
    reset = re.search(r";\s*t=(\d+)", response.headers.get("RateLimit", ""))
    return float(reset.group(1)) if reset else None


def _raise_for(response: requests.Response, wait: Optional[float] = None) -> None:
    try:
        body = response.json()
    except ValueError:
        body = {}
    detail = body.get("detail") if isinstance(body, dict) else None
    error = body.get("error") if isinstance(body, dict) else None
    raise error_for(response.status_code)(
        detail or response.reason or "error",
        status=response.status_code,
        error=error,
        retry_after=wait,
        url=response.url,
    )


class Transport:
    """The session, the key and the rules of waiting, shared by every call of a client."""

    def __init__(
        self,
        url: str,
        api_key: str,
        *,
        max_wait: float = 120.0,
        retries: int = 5,
        timeout: float = 300.0,
        sleep: Callable[[float], None] = time.sleep,
        session: Optional[requests.Session] = None,
    ) -> None:
        self.url = url.rstrip("/")
        self.max_wait = max_wait
        self.retries = retries
        self.timeout = timeout
        self.sleep = sleep
        self.session = session or requests.Session()
        self.session.headers.update({"X-API-KEY": api_key, "User-Agent": USER_AGENT})

    def get(self, path: str, params: Mapping[str, str], *, stream: bool = False) -> requests.Response:
        """A GET answered 2xx (or 304), after whatever waiting the server asked for."""
        waited = 0.0
        failures = 0
        while True:
            try:
                response = self.session.get(
                    self.url + path, params=params, stream=stream, timeout=(10, self.timeout)
                )
            except (requests.ConnectionError, requests.Timeout) as exc:
                failures += 1
                wait = self._backoff(failures)
                if failures > self.retries or waited + wait > self.max_wait:
                    raise ConnectionFailed(f"cannot reach {self.url}: {exc}", url=self.url + path) from exc
                self.sleep(wait)
                waited += wait
                continue
            status = response.status_code
            if status < 400:
                return response
            asked = server_wait(response) if status in (429, 503) else None
            if asked is not None:
                if waited + asked > self.max_wait:
                    _raise_for(response, asked)
                response.close()
                self.sleep(asked)
                waited += asked
                continue
            if status in (502, 503, 504):
                failures += 1
                wait = self._backoff(failures)
                if failures <= self.retries and waited + wait <= self.max_wait:
                    response.close()
                    self.sleep(wait)
                    waited += wait
                    continue
            _raise_for(response)

    @staticmethod
    def _backoff(failures: int) -> float:
        cap = min(_BACKOFF_MAX_S, _BACKOFF_FIRST_S * 2 ** (failures - 1))
        return random.uniform(0, cap)


__all__ = ["Transport", "server_wait", "GridDataError", "USER_AGENT"]

"""The errors the client raises: one class per kind of answer, each carrying the API's own
``error`` code (on a 400) and ``detail`` text, the HTTP status and, where the server gave one, how
long it asked the caller to wait."""

from __future__ import annotations

from typing import Optional


class GridDataError(Exception):
    """Any error the service answered, or the failure to reach it."""

    def __init__(
        self,
        detail: str,
        *,
        status: Optional[int] = None,
        error: Optional[str] = None,
        retry_after: Optional[float] = None,
        url: Optional[str] = None,
    ) -> None:
        super().__init__(f"{status} {error or ''}: {detail}".replace("  ", " ") if status else detail)
        self.status = status
        #: The API's error code (``invalid_parameter``, ``range_too_large`` ...) on a 400, else None.
        self.error = error
        #: The API's own words.
        self.detail = detail
        #: Seconds the server asked to wait before trying again (429, 503), when it said.
        self.retry_after = retry_after
        self.url = url


class BadRequestError(GridDataError):
    """400: the request itself is wrong (a parameter, a range); retrying cannot help."""


class AuthenticationError(GridDataError):
    """401: the key is missing, unknown, revoked or expired."""


class PermissionDeniedError(GridDataError):
    """403: the key may not read this."""


class NotFoundError(GridDataError):
    """404: no such endpoint (or dataset)."""


class RateLimitError(GridDataError):
    """429 after waiting as long as ``max_wait`` allowed: the key's limit is spent for longer."""


class ServiceUnavailableError(GridDataError):
    """503 after waiting as long as ``max_wait`` allowed (the store is being repaired or refilled)."""


class ServerError(GridDataError):
    """Another 5xx, after the retries."""


class ConnectionFailed(GridDataError):
    """The service could not be reached, after the retries."""


class SampleDataWarning(UserWarning):
    """The answer is generated sample data, not Eskom's (the service says so on every answer)."""


_BY_STATUS = {
    400: BadRequestError,
    401: AuthenticationError,
    403: PermissionDeniedError,
    404: NotFoundError,
    429: RateLimitError,
    503: ServiceUnavailableError,
}


def error_for(status: int) -> type:
    """The class of error for an HTTP status."""
    if status in _BY_STATUS:
        return _BY_STATUS[status]
    return ServerError if status >= 500 else GridDataError

"""gridsa: the Python client of Grid Data Service, South Africa's power-grid data as pandas
DataFrames (``Client``), with the service's limits and outages waited out as the server says."""

__version__ = "1.8.0"

from .client import Client  # noqa: E402
from .errors import (  # noqa: E402
    AuthenticationError,
    BadRequestError,
    ConnectionFailed,
    GridDataError,
    NotFoundError,
    PermissionDeniedError,
    RateLimitError,
    SampleDataWarning,
    ServerError,
    ServiceUnavailableError,
)

__all__ = [
    "Client",
    "GridDataError",
    "BadRequestError",
    "AuthenticationError",
    "PermissionDeniedError",
    "NotFoundError",
    "RateLimitError",
    "ServiceUnavailableError",
    "ServerError",
    "ConnectionFailed",
    "SampleDataWarning",
    "__version__",
]

/** What a request meets when the shared state (Redis) is out of reach: a 503 to retry, never a 500. */
import { HttpError } from "./http-error.ts";

/** `503 {"detail": "Service temporarily unavailable."}` with `Retry-After: 1`. */
export function sharedStateUnavailable(): HttpError {
  return new HttpError(503, "Service temporarily unavailable.", { headers: { "Retry-After": "1" } });
}

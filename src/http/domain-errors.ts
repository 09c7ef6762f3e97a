/**
 * The answers to the errors the layers below throw in their own terms: a damaged day, a store not
 * to be served, the shared state out of reach, a VM whose webhook sealing key is not the others'.
 * Each is a 503 saying when to retry, never a 500.
 * The API's pipeline (`app.ts`) and the dashboard's pages both answer through here.
 */
import { DamagedForecastError } from "../forecasts/forecast-issues.ts";
import { SharedStateUnavailable } from "../shared/shared-state-unavailable.ts";
import { DamagedPeriodsError } from "../store/period-revisions.ts";
import { DamagedDayError, StoreUnavailableError } from "../store/reading-store.ts";
import { SealingKeyMismatch } from "../webhooks/redis-sealing.ts";
import { HttpError } from "./http-error.ts";

/**
 * Whether an error is a fault to log: anything but an answer (an HttpError) and an outage of the
 * shared state, which the connection reports once rather than once per request.
 */
export function isFault(error: unknown): boolean {
  return !(error instanceof HttpError) && !(error instanceof SharedStateUnavailable);
}

/** The HttpError a known error of a lower layer is answered with; anything else as it is. */
export function asHttpError(error: unknown): unknown {
  if (error instanceof DamagedDayError) return damaged(error);
  if (error instanceof StoreUnavailableError) return storeUnavailable(error);
  if (error instanceof DamagedPeriodsError) return damagedFiles("weekly and monthly figures");
  if (error instanceof DamagedForecastError) return damagedFiles("forecast issues");
  if (error instanceof SharedStateUnavailable) {
    return new HttpError(503, "Service temporarily unavailable.", { headers: { "Retry-After": "1" } });
  }
  if (error instanceof SealingKeyMismatch) {
    // Logged as the fault it is (the operator's to mend); the user is told no more than to wait.
    return new HttpError(
      503,
      "Webhooks cannot be made or changed on this server until its operator mends its configuration. Try again later.",
      { headers: { "Retry-After": "600" } },
    );
  }
  return error;
}

/** The answer for a request that needs a damaged day: a 503 naming the day, never the data. */
function damaged(error: DamagedDayError): HttpError {
  if (error.transient) {
    return new HttpError(503, `The stored data for ${error.day} is being updated. Try again in a second.`, {
      headers: { "Retry-After": "1" },
    });
  }
  return new HttpError(
    503,
    `The stored data for ${error.day} is damaged and is not served until it is repaired; the operator has been alerted. Try again later.`,
    { headers: { "Retry-After": "600" } },
  );
}

/** The answer for a request that needs damaged kept files: a 503, never a partial answer. */
function damagedFiles(what: string): HttpError {
  return new HttpError(
    503,
    `The stored ${what} are damaged and are not served until they are repaired. Try again later.`,
    { headers: { "Retry-After": "600" } },
  );
}

/** The answer while nothing of the store can be served: a 503, never an empty 200. */
function storeUnavailable(error: StoreUnavailableError): HttpError {
  if (error.transient) {
    return new HttpError(503, "The stored data is being written. Try again in a few seconds.", {
      headers: { "Retry-After": "5" },
    });
  }
  return new HttpError(
    503,
    "The stored data is not served: an ingest into it was interrupted, and the operator must run it again. Try again later.",
    { headers: { "Retry-After": "600" } },
  );
}

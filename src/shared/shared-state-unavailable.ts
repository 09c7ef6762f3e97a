/**
 * The shared state (Redis) is out of reach: what a change of a shared document, a shared limit
 * check under `REDIS_FAILURE=closed` or a shared sign-in throttle throws. The HTTP layer answers it
 * with a 503 to retry in a second (`http/domain-errors.ts`), never a 500.
 */
export class SharedStateUnavailable extends Error {
  constructor(cause?: unknown) {
    super("The shared state (Redis) is out of reach", cause === undefined ? undefined : { cause });
    this.name = "SharedStateUnavailable";
  }
}

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

/**
 * `command`'s answer, any failure of it (a command past its bound on a busy Redis, a lost
 * connection) as `SharedStateUnavailable`: for a store on Redis alone, where every failure of a
 * command means that Redis is out of reach. Its callers' own errors stay theirs: wrap the command.
 */
export async function unlessAway<T>(command: Promise<T>): Promise<T> {
  try {
    return await command;
  } catch (error) {
    throw new SharedStateUnavailable(error);
  }
}

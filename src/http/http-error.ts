/** The one error type the HTTP layer throws, and the one function that writes any error. */
import type { Reply } from "./reply.ts";

/** 400 codes (docs/api.md: "Errors"), in the order that decides which one a request gets. */
export const BAD_REQUEST_CODES = [
  "missing_params",
  "unknown_parameter",
  "invalid_parameter",
  "invalid_datetime",
  "unsupported_interval",
  "bad_request",
  "range_too_large",
] as const;

export type BadRequestCode = (typeof BAD_REQUEST_CODES)[number];

/** An error with its response: status, `detail`, the `error` code on a 400, and extra headers. */
export class HttpError extends Error {
  readonly status: number;
  readonly code: BadRequestCode | undefined;
  readonly detail: string;
  readonly headers: Readonly<Record<string, string>>;

  constructor(
    status: number,
    detail: string,
    options: { code?: BadRequestCode; headers?: Record<string, string> } = {},
  ) {
    super(detail);
    this.name = "HttpError";
    this.status = status;
    this.code = options.code;
    this.detail = detail;
    this.headers = options.headers ?? {};
  }
}

/** A 400 with its code. */
export function badRequest(code: BadRequestCode, detail: string): HttpError {
  return new HttpError(400, detail, { code });
}

/** Writes an error as JSON; anything that is not an HttpError becomes a 500 that hides its cause. */
export function writeError(reply: Reply, error: unknown): void {
  const known = error instanceof HttpError ? error : new HttpError(500, "Internal server error.");
  const body =
    known.code === undefined ? { detail: known.detail } : { error: known.code, detail: known.detail };
  const payload = JSON.stringify(body);
  for (const name in known.headers) reply.header(name, known.headers[name]!);
  reply.header("Content-Type", "application/json");
  reply.header("Content-Length", Buffer.byteLength(payload));
  reply.end(known.status, payload);
}

/** The longest value of a request an error quotes whole; a longer one is cut, its length said. */
export const ECHO_CHARS = 100;

/**
 * A value of the request as an error quotes it: whole up to `ECHO_CHARS` characters, else its
 * start and how long it was, so that a 10 KB `columns` does not come back whole.
 */
export function echo(value: string): string {
  return value.length <= ECHO_CHARS ? value : `${value.slice(0, 60)}… (${value.length} characters)`;
}

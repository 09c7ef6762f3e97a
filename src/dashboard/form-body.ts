/** Reads a posted HTML form (`application/x-www-form-urlencoded`), bounded in size. */
import type { IncomingMessage } from "node:http";
import { HttpError } from "../http/http-error.ts";
import { readBounded } from "../http/request-body.ts";

/** The largest form body accepted; the dashboard's forms are far smaller. */
export const MAX_FORM_BYTES = 16 * 1024;

/** The form's fields; throws an HttpError 415 for another content type and 413 past the bound. */
export async function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  const type = (req.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase();
  if (type !== "application/x-www-form-urlencoded") {
    req.resume();
    throw new HttpError(415, "Send the form as application/x-www-form-urlencoded.");
  }
  const body = await readBounded(req, MAX_FORM_BYTES);
  if (body === undefined) throw new HttpError(413, "The form is too large.");
  return new URLSearchParams(body.toString("utf8"));
}

/** Reads a posted HTML form (`application/x-www-form-urlencoded`), bounded in size. */
import type { IncomingMessage } from "node:http";
import { HttpError } from "../http/http-error.ts";

/** The largest form body accepted; the dashboard's forms are far smaller. */
export const MAX_FORM_BYTES = 16 * 1024;

/** The form's fields; throws an HttpError 415 for another content type and 413 past the bound. */
export async function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  const type = (req.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase();
  if (type !== "application/x-www-form-urlencoded") {
    req.resume();
    throw new HttpError(415, "Send the form as application/x-www-form-urlencoded.");
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_FORM_BYTES) {
      req.resume();
      throw new HttpError(413, "The form is too large.");
    }
    chunks.push(chunk);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString("utf8"));
}

/** Reading the dashboard's cookies and writing them with the attributes docs/dashboard.md documents. */
import type { IncomingMessage } from "node:http";

/** The session cookie's name. */
export const SESSION_COOKIE = "gds_session";
/** The sign-in form's anti-forgery cookie (there is no session yet to bind a token to). */
export const SIGN_IN_COOKIE = "gds_signin";

/** The value of a cookie in the request, if sent. */
export function readCookie(req: IncomingMessage, name: string): string | undefined {
  const header = req.headers.cookie;
  if (header === undefined) return undefined;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq !== -1 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/**
 * A `Set-Cookie` value: `HttpOnly`, `SameSite=Strict`, `Path=/dashboard`, and `Secure` when the
 * service sits behind TLS. A `maxAge` of 0 deletes the cookie.
 */
export function cookie(name: string, value: string, options: { maxAge: number; secure: boolean }): string {
  const parts = [
    `${name}=${value}`,
    "Path=/dashboard",
    "HttpOnly",
    "SameSite=Strict",
    `Max-Age=${options.maxAge}`,
  ];
  if (options.secure) parts.push("Secure");
  return parts.join("; ");
}

/**
 * Where a webhook may be sent: `https` only (unless `WEBHOOK_ALLOW_HTTP=1`), and only to public
 * addresses (`public-address.ts`) unless `WEBHOOK_ALLOW_PRIVATE=1`. Checked after DNS, at creation
 * and at every delivery, and the request goes to the address checked, so a name that resolves
 * elsewhere the next time (DNS rebinding) cannot reach inside. A refusal never says what a name
 * resolved to, nor tells a name that does not resolve from one that resolves inside: an account
 * learns nothing of the operator's networks from it (OWASP's SSRF guidance).
 */
import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import { isPublicAddress } from "./public-address.ts";

/** A name's addresses, as DNS gives them (the system's resolver, `getaddrinfo`). */
export type Resolve = (host: string) => Promise<readonly { address: string; family: number }[]>;

const systemResolve: Resolve = (host) => lookup(host, { all: true });

/** How long a name may take to resolve: a resolver that stalls holds no delivery longer. */
const RESOLVE_MS = 5_000;

// `resolve(host)`, or a rejection after RESOLVE_MS (getaddrinfo cannot be cancelled: it is left).
function resolveWithin(resolve: Resolve, host: string) {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${RESOLVE_MS / 1000} s`)), RESOLVE_MS);
  });
  return Promise.race([resolve(host), late]).finally(() => clearTimeout(timer));
}

/** The operator's settings. */
export interface DestinationRules {
  readonly allowPrivate: boolean;
  readonly allowHttp: boolean;
  /** How names are resolved; the system's resolver unless given. */
  readonly resolve?: Resolve;
}

/** Why a URL is not a place to send to. */
export class DestinationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "DestinationError";
  }
}

// One refusal for a name that does not resolve and for one that resolves to a private address.
const NOT_PUBLIC = (host: string) =>
  `${host} is refused: a webhook's host must resolve, and only to public addresses (WEBHOOK_ALLOW_PRIVATE=1 allows private and special-purpose ones)`;

// The addresses of `host`: with private ones allowed, what DNS said of a name that does not
// resolve; else the one refusal.
async function resolved(host: string, rules: DestinationRules) {
  let addresses: readonly { address: string; family: number }[] = [];
  try {
    addresses = await resolveWithin(rules.resolve ?? systemResolve, host);
  } catch (error) {
    if (rules.allowPrivate)
      throw new DestinationError(`${host} does not resolve: ${(error as Error).message}`);
  }
  if (addresses.length === 0)
    throw new DestinationError(rules.allowPrivate ? `${host} does not resolve` : NOT_PUBLIC(host));
  return addresses;
}

/** The URL checked, and the address to connect to; throws a DestinationError. */
export async function checkDestination(
  raw: string,
  rules: DestinationRules,
): Promise<{ url: URL; address: string; family: 4 | 6 }> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new DestinationError(`"${raw}" is not a URL`);
  }
  if (url.protocol !== "https:" && !(url.protocol === "http:" && rules.allowHttp)) {
    throw new DestinationError(
      `${url.protocol} is refused: webhooks go to https URLs (WEBHOOK_ALLOW_HTTP=1 allows http)`,
    );
  }
  if (url.username !== "" || url.password !== "")
    throw new DestinationError("a webhook URL carries no credentials");
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const addresses = isIP(host) !== 0 ? [{ address: host, family: isIP(host) }] : await resolved(host, rules);
  if (!rules.allowPrivate && !addresses.every((a) => isPublicAddress(a.address))) {
    throw new DestinationError(
      isIP(host) !== 0
        ? `${host} is not a public address: refused (WEBHOOK_ALLOW_PRIVATE=1 allows private and special-purpose addresses)`
        : NOT_PUBLIC(host),
    );
  }
  // IPv4 first where there is one: a receiver on a dual-stack name most often listens there.
  const first = addresses.find((a) => a.family === 4) ?? addresses[0]!;
  return { url, address: first.address, family: first.family === 6 ? 6 : 4 };
}

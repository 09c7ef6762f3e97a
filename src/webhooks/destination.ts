/**
 * Where a webhook may be sent: `https` only (unless `WEBHOOK_ALLOW_HTTP=1`), and never to an
 * address on this machine or its networks (loopback, private, link-local with the cloud metadata
 * address, carrier-grade NAT, multicast, unspecified) unless `WEBHOOK_ALLOW_PRIVATE=1`. Checked
 * after DNS, at creation and at every delivery, and the request goes to the address checked, so a
 * name that later resolves elsewhere cannot reach inside.
 */
import { lookup } from "node:dns/promises";
import { BlockList, isIP } from "node:net";

/** The operator's settings. */
export interface DestinationRules {
  readonly allowPrivate: boolean;
  readonly allowHttp: boolean;
}

/** Why a URL is not a place to send to. */
export class DestinationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "DestinationError";
  }
}

const PRIVATE = new BlockList();
for (const [net, bits] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["224.0.0.0", 3],
] as const) {
  PRIVATE.addSubnet(net, bits, "ipv4");
}
for (const [net, bits] of [
  ["::", 127],
  ["fc00::", 7],
  ["fe80::", 10],
  ["ff00::", 8],
] as const) {
  PRIVATE.addSubnet(net, bits, "ipv6");
}

/** Whether an address is on this machine or a private network. */
export function isPrivateAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped !== null) return PRIVATE.check(mapped[1]!, "ipv4");
  return PRIVATE.check(address, isIP(address) === 6 ? "ipv6" : "ipv4");
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
  let addresses: { address: string; family: number }[];
  try {
    addresses =
      isIP(host) !== 0 ? [{ address: host, family: isIP(host) }] : await lookup(host, { all: true });
  } catch (error) {
    throw new DestinationError(`${host} does not resolve: ${(error as Error).message}`);
  }
  const inside = addresses.find((a) => isPrivateAddress(a.address));
  if (inside !== undefined && !rules.allowPrivate) {
    throw new DestinationError(
      `${host} resolves to ${inside.address}, an address on this machine or a private network: refused (WEBHOOK_ALLOW_PRIVATE=1 allows it)`,
    );
  }
  // IPv4 first where there is one: a receiver on a dual-stack name most often listens there.
  const first = addresses.find((a) => a.family === 4) ?? addresses[0]!;
  return { url, address: first.address, family: first.family === 6 ? 6 : 4 };
}

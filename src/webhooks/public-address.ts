/**
 * Which addresses a webhook may be sent to when the operator has not allowed private ones: public
 * unicast only. Refused are every range of IANA's IPv4 and IPv6 Special-Purpose Address
 * Registries (RFC 6890 and its updates: loopback, private, shared, link-local, documentation,
 * benchmarking, the protocol assignments, AS112, AMT, the deprecated 6to4 relay), multicast and
 * the reserved space; in IPv6 every address outside global unicast (2000::/3), which takes in the
 * IPv4-compatible and -translated forms, NAT64 (64:ff9b::/96 and 64:ff9b:1::/48), discard-only,
 * unique-local and link-local, and inside it Teredo and the other IETF assignments (2001::/23),
 * documentation and 6to4 (2002::/16, which carries an IPv4 address of any kind). An IPv4-mapped
 * address is judged by its IPv4 address. So is an address of this machine's own interfaces,
 * public or not: a request from the machine to itself passes its firewall.
 */
import { BlockList, isIP } from "node:net";
import { networkInterfaces } from "node:os";

const SPECIAL_V4 = new BlockList();
for (const [net, bits] of [
  ["0.0.0.0", 8], // "this network"
  ["10.0.0.0", 8], // private
  ["100.64.0.0", 10], // shared address space (carrier-grade NAT)
  ["127.0.0.0", 8], // loopback
  ["169.254.0.0", 16], // link-local, with the cloud metadata address
  ["172.16.0.0", 12], // private
  ["192.0.0.0", 24], // IETF protocol assignments (DS-Lite, NAT64 discovery, PCP and TURN anycast)
  ["192.0.2.0", 24], // documentation (TEST-NET-1)
  ["192.31.196.0", 24], // AS112
  ["192.52.193.0", 24], // AMT
  ["192.88.99.0", 24], // the deprecated 6to4 relay anycast
  ["192.168.0.0", 16], // private
  ["192.175.48.0", 24], // AS112 direct delegation
  ["198.18.0.0", 15], // benchmarking
  ["198.51.100.0", 24], // documentation (TEST-NET-2)
  ["203.0.113.0", 24], // documentation (TEST-NET-3)
  ["224.0.0.0", 3], // multicast, the reserved 240.0.0.0/4 and the limited broadcast address
] as const) {
  SPECIAL_V4.addSubnet(net, bits, "ipv4");
}

const GLOBAL_UNICAST_V6 = new BlockList();
GLOBAL_UNICAST_V6.addSubnet("2000::", 3, "ipv6");

const SPECIAL_V6 = new BlockList();
for (const [net, bits] of [
  ["2001::", 23], // IETF protocol assignments: Teredo, benchmarking, AMT, AS112, ORCHID, DRIP
  ["2001:db8::", 32], // documentation
  ["2002::", 16], // 6to4
  ["2620:4f:8000::", 48], // AS112 direct delegation
  ["3fff::", 20], // documentation
] as const) {
  SPECIAL_V6.addSubnet(net, bits, "ipv6");
}

/** An IPv6 address's eight 16-bit groups, or undefined when it is not one. */
export function ipv6Groups(address: string): number[] | undefined {
  if (isIP(address) !== 6) return undefined;
  let text = address.toLowerCase();
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted !== null) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.includes("::") ? text.split("::") : [text, undefined];
  const part = (s: string | undefined) => (s === undefined || s === "" ? [] : s.split(":"));
  const left = part(head);
  const right = part(tail);
  const zeros = tail === undefined ? [] : Array<string>(8 - left.length - right.length).fill("0");
  return [...left, ...zeros, ...right].map((group) => parseInt(group, 16));
}

// The IPv4 address an IPv4-mapped IPv6 address (::ffff:a.b.c.d) carries, or undefined.
function mappedV4(address: string): string | undefined {
  const groups = ipv6Groups(address);
  if (groups === undefined || groups.slice(0, 5).some((g) => g !== 0) || groups[5] !== 0xffff)
    return undefined;
  return [groups[6]! >> 8, groups[6]! & 0xff, groups[7]! >> 8, groups[7]! & 0xff].join(".");
}

// One spelling per address: IPv6 as its eight groups, so that "::1" and "0:0::1" are one.
const canonical = (address: string) => ipv6Groups(address)?.join(":") ?? address;

// Whether `address` is one of this machine's interfaces' addresses, as they are now.
function isOwnAddress(address: string): boolean {
  const wanted = canonical(address);
  return Object.values(networkInterfaces()).some((entries) =>
    (entries ?? []).some((entry) => canonical(entry.address.replace(/%.*$/, "")) === wanted),
  );
}

/** Whether `address` (an IP address, IPv6 without brackets) is a public one a webhook may go to. */
export function isPublicAddress(address: string): boolean {
  const plain = address.replace(/%.*$/, ""); // a zone index names a link: link-local, refused below
  const family = isIP(plain);
  if (family === 0) return false;
  const v4 = family === 4 ? plain : mappedV4(plain);
  if (v4 !== undefined) return !SPECIAL_V4.check(v4, "ipv4") && !isOwnAddress(v4);
  return GLOBAL_UNICAST_V6.check(plain, "ipv6") && !SPECIAL_V6.check(plain, "ipv6") && !isOwnAddress(plain);
}

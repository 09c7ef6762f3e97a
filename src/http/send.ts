/**
 * Writes a successful representation: answers conditional requests with 304 (If-None-Match
 * first, If-Modified-Since only without it, as RFC 9110 orders them), compresses bodies over
 * about 1 KB with the coding the client prefers, and sets the validators and `Vary`.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";
import type { Lru } from "../cache/lru.ts";
import { chooseEncoding, type Encoding } from "./negotiation.ts";

/** Bodies smaller than this are sent as they are: compression would not pay. */
export const COMPRESS_MIN_BYTES = 1024;

/** What to send. `etag` is the opaque tag without quotes or coding suffix. */
export interface Representation {
  /** The body, or a function computing it, called only when no 304 answers the request. */
  readonly body: string | Buffer | (() => string | Buffer);
  readonly contentType: string;
  readonly etag?: string;
  /** UTC ms; sent at whole-second precision. */
  readonly lastModified?: number | null;
  readonly cacheControl?: string;
  /** Request headers the choice of representation depends on, besides Accept-Encoding (e.g. "Accept"). */
  readonly vary?: string;
  readonly headers?: Readonly<Record<string, string>>;
  /** Where bodies are kept by ETag (and coding), so a repeated request is neither rebuilt nor recompressed. */
  readonly cache?: Lru<string, Buffer>;
}

const SUFFIX: Record<Encoding, string> = { identity: "", gzip: "-gz", br: "-br" };

function compress(body: Buffer, encoding: Encoding): Buffer {
  if (encoding === "gzip") return gzipSync(body, { level: 6 });
  if (encoding === "br") {
    return brotliCompressSync(body, {
      params: { [constants.BROTLI_PARAM_QUALITY]: 5, [constants.BROTLI_PARAM_SIZE_HINT]: body.length },
    });
  }
  return body;
}

// Weak comparison (RFC 9110 §13.1.2): `W/` and our coding suffix do not matter.
function opaque(tag: string): string {
  return tag
    .trim()
    .replace(/^W\//, "")
    .replace(/^"|"$/g, "")
    .replace(/-(gz|br)$/, "");
}

/** Whether the request's validators show the client already has this representation. */
export function notModified(
  req: IncomingMessage,
  etag: string | undefined,
  lastModified: number | null | undefined,
): boolean {
  const ifNoneMatch = req.headers["if-none-match"];
  if (ifNoneMatch !== undefined) {
    if (etag === undefined) return false;
    return ifNoneMatch.trim() === "*" || ifNoneMatch.split(",").some((tag) => opaque(tag) === etag);
  }
  const ifModifiedSince = req.headers["if-modified-since"];
  if (ifModifiedSince !== undefined && lastModified !== undefined && lastModified !== null) {
    const since = Date.parse(ifModifiedSince);
    return Number.isFinite(since) && Math.floor(lastModified / 1000) * 1000 <= since;
  }
  return false;
}

// The last instant formatted as an HTTP date, and its text: a poll's Last-Modified repeats.
let httpDateMs = NaN;
let httpDateText = "";
function httpDate(ms: number): string {
  if (ms !== httpDateMs) {
    httpDateMs = ms;
    httpDateText = new Date(ms).toUTCString();
  }
  return httpDateText;
}

// The last Accept-Encoding parsed, and its choice: clients repeat theirs on every request.
let lastAcceptEncoding: string | undefined = "";
let lastEncoding: Encoding = chooseEncoding("");
function encodingFor(header: string | undefined): Encoding {
  if (header !== lastAcceptEncoding) {
    lastEncoding = chooseEncoding(header);
    lastAcceptEncoding = header;
  }
  return lastEncoding;
}

// Vary: what the pipeline already varies on (Origin, with CORS, when set through setHeader; an
// ApiResponse joins its own), what the representation does, and Accept-Encoding.
function varyOf(res: ServerResponse, rep: Representation): string {
  const own = rep.vary === undefined ? "Accept-Encoding" : `${rep.vary}, Accept-Encoding`;
  const earlier = res.getHeader("Vary");
  return earlier === undefined ? own : `${String(earlier)}, ${own}`;
}

/** Sends `rep` with status 200, or 304 when the client's copy is current. */
export function send(req: IncomingMessage, res: ServerResponse, rep: Representation): void {
  const headers: Record<string, string | number> = rep.headers === undefined ? {} : { ...rep.headers };
  headers["Vary"] = varyOf(res, rep);
  if (rep.lastModified !== undefined && rep.lastModified !== null) {
    headers["Last-Modified"] = httpDate(rep.lastModified);
  }
  if (rep.cacheControl !== undefined) headers["Cache-Control"] = rep.cacheControl;
  const preferred = encodingFor(req.headers["accept-encoding"]);

  if (notModified(req, rep.etag, rep.lastModified)) {
    // The ETag a 200 would carry: its coding depends on the body's size, known once it is cached.
    const size = rep.etag === undefined ? undefined : rep.cache?.get(rep.etag)?.length;
    const coding = size !== undefined && size < COMPRESS_MIN_BYTES ? "identity" : preferred;
    if (rep.etag !== undefined) headers["ETag"] = `"${rep.etag}${SUFFIX[coding]}"`;
    res.writeHead(304, headers);
    res.end();
    return;
  }
  const cache = rep.etag === undefined ? undefined : rep.cache;
  let raw = cache?.get(rep.etag!);
  if (raw === undefined) {
    const computed = typeof rep.body === "function" ? rep.body() : rep.body;
    raw = typeof computed === "string" ? Buffer.from(computed) : computed;
    cache?.set(rep.etag!, raw);
  }
  const encoding = raw.length >= COMPRESS_MIN_BYTES ? preferred : "identity";
  if (rep.etag !== undefined) headers["ETag"] = `"${rep.etag}${SUFFIX[encoding]}"`;
  let body = encoding === "identity" ? raw : cache?.get(rep.etag! + SUFFIX[encoding]);
  if (body === undefined) {
    body = compress(raw, encoding);
    cache?.set(rep.etag! + SUFFIX[encoding], body);
  }
  if (encoding !== "identity") headers["Content-Encoding"] = encoding;
  headers["Content-Type"] = rep.contentType;
  headers["Content-Length"] = body.length;
  res.writeHead(200, headers);
  res.end(body);
}

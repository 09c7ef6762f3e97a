/**
 * Writes a successful representation: answers conditional requests with 304 (If-None-Match
 * first, If-Modified-Since only without it, as RFC 9110 orders them), compresses bodies over
 * about 1 KB with the coding the client prefers, and sets the validators and `Vary`. A body kept
 * from an earlier answer is written at once; a new one is rendered (perhaps in pieces) and
 * compressed on libuv's thread pool, so the event loop answers other requests meanwhile.
 */
import type { Writable } from "node:stream";
import { finished } from "node:stream/promises";
import { promisify } from "node:util";
import { brotliCompress, constants, createBrotliCompress, createGzip, gzip } from "node:zlib";
import type { Lru } from "../cache/lru.ts";
import type { EntityTag } from "./entity-tag.ts";
import { chooseEncoding, type Encoding } from "./negotiation.ts";
import type { RenderSlots } from "./render-slots.ts";
import type { Reply } from "./reply.ts";
import type { RequestHead } from "./router.ts";

/** Bodies smaller than this are sent as they are: compression would not pay. */
export const COMPRESS_MIN_BYTES = 1024;

/** A body made on demand. */
export interface BodySource {
  render(): string | Buffer | Promise<string | Buffer>;
}

/** What to send. */
export interface Representation {
  /** The body, or what renders it, asked only when neither a 304 nor a kept body answers. */
  readonly body: string | Buffer | BodySource;
  readonly contentType: string;
  readonly etag?: EntityTag;
  /** When the representation last changed (UTC ms); sent at whole-second precision. */
  readonly lastModified?: number | null;
  readonly cacheControl?: string;
  /**
   * Request headers the choice of representation depends on, as `Vary` lists them, Accept-Encoding
   * among them: "Accept-Encoding" when absent, `VARY_ACCEPT` for a choice by Accept too.
   */
  readonly vary?: string;
  readonly headers?: Readonly<Record<string, string>>;
  /** Where bodies are kept by ETag (and coding), so a repeated request is neither rebuilt nor recompressed. */
  readonly cache?: Lru<string, Buffer>;
  /** How many bodies of this kind may be compressed at once (all, without it). */
  readonly compressions?: RenderSlots;
  /** False for a body compressed inside (Parquet): no content coding is applied. */
  readonly compress?: boolean;
}

/** The `Vary` of a representation chosen by Accept as well as by Accept-Encoding. */
export const VARY_ACCEPT = "Accept, Accept-Encoding";

const gzipAsync = promisify(gzip);
const brotliAsync = promisify(brotliCompress);

// On libuv's thread pool: a 2 MB body takes 15 to 55 ms to compress, which the event loop spends
// answering other requests instead.
function compress(body: Buffer, encoding: Encoding): Promise<Buffer> {
  if (encoding === "gzip") return gzipAsync(body, { level: 6 });
  if (encoding === "br") {
    return brotliAsync(body, {
      params: { [constants.BROTLI_PARAM_QUALITY]: 5, [constants.BROTLI_PARAM_SIZE_HINT]: body.length },
    });
  }
  return Promise.resolve(body);
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
  req: RequestHead,
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

// Vary: what the pipeline already varies on (Origin, with CORS), what the representation does,
// and Accept-Encoding; it replaces the pipeline's in the one head written.
function varyOf(reply: Reply, rep: Pick<Representation, "vary">): string {
  const own = rep.vary ?? "Accept-Encoding";
  const earlier = reply.collected("Vary");
  return earlier === undefined ? own : `${earlier}, ${own}`;
}

// Sets the head's fields every 200 and 304 carries on the reply.
function setHead(reply: Reply, rep: Omit<Representation, "body">): void {
  for (const name in rep.headers) reply.header(name, rep.headers[name]!);
  reply.header("Vary", varyOf(reply, rep));
  if (rep.lastModified !== undefined && rep.lastModified !== null) {
    reply.header("Last-Modified", new Date(rep.lastModified).toUTCString());
  }
  if (rep.cacheControl !== undefined) reply.header("Cache-Control", rep.cacheControl);
}

/** Sends `rep` with status 200, or 304 when the client's copy is current; rejects when rendering fails. */
export async function send(req: RequestHead, reply: Reply, rep: Representation): Promise<void> {
  setHead(reply, rep);
  // A body compressed inside (Parquet) is sent as it is.
  const preferred = rep.compress === false ? "identity" : chooseEncoding(req.headers["accept-encoding"]);
  const etag = rep.etag;

  if (notModified(req, etag?.value, rep.lastModified)) {
    // The ETag a 200 would carry: its coding depends on the body's size, known once it is cached.
    const size = etag === undefined ? undefined : rep.cache?.get(etag.value)?.length;
    const coding = size !== undefined && size < COMPRESS_MIN_BYTES ? "identity" : preferred;
    if (etag !== undefined) reply.header("ETag", etag.text(coding));
    reply.end(304);
    return;
  }
  const cache = etag === undefined ? undefined : rep.cache;
  const raw =
    cache?.get(etag!.value) ??
    (typeof rep.body === "string" ? Buffer.from(rep.body) : Buffer.isBuffer(rep.body) ? rep.body : undefined);
  if (raw === undefined) return await sendRendered(reply, rep, preferred);
  const encoding = raw.length >= COMPRESS_MIN_BYTES ? preferred : "identity";
  const kept = encoding === "identity" ? raw : cache?.get(etag!.key(encoding));
  if (kept !== undefined) return write(reply, rep, encoding, kept);
  await compressAndWrite(reply, rep, raw, encoding);
}

// A body rendered now (in pieces, perhaps), kept, then compressed and written.
async function sendRendered(reply: Reply, rep: Representation, preferred: Encoding): Promise<void> {
  const computed = await (rep.body as BodySource).render();
  const raw = typeof computed === "string" ? Buffer.from(computed) : computed;
  if (rep.etag !== undefined) rep.cache?.set(rep.etag.value, raw);
  const encoding = raw.length >= COMPRESS_MIN_BYTES ? preferred : "identity";
  await compressAndWrite(reply, rep, raw, encoding);
}

async function compressAndWrite(
  reply: Reply,
  rep: Representation,
  raw: Buffer,
  encoding: Encoding,
): Promise<void> {
  const body = await (rep.compressions === undefined
    ? compress(raw, encoding)
    : rep.compressions.run(() => compress(raw, encoding)));
  if (encoding !== "identity" && rep.etag !== undefined) rep.cache?.set(rep.etag.key(encoding), body);
  write(reply, rep, encoding, body);
}

function write(reply: Reply, rep: Representation, encoding: Encoding, body: Buffer): void {
  if (rep.etag !== undefined) reply.header("ETag", rep.etag.text(encoding));
  if (encoding !== "identity") reply.header("Content-Encoding", encoding);
  reply.header("Content-Type", rep.contentType);
  reply.header("Content-Length", body.length);
  // The client may have gone while the body was made: nothing to write then.
  if (reply.gone) return;
  reply.end(200, body);
}

/** A body too long to hold, written as it is made (a whole history in CSV or Parquet). */
export interface StreamedBody {
  /** Hands the body's bytes on, piece by piece, waiting as `out` asks. */
  write(out: (bytes: Buffer) => Promise<void>): Promise<void>;
  /** Whether what was written may mix two versions of the store: the transfer is then cut off. */
  stale(): boolean;
}

/** The client went away while a body streamed. */
class ClientGone extends Error {}

/**
 * Sends `rep` with status 200 in chunks, compressed on the way when asked, never holding more
 * than a piece; or 304 when the client's copy is current. A body whose store changed while it was
 * written is cut off (the connection is destroyed before the last chunk), so that the client sees
 * an incomplete transfer, never a file mixing two versions.
 */
export async function sendStream(
  req: RequestHead,
  reply: Reply,
  rep: Omit<Representation, "body" | "cache" | "compressions">,
  body: StreamedBody,
): Promise<void> {
  const res = reply.res;
  setHead(reply, rep);
  const encoding = rep.compress ? chooseEncoding(req.headers["accept-encoding"]) : "identity";
  if (rep.etag !== undefined) reply.header("ETag", rep.etag.text(encoding));
  if (notModified(req, rep.etag?.value, rep.lastModified)) {
    reply.end(304);
    return;
  }
  if (encoding !== "identity") reply.header("Content-Encoding", encoding);
  reply.header("Content-Type", rep.contentType);
  reply.writeHead(200);
  const sink: Writable =
    encoding === "gzip"
      ? createGzip({ level: 6 })
      : encoding === "br"
        ? createBrotliCompress({ params: { [constants.BROTLI_PARAM_QUALITY]: 5 } })
        : res;
  if (sink !== res) sink.pipe(res);
  try {
    await body.write(async (bytes) => {
      if (res.destroyed) throw new ClientGone();
      if (sink.write(bytes)) return;
      // Whichever comes first; the other listener goes with it, so a long stream adds none.
      await new Promise<void>((resolve) => {
        const go = () => {
          sink.off("drain", go);
          res.off("close", go);
          resolve();
        };
        sink.once("drain", go);
        res.once("close", go);
      });
      if (res.destroyed) throw new ClientGone();
    });
  } catch (error) {
    if (error instanceof ClientGone) return;
    throw error;
  }
  if (body.stale()) {
    res.destroy();
    return;
  }
  sink.end();
  await finished(res).catch(() => undefined);
}

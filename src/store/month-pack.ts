/**
 * A derived, binary copy of a month of day files, `YYYY-MM.pack`, written by ingest beside the
 * JSON-lines files so that a server reads days without parsing JSON (several times faster from
 * cold). One file a month keeps the files an ingest creates few. The day files stay the truth:
 * each slot names the content hash of the day file it was made from, under the column catalog's
 * fingerprint, and a reader ignores a slot that does not match exactly (stale after a killed
 * ingest, corrupt, or from another catalog) and parses the day file instead.
 *
 * Layout, little-endian: "GDSP", uint16 version, uint16 column count, 16 bytes of catalog
 * fingerprint, padding to 64; then 31 slots of 48 bytes (32 bytes of content hash, uint32 mask of
 * the hours present, 12 bytes of SHA-256 over the mask and the slot's values, so a damaged slot is
 * never read as data); then 31 × 24 × columns float64 values (NaN where none).
 */
import { createHash } from "node:crypto";
import { endianness } from "node:os";
import { columns, COLUMN_COUNT } from "../source/columns.ts";
import { type Day, emptyDay } from "./day-file.ts";

const MAGIC = "GDSP";
/** The pack format this release writes; 1 had no slot checksums (releases up to 0.1.0). */
export const PACK_VERSION = 2;
const VERSION = PACK_VERSION;
const SLOTS = 31;
const SLOT_BYTES = 48;
const HEADER = 64;
const DATA = HEADER + SLOTS * SLOT_BYTES;
const DAY_VALUES = 24 * COLUMN_COUNT;
const SIZE = DATA + SLOTS * DAY_VALUES * 8;
const FINGERPRINT = createHash("sha256")
  .update(columns.map((c) => c.name).join(","))
  .digest("hex")
  .slice(0, 16);

/** Whether this machine writes and reads packs (they are little-endian; others parse the files). */
export const PACKS = endianness() === "LE";

/** The month (`YYYY-MM`) of a day key. */
export function monthOf(key: string): string {
  return key.slice(0, 7);
}

/** The file name of a month's pack. */
export function packName(month: string): string {
  return `${month}.pack`;
}

/** A day in a pack, with the content hash of the day file it was made from. */
export interface PackedDay {
  readonly day: Day;
  readonly hash: string;
}

/** The pack of the given days of one month. */
export function encodePack(days: readonly PackedDay[]): Buffer {
  const out = Buffer.alloc(SIZE);
  out.write(MAGIC, 0, "ascii");
  out.writeUInt16LE(VERSION, 4);
  out.writeUInt16LE(COLUMN_COUNT, 6);
  out.write(FINGERPRINT, 8, "ascii");
  const values = new Float64Array(SLOTS * DAY_VALUES).fill(NaN);
  for (const { day, hash } of days) {
    const slot = Number(day.key.slice(8, 10)) - 1;
    let mask = 0;
    day.hours.forEach((reading, h) => {
      if (reading === undefined) return;
      values.set(reading, slot * DAY_VALUES + h * COLUMN_COUNT);
      mask |= 1 << h;
    });
    out.write(hash.padEnd(32).slice(0, 32), HEADER + slot * SLOT_BYTES, "ascii");
    out.writeUInt32LE(mask >>> 0, HEADER + slot * SLOT_BYTES + 32);
  }
  out.set(new Uint8Array(values.buffer), DATA);
  for (const { day } of days) {
    const slot = Number(day.key.slice(8, 10)) - 1;
    slotChecksum(out, slot).copy(out, HEADER + slot * SLOT_BYTES + 36);
  }
  return out;
}

// What a slot's checksum covers: its mask of hours and its values.
function slotChecksum(bytes: Buffer, slot: number): Buffer {
  const start = DATA + slot * DAY_VALUES * 8;
  return createHash("sha256")
    .update(bytes.subarray(HEADER + slot * SLOT_BYTES + 32, HEADER + slot * SLOT_BYTES + 36))
    .update(bytes.subarray(start, start + DAY_VALUES * 8))
    .digest()
    .subarray(0, 12);
}

/** Whether `bytes` is a whole pack this build can read. */
/**
 * What a pack file is to this release: `current`, `outdated` (a pack of an earlier format, or of
 * an earlier column catalog: whole, but not readable here until rewritten), or `unreadable`
 * (not a pack, cut, or from a newer release).
 */
export function packState(bytes: Buffer): "current" | "outdated" | "unreadable" {
  if (isPack(bytes)) return "current";
  if (bytes.length < HEADER || bytes.toString("ascii", 0, 4) !== MAGIC) return "unreadable";
  const version = bytes.readUInt16LE(4);
  if (version > VERSION) return "unreadable";
  // The size an intact pack of its own header has: anything else is a cut file.
  const expected = HEADER + SLOTS * SLOT_BYTES + SLOTS * 24 * bytes.readUInt16LE(6) * 8;
  return bytes.length === expected ? "outdated" : "unreadable";
}

/** Whether `bytes` is a pack this release reads. */
export function isPack(bytes: Buffer): boolean {
  return (
    PACKS &&
    bytes.length === SIZE &&
    bytes.toString("ascii", 0, 4) === MAGIC &&
    bytes.readUInt16LE(4) === VERSION &&
    bytes.readUInt16LE(6) === COLUMN_COUNT &&
    bytes.toString("ascii", 8, 24) === FINGERPRINT
  );
}

/** The content hash a pack's slot for `key` was made from, or undefined for an empty slot. */
export function packedHash(bytes: Buffer, key: string): string | undefined {
  const at = HEADER + (Number(key.slice(8, 10)) - 1) * SLOT_BYTES;
  const hash = bytes.toString("ascii", at, at + 32).trimEnd();
  return hash === "" || hash.startsWith("\0") ? undefined : hash;
}

/**
 * The day `key` in a pack (checked with `isPack`), or undefined unless made from content `hash`
 * and whole (its checksum matches).
 */
export function unpackDay(bytes: Buffer, key: string, hash: string): Day | undefined {
  if (packedHash(bytes, key) !== hash) return undefined;
  const slot = Number(key.slice(8, 10)) - 1;
  const stored = bytes.subarray(HEADER + slot * SLOT_BYTES + 36, HEADER + slot * SLOT_BYTES + 48);
  if (!slotChecksum(bytes, slot).equals(stored)) return undefined;
  const values = new Float64Array(DAY_VALUES);
  const start = DATA + slot * DAY_VALUES * 8;
  new Uint8Array(values.buffer).set(bytes.subarray(start, start + DAY_VALUES * 8));
  const mask = bytes.readUInt32LE(HEADER + slot * SLOT_BYTES + 32);
  const day = emptyDay(key);
  for (let h = 0; h < 24; h++) {
    if (mask & (1 << h)) day.hours[h] = values.subarray(h * COLUMN_COUNT, (h + 1) * COLUMN_COUNT);
  }
  return day;
}

/**
 * The store's table of contents, `manifest.json`: for every day file its content hash, its hour
 * count and its newest actual (not forecast) hour. Ingest rewrites it last, atomically; a running
 * server stats this one file to notice an ingest, and uses the hashes to drop only changed days.
 * The day files are the truth: a missing or unreadable manifest is rebuilt from them. A day of
 * generated sample data carries `"source": "sample"` (see `sample-mark.ts`).
 */
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { columns } from "../source/columns.ts";
import { isTempFile, writeFileAtomic } from "../files/atomic-write.ts";
import { type Day, parseDay } from "./day-file.ts";
import { HOUR_MS } from "../time.ts";
import { isSampleStore, sampleRemovalPending } from "./sample-mark.ts";

/** What the manifest records of one day file. */
export interface DayEntry {
  readonly hash: string;
  readonly hours: number;
  /** The newest hour (UTC ms) holding an actual reading, or null for a forecast-only day. */
  readonly lastActual: number | null;
  /** Whether the day is generated sample data, not the utility's. */
  readonly sample: boolean;
}

/** Every stored day by `YYYY-MM-DD` key, in ascending order. */
export type Manifest = Map<string, DayEntry>;

export const MANIFEST_FILE = "manifest.json";
export const READINGS_DIR = "readings";
const FORMAT = 1;
const DAY_FILE = /^(\d{4}-\d{2}-\d{2})\.jsonl$/;
/** The catalog positions of actual (not forecast) columns: an hour with one holds an actual reading. */
export const ACTUAL_COLUMNS: readonly number[] = columns.flatMap((c, i) => (c.kind === "actual" ? [i] : []));
const ACTUAL = ACTUAL_COLUMNS;

/** The content hash the manifest records for a day file's text. */
export function contentHash(text: string): string {
  return createHash("sha256").update(text).digest("hex").slice(0, 32);
}

/** Summarizes a day and the exact bytes it is stored as; `sample` when it is generated data. */
export function dayEntry(day: Day, text: string, sample = false): DayEntry {
  let hours = 0;
  let lastActual: number | null = null;
  day.hours.forEach((reading, h) => {
    if (reading === undefined) return;
    hours++;
    if (ACTUAL.some((c) => !Number.isNaN(reading[c]!))) lastActual = day.start + h * HOUR_MS;
  });
  return { hash: contentHash(text), hours, lastActual, sample };
}

/** The canonical text of a manifest. */
export function serializeManifest(manifest: Manifest): string {
  const keys = [...manifest.keys()].sort();
  const lines = keys.map((key) => {
    const { hash, hours, lastActual, sample } = manifest.get(key)!;
    const last = lastActual === null ? null : new Date(lastActual).toISOString().slice(0, 19) + "Z";
    const entry = { hash, hours, last_actual: last, ...(sample ? { source: "sample" } : {}) };
    return `    ${JSON.stringify(key)}: ${JSON.stringify(entry)}`;
  });
  return `{\n  "format": ${FORMAT},\n  "days": {\n${lines.join(",\n")}${lines.length ? "\n" : ""}  }\n}\n`;
}

/** Parses `manifest.json`; throws a SyntaxError when it is not one. */
export function parseManifest(text: string): Manifest {
  const doc = JSON.parse(text) as { format?: unknown; days?: Record<string, Record<string, unknown>> };
  if (doc.format !== FORMAT || typeof doc.days !== "object" || doc.days === null) {
    throw new SyntaxError(`"${MANIFEST_FILE}" is not a format ${FORMAT} manifest`);
  }
  const manifest: Manifest = new Map();
  for (const key of Object.keys(doc.days).sort()) {
    const { hash, hours, last_actual, source } = doc.days[key]!;
    if (typeof hash !== "string" || typeof hours !== "number") {
      throw new SyntaxError(`"${MANIFEST_FILE}" has a malformed entry for ${key}`);
    }
    const lastActual = typeof last_actual === "string" ? Date.parse(last_actual) : null;
    manifest.set(key, { hash, hours, lastActual, sample: source === "sample" });
  }
  return manifest;
}

/** Rebuilds the manifest from the day files themselves (and the store's sample mark). */
export function scanManifest(dir: string): Manifest {
  const readings = join(dir, READINGS_DIR);
  const manifest: Manifest = new Map();
  if (!existsSync(readings) || sampleRemovalPending(dir)) return manifest;
  const sample = isSampleStore(dir);
  for (const name of readdirSync(readings).sort()) {
    const m = DAY_FILE.exec(name);
    if (m === null || isTempFile(name)) continue;
    const text = readFileSync(join(readings, name), "utf8");
    manifest.set(m[1]!, dayEntry(parseDay(text, m[1]!), text, sample));
  }
  return manifest;
}

/**
 * Reads the manifest, rebuilding it from the day files when it is missing or unreadable. A store
 * whose sample data is being removed reads as empty.
 */
export function loadManifest(dir: string): Manifest {
  if (sampleRemovalPending(dir)) return new Map();
  const path = join(dir, MANIFEST_FILE);
  if (!existsSync(path)) return scanManifest(dir);
  try {
    return parseManifest(readFileSync(path, "utf8"));
  } catch {
    return scanManifest(dir);
  }
}

/** Writes the manifest atomically. */
export function writeManifest(dir: string, manifest: Manifest): void {
  writeFileAtomic(join(dir, MANIFEST_FILE), serializeManifest(manifest));
}

/**
 * What an ingest starts from when a stored day file does not match the manifest. The manifest is
 * the store's commit point, so the day is taken as the manifest records it: from the month pack
 * when its slot is whole and made from the recorded content; else from what the file still holds
 * (a file an interrupted ingest replaced, or a damaged one that still parses); else from nothing.
 * A file that no longer parses is kept beside, renamed `<day>.jsonl.damaged-<time>`, for the
 * operator. The ingest then writes the day whole again.
 */
import { existsSync, readFileSync, renameSync } from "node:fs";
import { join } from "node:path";
import { type Day, dayFileName, emptyDay, parseDay } from "../store/day-file.ts";
import { isPack, monthOf, packName, unpackDay } from "../store/month-pack.ts";

/** The recovered day, and a sentence on where it came from. */
export interface Recovered {
  readonly day: Day;
  readonly note: string;
}

function parsed(text: string, key: string): Day | undefined {
  try {
    return text === "" ? undefined : parseDay(text, key);
  } catch {
    return undefined;
  }
}

/** Recovers day `key`, whose manifest hash is `hash` and whose file held `text` ("" when missing). */
export function recoverDay(
  readingsDir: string,
  key: string,
  hash: string,
  text: string,
  now: number,
): Recovered {
  const packPath = join(readingsDir, packName(monthOf(key)));
  const pack = existsSync(packPath) ? readFileSync(packPath) : undefined;
  const packed = pack !== undefined && isPack(pack) ? unpackDay(pack, key, hash) : undefined;
  const readable = parsed(text, key);
  let aside = text === "" ? "the file was missing" : "the file is rewritten";
  const path = join(readingsDir, dayFileName(key));
  if (readable === undefined && existsSync(path)) {
    const kept = `${dayFileName(key)}.damaged-${new Date(now).toISOString().replace(/[:.]/g, "")}`;
    renameSync(path, join(readingsDir, kept));
    aside = `the unreadable file is kept as ${kept}`;
  }
  if (packed !== undefined) return { day: packed, note: `restored from its month pack; ${aside}` };
  if (readable !== undefined) return { day: readable, note: `taken from what the file holds; ${aside}` };
  return { day: emptyDay(key), note: `rebuilt from the files being ingested only; ${aside}` };
}

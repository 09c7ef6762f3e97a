/**
 * The small state a maker of webhook events keeps between looks (`DATA_DIR/webhooks/grid-state.json`,
 * `outlook-state.json`): what it last saw, so that each change is told once. Both are written
 * atomically, so only a hand edit or a disk fault damages one; a damaged one must not stop every
 * later look. It is set aside beside itself (`NAME.damaged-STAMP`, kept for whoever looks into
 * it), the look goes on as a first look, and the caller is told what happened.
 */
import { existsSync, readFileSync, renameSync } from "node:fs";
import { basename } from "node:path";
import type * as v from "valibot";
import { parseDocument } from "../files/json-document.ts";

/** Where a program without a report of its own says that a state was set aside. */
export const warnOnStderr = (message: string) => void process.stderr.write(`warning: ${message}\n`);

/**
 * The state kept at `path` (null before the first look). A file that cannot be read is renamed
 * to `path.damaged-STAMP`, `warn` is given a sentence saying so, and null is returned; when it
 * cannot be renamed either, that error is thrown (nothing is written over it).
 */
export function readEventState<S extends v.GenericSchema>(
  path: string,
  schema: S,
  warn: (message: string) => void,
  now = Date.now(),
): v.InferOutput<S> | null {
  if (!existsSync(path)) return null;
  try {
    return parseDocument(readFileSync(path, "utf8"), schema, basename(path));
  } catch (error) {
    if (!(error instanceof SyntaxError)) throw error;
    const aside = `${path}.damaged-${new Date(now).toISOString().replace(/[:.]/g, "-")}`;
    renameSync(path, aside);
    warn(`${error.message}; it was set aside as ${basename(aside)} and this look starts afresh`);
    return null;
  }
}

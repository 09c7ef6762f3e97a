/**
 * What every owner of a kept document (keys' last use, sessions, request counts) holds: the data
 * directory, the document's file in it, a clock, where errors go, and with REDIS_URL the shared
 * copies every process writes to (docs/operations.md: more than one core or VM).
 */
import { join } from "node:path";
import type { SharedDocuments } from "../shared/shared-documents.ts";

export interface KeptDocument {
  readonly dir: string;
  /** The document's file in `dir`. */
  readonly path: string;
  readonly now: () => number;
  readonly onError: (error: unknown) => void;
  readonly shared: SharedDocuments | undefined;
}

/** `file` in `options.dir`, with the clock (`Date.now`) and error sink (stderr) defaulted. */
export function keptDocument(
  options: {
    dir: string;
    now?: () => number;
    onError?: (error: unknown) => void;
    shared?: SharedDocuments;
  },
  file: string,
): KeptDocument {
  return {
    dir: options.dir,
    path: join(options.dir, file),
    now: options.now ?? Date.now,
    onError: options.onError ?? ((error) => console.error(error)),
    shared: options.shared,
  };
}

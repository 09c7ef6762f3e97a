/**
 * What every owner of a kept document (keys' last use, sessions, request counts) holds: the data
 * directory, the document's file in it, a clock, where errors go, and the document store its
 * changes go through (DATA_DIR's files, or Redis's copies: `document-store.ts`).
 */
import { join } from "node:path";
import { type DocumentStore, fileDocuments } from "./document-store.ts";

/**
 * The least time between two catch-ups of one document (a read of the store's copy when DATA_DIR's
 * may be behind, for a cookie this process does not know): such cookies cost at most this many
 * reads.
 */
export const CATCH_UP_MS = 250;

export interface KeptDocument {
  readonly dir: string;
  /** The document's file in `dir`, which readers read whichever store holds the document. */
  readonly path: string;
  readonly now: () => number;
  readonly onError: (error: unknown) => void;
  readonly documents: DocumentStore;
}

/** `file` in `options.dir`; the clock (`Date.now`), error sink (stderr) and store (the files) defaulted. */
export function keptDocument(
  options: {
    dir: string;
    now?: () => number;
    onError?: (error: unknown) => void;
    documents?: DocumentStore;
  },
  file: string,
): KeptDocument {
  return {
    dir: options.dir,
    path: join(options.dir, file),
    now: options.now ?? Date.now,
    onError: options.onError ?? ((error) => console.error(error)),
    documents: options.documents ?? fileDocuments(options.dir),
  };
}

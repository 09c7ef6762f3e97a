/**
 * What every owner of a kept document (keys' last use, sessions, request counts) holds: the data
 * directory, the document's file in it, a clock, where errors go, and the document store its
 * changes go through (DATA_DIR's files, or Redis's copies: `document-store.ts`).
 */
import { join } from "node:path";
import { type DocumentStore, fileDocuments, type KeptFile } from "./document-store.ts";

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

/**
 * A catch-up of `file`: a read of the copy where it is kept (`document.documents`), handed to `take`
 * (null when there is none), for when DATA_DIR's copy may be behind. At most one read per
 * `CATCH_UP_MS`: callers meanwhile share the read under way or just done, but for a `fresh` one,
 * which reads what was written before it was asked (a sign-in). A read that fails (Redis slow or
 * away) rejects its callers, and the next call reads again rather than share that failure.
 */
export function catchUpWith(
  document: KeptDocument,
  file: KeptFile,
  take: (text: string | null) => void,
): (options?: { fresh?: boolean }) => Promise<void> {
  let last: { at: number; done: Promise<void> } | undefined;
  return (options = {}) => {
    const t = document.now();
    if (last !== undefined && t - last.at < CATCH_UP_MS && options.fresh !== true) return last.done;
    const done: Promise<void> = document.documents
      .read(file)
      .then(take)
      .catch((error: unknown) => {
        if (last?.done === done) last = undefined;
        throw error;
      });
    last = { at: t, done };
    return done;
  };
}

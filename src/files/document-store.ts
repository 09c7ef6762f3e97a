/**
 * Where the kept JSON documents (keys and their last use, accounts, sessions, request counts) are
 * stored: `DATA_DIR`'s files alone (`fileDocuments`), or Redis, with every process's `DATA_DIR`
 * keeping a copy (`shared/redis-documents.ts`). Which one is chosen once, where the program starts
 * (`server-process.ts`, the CLIs' scripts), and handed to every owner of a document: nothing below
 * asks which it is. Readers read the copy in `DATA_DIR` either way.
 */
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { writeFileAtomic } from "./atomic-write.ts";
import { withLockAsync } from "./lock-file.ts";

/** A kept document: its file in `DATA_DIR`, and the lock its writers take there. */
export interface KeptFile {
  readonly name: string;
  readonly lock: string;
}

/** What a change returns: the text to keep (null, or the same text: nothing is written), and a result. */
export interface Changed<T> {
  readonly text: string | null;
  readonly result: T;
}

export interface DocumentStore {
  /** The data directory, where the copies every reader reads are. */
  readonly dir: string;
  /**
   * Changes one document. `change` gets its current text (null when there is none) and may run
   * more than once when another process changed the document meanwhile; only the run whose text
   * was kept counts. With Redis, before Redis holds the document the text is `DATA_DIR`'s, so
   * nothing kept before is lost. `once` names a change that must not be applied twice (counts
   * added in): made again after its answer was lost (Redis busy), with the same name, a change that
   * was applied is not applied again. A file's change is applied or not when `update` returns.
   */
  update<T>(file: KeptFile, change: (text: string | null) => Changed<T>, once?: string): Promise<T>;
  /** One document's text as the store holds it now (null when there is none); nothing is written. */
  read(file: KeptFile): Promise<string | null>;
}

/** The text of `name` in `dir`, or null when there is no such file. */
export function localText(dir: string, name: string): string | null {
  const path = join(dir, name);
  return existsSync(path) ? readFileSync(path, "utf8") : null;
}

/**
 * The documents as `dir`'s files: a change is a read-modify-write under the document's lock (the
 * CLIs take the same one), written atomically. Waiting for the lock does not block the event loop;
 * once taken, the read, change and write run at once, so the lock is never held across an await
 * (a synchronous `withLock` of the same lock elsewhere in the process would wait for it forever).
 */
export function fileDocuments(dir: string): DocumentStore {
  return {
    dir,
    update(file, change) {
      mkdirSync(dirname(join(dir, file.name)), { recursive: true });
      return withLockAsync(join(dir, file.lock), () => {
        const current = localText(dir, file.name);
        const { text, result } = change(current);
        if (text !== null && text !== current) writeFileAtomic(join(dir, file.name), text, { mode: 0o600 });
        return result;
      });
    },
    read: (file) => Promise.resolve(localText(dir, file.name)),
  };
}

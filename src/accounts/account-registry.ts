/**
 * The server's view of the account store. Like the key registry, it stats `accounts.json` when
 * asked and rereads it only when it changed, so an account the CLI disables is refused on the
 * next request. An unreadable file keeps the last good view (and is reported): only a hand edit
 * can break the file the CLI and the dashboard write.
 */
import { fileStamp } from "../files/file-stamp.ts";
import { type ChangeGate, createRecheck } from "../files/change-gate.ts";
import type { DocumentStore } from "../files/document-store.ts";
import { catchUpWith, keptDocument } from "../files/kept-document.ts";
import {
  ACCOUNTS_DOCUMENT,
  ACCOUNTS_FILE,
  type AccountRecord,
  parseAccountFile,
  readAccounts,
} from "./account-file.ts";

export interface AccountRegistry {
  /** The account with that name, as stored now. */
  get(name: string): AccountRecord | undefined;
  /** Every account, as stored now. */
  all(): readonly AccountRecord[];
  /** Whether the account exists and is disabled (keys of accounts that do not exist still work). */
  isDisabled(name: string): boolean;
  /**
   * Reads the accounts where they are kept, for when DATA_DIR's copy may be behind: with REDIS_URL,
   * a session begun on another VM may be of an account made there a moment ago, which this one's
   * copy follows within a second. At most one read per `CATCH_UP_MS`, shared by the requests that
   * ask meanwhile (`fresh`: a read of its own, of what was written before it was asked); rejects
   * when the accounts cannot be read (`SharedStateUnavailable`: a 503).
   */
  catchUp(options?: { fresh?: boolean }): Promise<void>;
}

/** Opens the account store in `dir`; `onError` hears of an unreadable file. */
export function createAccountRegistry(options: {
  dir: string;
  now?: () => number;
  onError?: (error: unknown) => void;
  /** The data directory's change gate: `accounts.json` is restatted only when it may have changed. */
  gate?: ChangeGate;
  /** Where the accounts are kept (DATA_DIR's file, the default, or with REDIS_URL Redis's copy). */
  documents?: DocumentStore;
}): AccountRegistry {
  const recheck = createRecheck(options.gate);
  const document = keptDocument(options, ACCOUNTS_FILE);
  const { path, onError } = document;
  let stamp = "";
  let accounts: readonly AccountRecord[] = [];
  let byName = new Map<string, AccountRecord>();

  // An unreadable text keeps the last good view (reported).
  function take(read: () => AccountRecord[]): void {
    try {
      accounts = read();
      byName = new Map(accounts.map((a) => [a.name, a]));
    } catch (error) {
      onError(error);
    }
  }

  function reload(): void {
    const next = fileStamp(path);
    if (next === stamp) return;
    stamp = next;
    take(() => readAccounts(options.dir));
  }

  // The view becomes the kept copy's until DATA_DIR's file changes (when its follower writes it).
  const catchUp = catchUpWith(document, ACCOUNTS_DOCUMENT, (text) => {
    if (text !== null) take(() => parseAccountFile(text));
  });

  reload();
  return {
    get(name) {
      if (recheck()) reload();
      return byName.get(name);
    },
    all() {
      if (recheck()) reload();
      return accounts;
    },
    isDisabled(name) {
      if (recheck()) reload();
      const account = byName.get(name);
      return account !== undefined && account.disabled !== null;
    },
    catchUp,
  };
}

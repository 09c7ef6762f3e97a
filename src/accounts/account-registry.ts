/**
 * The server's view of the account store. Like the key registry, it stats `accounts.json` when
 * asked and rereads it only when it changed, so an account the CLI disables is refused on the
 * next request. An unreadable file keeps the last good view (and is reported): only a hand edit
 * can break the file the CLI and the dashboard write.
 */
import { fileStamp } from "../files/file-stamp.ts";
import { type ChangeGate, createRecheck } from "../files/change-gate.ts";
import { join } from "node:path";
import { ACCOUNTS_FILE, type AccountRecord, readAccounts } from "./account-file.ts";

export interface AccountRegistry {
  /** The account with that name, as stored now. */
  get(name: string): AccountRecord | undefined;
  /** Every account, as stored now. */
  all(): readonly AccountRecord[];
  /** Whether the account exists and is disabled (keys of accounts that do not exist still work). */
  isDisabled(name: string): boolean;
}

/** Opens the account store in `dir`; `onError` hears of an unreadable file. */
export function createAccountRegistry(options: {
  dir: string;
  onError?: (error: unknown) => void;
  /** The data directory's change gate: `accounts.json` is restatted only when it may have changed. */
  gate?: ChangeGate;
}): AccountRegistry {
  const recheck = createRecheck(options.gate);
  const path = join(options.dir, ACCOUNTS_FILE);
  const onError = options.onError ?? ((error) => console.error(error));
  let stamp = "";
  let accounts: readonly AccountRecord[] = [];
  let byName = new Map<string, AccountRecord>();

  function reload(): void {
    const next = fileStamp(path);
    if (next === stamp) return;
    stamp = next;
    try {
      accounts = readAccounts(options.dir);
      byName = new Map(accounts.map((a) => [a.name, a]));
    } catch (error) {
      onError(error);
    }
  }

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
  };
}

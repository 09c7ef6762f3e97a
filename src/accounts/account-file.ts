/**
 * The account store, `DATA_DIR/accounts.json` (mode 0600): one record per account with its
 * password hash, never the password. Like the key store, it is changed under a lock with
 * read-modify-write and an atomic replace, so the CLI and the dashboard never lose each other's
 * changes; a file that does not parse is refused with a message naming what is wrong.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import * as v from "valibot";
import type { DocumentStore, KeptFile } from "../files/document-store.ts";
import { parseDocument } from "../files/json-document.ts";
import { PasswordHashSchema } from "./password.ts";

export const ACCOUNTS_FILE = "accounts.json";
/** The accounts file, as a kept document under its own lock. */
export const ACCOUNTS_DOCUMENT: KeptFile = { name: ACCOUNTS_FILE, lock: ".accounts.lock" };
const FORMAT = 1;

/** What an account name may be: it is also the `account` of its keys, and shown in URLs and logs. */
export const ACCOUNT_NAME = /^[a-z0-9][a-z0-9._-]{0,63}$/;

const Iso = v.pipe(v.string(), v.isoTimestamp());

const AccountSchema = v.object({
  name: v.pipe(v.string(), v.regex(ACCOUNT_NAME)),
  admin: v.boolean(),
  password: PasswordHashSchema,
  /** Set for a one-time password: the dashboard asks for a new one before anything else. */
  mustChangePassword: v.boolean(),
  created: Iso,
  /** When the account was disabled, or null. */
  disabled: v.nullable(Iso),
  /** Sessions begun before this instant are over (a password change, a reset, a disable). */
  sessionsValidAfter: Iso,
});

const AccountFileSchema = v.object({ format: v.literal(FORMAT), accounts: v.array(AccountSchema) });

/** One account as stored. */
export type AccountRecord = v.InferOutput<typeof AccountSchema>;

/** Parses the account file's text; throws a SyntaxError naming what is wrong. */
export function parseAccountFile(text: string): AccountRecord[] {
  const { accounts } = parseDocument(text, AccountFileSchema, ACCOUNTS_FILE);
  const seen = new Set<string>();
  for (const account of accounts) {
    if (seen.has(account.name))
      throw new SyntaxError(`Cannot read "${ACCOUNTS_FILE}": "${account.name}" appears twice`);
    seen.add(account.name);
  }
  return accounts;
}

/** Every account in `dir` (none when the file does not exist yet). */
export function readAccounts(dir: string): AccountRecord[] {
  const path = join(dir, ACCOUNTS_FILE);
  return existsSync(path) ? parseAccountFile(readFileSync(path, "utf8")) : [];
}

/** The accounts file's text for `accounts`. */
function serialize(accounts: readonly AccountRecord[]): string {
  return JSON.stringify({ format: FORMAT, accounts }, null, 2) + "\n";
}

/**
 * Changes the accounts through the document store (DATA_DIR's file under its lock, or Redis's copy
 * every process follows); `change` returns its result. Waiting does not block the event loop, so
 * the dashboard can call it on a running server.
 */
export function updateAccounts<T>(
  documents: DocumentStore,
  change: (accounts: AccountRecord[]) => T,
): Promise<T> {
  return documents.update(ACCOUNTS_DOCUMENT, (text) => {
    const accounts = text === null ? [] : parseAccountFile(text);
    const result = change(accounts);
    return { text: serialize(accounts), result };
  });
}

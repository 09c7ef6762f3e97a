/**
 * What can be done to accounts, by the operator's CLI and by the dashboard alike: create, reset a
 * password, change one's own, disable, enable, list. Passwords are hashed before the store's lock
 * is taken, so the lock is held for a read and a write only.
 */
import { type DocumentStore, fileDocuments } from "../files/document-store.ts";
import { ACCOUNT_NAME, type AccountRecord, readAccounts, updateAccounts } from "./account-file.ts";
import { generatePassword, hashPassword, passwordProblem, type ScryptParams } from "./password.ts";
import { guessable } from "./guessable.ts";

/** A request about accounts that cannot be carried out: the message says why, for the user. */
export class AccountError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "AccountError";
  }
}

/** Lower-cases a typed account name and checks its shape; throws an AccountError. */
export function normalizeAccountName(name: string): string {
  const normalized = name.trim().toLowerCase();
  if (!ACCOUNT_NAME.test(normalized)) {
    throw new AccountError(
      `"${name}" is not a valid account name: use 1 to 64 letters, digits, ".", "_" or "-", starting with a letter or digit`,
    );
  }
  return normalized;
}

function find(accounts: AccountRecord[], name: string): AccountRecord {
  const account = accounts.find((a) => a.name === name);
  if (account === undefined) throw new AccountError(`No account is named "${name}"`);
  return account;
}

// A chosen password is checked (its form, then how guessable it is for `name`); none means a
// generated one-time password the user must change.
async function newPassword(chosen: string | undefined, name: string, params?: ScryptParams) {
  if (chosen !== undefined) {
    const problem = passwordProblem(chosen) ?? (await guessable(chosen, name));
    if (problem !== undefined) throw new AccountError(problem);
  }
  const password = chosen ?? generatePassword();
  return { password, oneTime: chosen === undefined, hash: await hashPassword(password, params) };
}

/** What creating an account or resetting its password gives: the one-time password, if generated. */
export interface PasswordOutcome {
  readonly account: AccountRecord;
  /** The generated one-time password; shown once and never stored. */
  readonly oneTimePassword: string | undefined;
}

/**
 * Creates an account; without `password` it gets a one-time password to change at first sign-in.
 * `scrypt` is for tests, whose accounts need not cost a real hash's 32 MiB and 170 ms per sign-in.
 */
export async function createAccount(
  dir: string,
  options: {
    name: string;
    admin?: boolean;
    password?: string;
    now?: Date;
    documents?: DocumentStore;
    scrypt?: ScryptParams;
  },
): Promise<PasswordOutcome> {
  const name = normalizeAccountName(options.name);
  const { password, oneTime, hash } = await newPassword(options.password, name, options.scrypt);
  const stamp = (options.now ?? new Date()).toISOString();
  const account: AccountRecord = {
    name,
    admin: options.admin ?? false,
    password: hash,
    mustChangePassword: oneTime,
    created: stamp,
    disabled: null,
    sessionsValidAfter: stamp,
  };
  await updateAccounts(options.documents ?? fileDocuments(dir), (accounts) => {
    if (accounts.some((a) => a.name === name))
      throw new AccountError(`An account named "${name}" exists already`);
    accounts.push(account);
  });
  return { account, oneTimePassword: oneTime ? password : undefined };
}

/** Sets a new password (a one-time one when none is given) and ends the account's sessions. */
export async function resetPassword(
  dir: string,
  name: string,
  options: { password?: string; now?: Date; documents?: DocumentStore } = {},
): Promise<PasswordOutcome> {
  const { password, oneTime, hash } = await newPassword(options.password, name);
  const account = await updateAccounts(options.documents ?? fileDocuments(dir), (accounts) => {
    const account = find(accounts, name);
    account.password = hash;
    account.mustChangePassword = oneTime;
    account.sessionsValidAfter = (options.now ?? new Date()).toISOString();
    return { ...account };
  });
  return { account, oneTimePassword: oneTime ? password : undefined };
}

/** The user's own change, after the dashboard has checked the current password; ends other sessions. */
export async function changePassword(
  dir: string,
  name: string,
  password: string,
  options: { now?: Date; documents?: DocumentStore } = {},
): Promise<AccountRecord> {
  const { hash } = await newPassword(password, name);
  const now = options.now ?? new Date();
  return updateAccounts(options.documents ?? fileDocuments(dir), (accounts) => {
    const account = find(accounts, name);
    account.password = hash;
    account.mustChangePassword = false;
    account.sessionsValidAfter = now.toISOString();
    return { ...account };
  });
}

/** Disables (its sessions end, its keys stop working at once) or enables an account. */
export function setAccountDisabled(
  dir: string,
  name: string,
  disabled: boolean,
  options: { now?: Date; documents?: DocumentStore } = {},
): Promise<AccountRecord> {
  const now = options.now ?? new Date();
  return updateAccounts(options.documents ?? fileDocuments(dir), (accounts) => {
    const account = find(accounts, name);
    if (disabled && account.disabled === null) {
      account.disabled = now.toISOString();
      account.sessionsValidAfter = now.toISOString();
    }
    if (!disabled) account.disabled = null;
    return { ...account };
  });
}

/** Every account, in creation order. */
export function listAccounts(dir: string): AccountRecord[] {
  return readAccounts(dir);
}

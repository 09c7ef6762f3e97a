/**
 * `npm run --silent accounts -- COMMAND`: the operator's account commands. The last line of
 * stdout is the one thing a script needs (a generated one-time password, else the account name);
 * everything else a command says goes to stderr, except listings.
 */
import { type DocumentStore, fileDocuments } from "../files/document-store.ts";
import { parseArgs } from "node:util";
import { readKeys } from "../keys/key-file.ts";
import {
  AccountError,
  createAccount,
  listAccounts,
  normalizeAccountName,
  type PasswordOutcome,
  resetPassword,
  setAccountDisabled,
} from "./account-admin.ts";

export const USAGE = `Usage: npm run --silent accounts -- COMMAND

Commands:
  create NAME [--admin] [--password-stdin]
                      create an account; without --password-stdin a one-time password is
                      printed as the last line of stdout, to be changed at first sign-in
  list [--json]       show name, role, status, password state, created and keys
  reset-password NAME [--password-stdin]
                      set a new password (one-time unless read from stdin); ends its sessions
  disable NAME        end its sessions and stop its keys, at once
  enable NAME         let it sign in and use its keys again

The store is DATA_DIR (default ./data). Users sign in at /dashboard/sign-in.
`;

/** Where a command reads and writes. */
export interface AccountsCliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** All of standard input, for --password-stdin. */
  stdin: () => Promise<string>;
}

class UsageError extends Error {}

interface Parsed {
  readonly name: string | undefined;
  readonly flags: Readonly<Record<string, boolean>>;
}

function parse(rest: readonly string[], flags: readonly string[], wantsName: boolean): Parsed {
  const { values, positionals } = parseArgs({
    args: [...rest],
    options: Object.fromEntries(flags.map((f) => [f, { type: "boolean" as const }])),
    strict: true,
    allowPositionals: true,
  });
  if (positionals.length !== (wantsName ? 1 : 0)) {
    throw new UsageError(wantsName ? "the command takes one account NAME" : "the command takes no NAME");
  }
  return { name: positionals[0], flags: values as Record<string, boolean> };
}

// The password from stdin: one trailing newline is the terminator, not part of it.
async function stdinPassword(io: AccountsCliIo): Promise<string> {
  const text = (await io.stdin()).replace(/\r?\n$/, "");
  if (text.includes("\n")) throw new AccountError("The password from stdin must be one line");
  return text;
}

function reportPassword(io: AccountsCliIo, outcome: PasswordOutcome): void {
  if (outcome.oneTimePassword === undefined) {
    io.stdout(outcome.account.name + "\n");
    return;
  }
  io.stderr("This one-time password is shown only this once; the user must change it at first sign-in.\n");
  io.stdout(outcome.oneTimePassword + "\n");
}

// `documents`: where changes go (DATA_DIR's files, or with REDIS_URL Redis's copies).
type Command = (
  rest: readonly string[],
  dir: string,
  io: AccountsCliIo,
  documents: DocumentStore,
) => void | Promise<void>;

const COMMANDS: Readonly<Record<string, Command>> = {
  async create(rest, dir, io, documents) {
    const { name, flags } = parse(rest, ["admin", "password-stdin"], true);
    const password = flags["password-stdin"] ? await stdinPassword(io) : undefined;
    const outcome = await createAccount(dir, {
      name: name!,
      admin: flags.admin === true,
      password,
      documents,
    });
    const role = outcome.account.admin ? "an admin account" : "an account";
    io.stderr(`Created ${role} "${outcome.account.name}".\n`);
    reportPassword(io, outcome);
  },
  list(rest, dir, io) {
    const { flags } = parse(rest, ["json"], false);
    const accounts = listAccounts(dir);
    const keys = readKeys(dir);
    const rows = accounts.map((a) => ({
      name: a.name,
      role: a.admin ? "admin" : "user",
      status: a.disabled === null ? "active" : "disabled",
      password: a.mustChangePassword ? "one-time" : "set",
      created: a.created,
      disabled: a.disabled,
      active_keys: keys.filter((k) => k.account === a.name && k.revoked === null).length,
    }));
    if (flags.json) {
      io.stdout(JSON.stringify(rows, null, 2) + "\n");
      return;
    }
    if (rows.length === 0) {
      io.stderr("No accounts yet. Create one with: npm run --silent accounts -- create NAME\n");
      return;
    }
    const table = [
      ["NAME", "ROLE", "STATUS", "PASSWORD", "CREATED", "ACTIVE KEYS"],
      ...rows.map((r) => [
        r.name,
        r.role,
        r.status,
        r.password,
        r.created.slice(0, 19) + "Z",
        String(r.active_keys),
      ]),
    ];
    const widths = table[0]!.map((_, c) => Math.max(...table.map((r) => r[c]!.length)));
    io.stdout(
      table
        .map((r) =>
          r
            .map((cell, c) => cell.padEnd(widths[c]!))
            .join("  ")
            .trimEnd(),
        )
        .join("\n") + "\n",
    );
  },
  async "reset-password"(rest, dir, io, documents) {
    const { name, flags } = parse(rest, ["password-stdin"], true);
    const password = flags["password-stdin"] ? await stdinPassword(io) : undefined;
    const outcome = await resetPassword(dir, normalizeAccountName(name!), { password, documents });
    io.stderr(`Set a new password for "${outcome.account.name}"; its sessions have ended.\n`);
    reportPassword(io, outcome);
  },
  async disable(rest, dir, io, documents) {
    const { name } = parse(rest, [], true);
    const account = await setAccountDisabled(dir, normalizeAccountName(name!), true, { documents });
    io.stderr(`Disabled "${account.name}": its sessions have ended and its keys are refused.\n`);
  },
  async enable(rest, dir, io, documents) {
    const { name } = parse(rest, [], true);
    const account = await setAccountDisabled(dir, normalizeAccountName(name!), false, { documents });
    io.stderr(`Enabled "${account.name}": it can sign in, and its active keys work again.\n`);
  },
};

/** Runs one command against the store in `dir`; resolves to the exit code. */
export async function runAccountsCli(
  argv: readonly string[],
  options: { dir: string; io: AccountsCliIo; documents?: DocumentStore },
): Promise<number> {
  const { dir, io } = options;
  const documents = options.documents ?? fileDocuments(dir);
  const [command, ...rest] = argv;
  if (command === "help" || command === "--help" || command === "-h") {
    io.stdout(USAGE);
    return 0;
  }
  try {
    const run = command === undefined ? undefined : COMMANDS[command];
    if (run === undefined) {
      throw new UsageError(command === undefined ? "a command is required" : `unknown command "${command}"`);
    }
    await run(rest, dir, io, documents);
    return 0;
  } catch (error) {
    if (error instanceof UsageError || (error as NodeJS.ErrnoException).code?.startsWith("ERR_PARSE_ARGS")) {
      io.stderr(`Error: ${(error as Error).message}\n\n${USAGE}`);
      return 2;
    }
    if (error instanceof AccountError || error instanceof SyntaxError) {
      io.stderr(`Error: ${error.message}\n`);
      return 1;
    }
    throw error;
  }
}

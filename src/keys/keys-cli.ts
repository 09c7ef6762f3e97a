/**
 * `npm run --silent keys -- COMMAND`: the operator's key commands. `create` prints the full key
 * as the last line of stdout, and only there, so `KEY=$(npm run --silent keys -- create ...)`
 * works; everything else a command says goes to stderr, except listings.
 */
import { NAME_FORBIDDEN } from "./key-name.ts";
import { parseArgs } from "node:util";
import * as v from "valibot";
import { configuredLimits, parseLimitAssignments, SCOPES, type Scope } from "../limits/scopes.ts";
import { createKey, KeyNotFoundError, listKeys, revokeKey, setKeyLimits } from "./key-admin.ts";

export const USAGE = `Usage: npm run --silent keys -- COMMAND

Commands:
  create --name NAME [--account ACCOUNT] [--limit SCOPE=N ...]
                      create a key for an existing account (default: admin); prints the
                      key (only once) as the last line of stdout
  list [--account ACCOUNT] [--json]
                      show id, account, name, prefix, created, last used, status and limits
  revoke ID_OR_PREFIX revoke a key, at once and for good
  limit ID_OR_PREFIX SCOPE=N|SCOPE=default ...
                      set or remove a key's own limits

Scopes: ${SCOPES.join(", ")}. The store is DATA_DIR (default ./data).
`;

/** Where a command writes. */
export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

const Label = v.pipe(
  v.string(),
  v.trim(),
  v.minLength(1, "must not be empty"),
  v.maxLength(100, "must be at most 100 characters"),
  v.check((text) => !NAME_FORBIDDEN.test(text), "must not hold control characters or bidirectional controls"),
);

class UsageError extends Error {}

function label(value: string | undefined, what: string): string {
  if (value === undefined) throw new UsageError(`${what} is required`);
  const result = v.safeParse(Label, value);
  if (!result.success) throw new UsageError(`${what} ${result.issues[0].message}`);
  return result.output;
}

function limits(parts: readonly string[], allowDefault: boolean): Partial<Record<Scope, number | null>> {
  try {
    return parseLimitAssignments(parts, { allowDefault });
  } catch (error) {
    throw new UsageError(`--limit ${(error as Error).message}`);
  }
}

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  return (
    rows
      .map((r) =>
        r
          .map((cell, c) => cell.padEnd(widths[c]!))
          .join("  ")
          .trimEnd(),
      )
      .join("\n") + "\n"
  );
}

interface Context {
  readonly dir: string;
  readonly io: CliIo;
  readonly env: NodeJS.ProcessEnv | undefined;
  /** The accounts that exist: a key is made only for one of them. */
  readonly accounts: () => readonly string[];
}

/** A key asked for an account that does not exist: nobody could see or revoke it. */
class NoSuchAccountError extends Error {}

const shownLimits = (limits: Readonly<Record<string, number>>) =>
  Object.entries(limits)
    .map(([s, n]) => `${s}=${n}`)
    .join(", ") || "defaults";

function create(rest: readonly string[], { dir, io, accounts }: Context): void {
  const { values } = parseArgs({
    args: [...rest],
    options: {
      name: { type: "string" },
      account: { type: "string" },
      limit: { type: "string", multiple: true },
    },
    strict: true,
    allowPositionals: false,
  });
  const name = label(values.name, "--name");
  const account = label(values.account ?? "admin", "--account");
  const existing = accounts();
  if (!existing.includes(account)) {
    throw new NoSuchAccountError(
      `No account is named "${account}", so no one could see or revoke its key: ` +
        `create it first (npm run --silent accounts -- create ${JSON.stringify(account)})` +
        (existing.length > 0 ? `, or name one of: ${existing.join(", ")}` : ""),
    );
  }
  const overrides = limits(values.limit ?? [], false) as Partial<Record<Scope, number>>;
  const { key, record } = createKey(dir, { name, account, limits: overrides });
  io.stderr(
    `Created key ${record.id} (${record.prefix}…) for account "${account}", name "${name}", limits: ${shownLimits(record.limits)}.\n` +
      "This is the only time the full key is shown; store it now.\n",
  );
  io.stdout(key + "\n");
}

function list(rest: readonly string[], { dir, io, env }: Context): void {
  const { values } = parseArgs({
    args: [...rest],
    options: { account: { type: "string" }, json: { type: "boolean" } },
    strict: true,
    allowPositionals: false,
  });
  const keys = listKeys(dir, values.account);
  if (values.json) {
    const out = keys.map((k) => ({
      id: k.id,
      account: k.account,
      name: k.name,
      prefix: k.prefix,
      created: k.created,
      last_used: k.lastUsed,
      status: k.revoked === null ? "active" : "revoked",
      revoked: k.revoked,
      limits: k.limits,
    }));
    io.stdout(JSON.stringify(out, null, 2) + "\n");
    return;
  }
  if (keys.length === 0) {
    io.stderr("No keys yet. Create one with: npm run --silent keys -- create --name NAME\n");
    return;
  }
  const defaults = configuredLimits(env?.RATE_LIMITS);
  const rows = [["ID", "ACCOUNT", "NAME", "PREFIX", "CREATED", "LAST USED", "STATUS", "LIMITS/60s"]];
  for (const k of keys) {
    const effective = SCOPES.map(
      (s) => `${s}=${k.limits[s] ?? defaults[s]}${k.limits[s] === undefined ? "" : "*"}`,
    );
    rows.push([
      k.id,
      k.account,
      k.name,
      k.prefix,
      k.created.slice(0, 19) + "Z",
      k.lastUsed === null ? "never" : k.lastUsed.slice(0, 19) + "Z",
      k.revoked === null ? "active" : "revoked",
      effective.join(" "),
    ]);
  }
  io.stdout(table(rows));
  io.stdout("(* = the key's own limit)\n");
}

function revoke(rest: readonly string[], { dir, io }: Context): void {
  const { positionals } = parseArgs({ args: [...rest], strict: true, allowPositionals: true });
  if (positionals.length !== 1) throw new UsageError("revoke takes one ID_OR_PREFIX");
  const { record, already } = revokeKey(dir, positionals[0]!);
  io.stderr(
    already
      ? `Key ${record.id} (${record.prefix}…) was already revoked at ${record.revoked}.\n`
      : `Revoked key ${record.id} (${record.prefix}…) of account "${record.account}", name "${record.name}".\n`,
  );
}

function limit(rest: readonly string[], { dir, io }: Context): void {
  const { positionals } = parseArgs({ args: [...rest], strict: true, allowPositionals: true });
  if (positionals.length < 2) throw new UsageError("limit takes ID_OR_PREFIX and at least one SCOPE=N");
  const record = setKeyLimits(dir, positionals[0]!, limits(positionals.slice(1), true));
  io.stderr(`Key ${record.id} (${record.prefix}…) now has limits: ${shownLimits(record.limits)}.\n`);
}

function help(_rest: readonly string[], { io }: Context): void {
  io.stdout(USAGE);
}

/** The commands, by name. */
const COMMANDS: Readonly<Record<string, (rest: readonly string[], ctx: Context) => void>> = {
  create,
  list,
  revoke,
  limit,
  help,
  "--help": help,
  "-h": help,
};

/** Runs one command against the store in `dir`; returns the exit code. */
export function runKeysCli(
  argv: readonly string[],
  options: { dir: string; io: CliIo; env?: NodeJS.ProcessEnv; accounts: () => readonly string[] },
): number {
  const { io } = options;
  const [command, ...rest] = argv;
  try {
    const run = command === undefined ? undefined : COMMANDS[command];
    if (run === undefined) {
      throw new UsageError(command === undefined ? "a command is required" : `unknown command "${command}"`);
    }
    run(rest, { dir: options.dir, io, env: options.env, accounts: options.accounts });
    return 0;
  } catch (error) {
    if (error instanceof UsageError || (error as NodeJS.ErrnoException).code?.startsWith("ERR_PARSE_ARGS")) {
      io.stderr(`Error: ${(error as Error).message}\n\n${USAGE}`);
      return 2;
    }
    if (error instanceof KeyNotFoundError || error instanceof NoSuchAccountError) {
      io.stderr(`Error: ${error.message}\n`);
      return 1;
    }
    throw error;
  }
}

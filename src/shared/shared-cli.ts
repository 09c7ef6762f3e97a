/**
 * The CLIs with `REDIS_URL` set: a command runs against Redis's copy of the documents it changes,
 * so a key created or revoked on one VM is honoured on every VM. The keys CLI works on files, so
 * it runs in a scratch directory holding Redis's `keys.json` (and this VM's last-use times), and
 * what it wrote is stored back as one compare-and-set: when another process changed the keys
 * meanwhile, the command runs again on the new text, and only the run that was stored speaks.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync, copyFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { localText } from "../files/document-store.ts";
import { KEYS_FILE, USAGE_FILE } from "../keys/key-file.ts";
import { connectRedis, type RedisConnection, redactedUrl } from "./redis-connection.ts";
import { migrateRedis } from "./redis-migrations.ts";
import { sharedDocuments, type SharedDocuments } from "./shared-documents.ts";

export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
}

/** Connects the CLI to Redis (or fails in 3 s, saying so), runs `work`, disconnects. */
export async function withSharedDocuments<T>(
  url: string,
  work: (documents: SharedDocuments, connection: RedisConnection) => Promise<T>,
): Promise<T> {
  const connection = connectRedis(url, { log: () => {}, commandTimeoutMs: 2_000 });
  try {
    if (!(await connection.ready(3_000))) throw new Error(`Redis at ${redactedUrl(url)} is unreachable`);
    await migrateRedis(connection.client, (line) => void process.stderr.write(`${line}\n`));
    return await work(sharedDocuments(connection), connection);
  } finally {
    await connection.close();
  }
}

/** Runs a file-based CLI `run(dir, io)` against Redis's `keys.json`; returns its exit code. */
export async function runOnSharedKeys(
  documents: SharedDocuments,
  dataDir: string,
  io: CliIo,
  run: (dir: string, io: CliIo) => number,
): Promise<number> {
  let said: [keyof CliIo, string][] = [];
  const code = await documents.update(KEYS_FILE, dataDir, (text) => {
    const scratch = mkdtempSync(join(tmpdir(), "gds-keys-"));
    try {
      // Before the first change in Redis, the command starts from DATA_DIR's keys: none is lost.
      const start = text ?? localText(dataDir, KEYS_FILE);
      if (start !== null) writeFileSync(join(scratch, KEYS_FILE), start, { mode: 0o600 });
      if (existsSync(join(dataDir, USAGE_FILE)))
        copyFileSync(join(dataDir, USAGE_FILE), join(scratch, USAGE_FILE));
      said = [];
      const result = run(scratch, {
        stdout: (t) => said.push(["stdout", t]),
        stderr: (t) => said.push(["stderr", t]),
      });
      const written = existsSync(join(scratch, KEYS_FILE))
        ? readFileSync(join(scratch, KEYS_FILE), "utf8")
        : text;
      return { text: written, result };
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });
  for (const [stream, text] of said) io[stream](text);
  return code;
}

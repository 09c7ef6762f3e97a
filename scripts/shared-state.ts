/**
 * `npm run --silent shared-state -- import|export|status`: moves the documents every process must
 * agree on (keys, accounts, sessions, request counts, last-use times, webhook subscriptions, with
 * the key their secrets are sealed under) between DATA_DIR and the Redis at REDIS_URL.
 * `import` is the one-time move to Redis when a single server grows into several; `export` writes
 * Redis's copies back into DATA_DIR (to go back to one process without Redis, or as a backup).
 */
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { parseAccountFile } from "../src/accounts/account-file.ts";
import { parseKeyFile } from "../src/keys/key-file.ts";
import { withSharedDocuments } from "../src/shared/shared-cli.ts";
import { SHARED_FILES, type SharedFile } from "../src/shared/shared-documents.ts";
import { writeFileAtomic } from "../src/files/atomic-write.ts";
import { exportSealingKey, importSealingKey } from "../src/webhooks/redis-webhooks.ts";
import { parseSubscriptionFile } from "../src/webhooks/subscriptions.ts";

const USAGE = "Usage: REDIS_URL=redis://HOST:PORT npm run --silent shared-state -- import|export|status\n";
const command = process.argv[2];
const url = process.env.REDIS_URL;
const dir = resolve(process.env.DATA_DIR || "data");
if (!url || !["import", "export", "status"].includes(command ?? "")) {
  process.stderr.write(USAGE);
  process.exit(2);
}

// A document is checked before it is shared: a damaged file must not reach every process.
const check: Partial<Record<SharedFile, (text: string) => unknown>> = {
  "keys.json": parseKeyFile,
  "accounts.json": parseAccountFile,
  "sessions.json": (text) => void JSON.parse(text),
  "request-counts.json": (text) => void JSON.parse(text),
  "key-usage.json": (text) => void JSON.parse(text),
  "webhooks/subscriptions.json": (text) => parseSubscriptionFile(text),
};

try {
  await withSharedDocuments(url, async (documents, connection) => {
    for (const file of SHARED_FILES) {
      const path = join(dir, file);
      if (command === "import") {
        if (!existsSync(path)) {
          process.stderr.write(`${file}: not in ${dir}, left as Redis has it\n`);
          continue;
        }
        const text = readFileSync(path, "utf8");
        check[file]?.(text);
        await documents.replace(file, text);
        process.stderr.write(`${file}: imported from ${path}\n`);
      } else {
        const { text, version } = await documents.read(file);
        if (command === "status") {
          process.stdout.write(
            `${file}\t${text === null ? "not in Redis" : `version ${version}, ${text.length} bytes`}\n`,
          );
        } else if (text === null) {
          process.stderr.write(`${file}: not in Redis, ${path} left as it is\n`);
        } else {
          mkdirSync(dirname(path), { recursive: true });
          writeFileAtomic(path, text, { mode: 0o600 });
          process.stderr.write(`${file}: exported to ${path}\n`);
        }
      }
    }
    // The subscriptions' secrets are readable only under the key they were sealed with.
    if (command === "import" && (await importSealingKey(connection.client, dir)))
      process.stderr.write("webhooks/seal.key: imported\n");
    if (command === "export" && (await exportSealingKey(connection.client, dir)))
      process.stderr.write("webhooks/seal.key: exported\n");
  });
} catch (error) {
  process.stderr.write(`Error: ${(error as Error).message}\n`);
  process.exitCode = 1;
}

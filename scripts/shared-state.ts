/**
 * `npm run --silent shared-state -- import|export|status`: moves the documents every process must
 * agree on (keys, accounts, sessions, request counts, last-use times, webhook subscriptions)
 * between DATA_DIR and the Redis at REDIS_URL. The key the subscriptions' secrets are sealed under
 * never goes to Redis: `import` records its id there, and each VM must hold the key itself.
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
import { recordSealingKey, SEAL_KEY_ID } from "../src/webhooks/redis-sealing.ts";
import { localSealingKeys, SEAL_KEY_FILE } from "../src/webhooks/webhook-stores.ts";
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
    // The subscriptions' secrets are readable only under the key they were sealed with, which
    // stays on the VMs: Redis learns which one it is.
    const source = { dataDir: dir, sealKey: process.env.WEBHOOK_SEAL_KEY };
    const hasKey = Boolean(source.sealKey) || existsSync(join(dir, SEAL_KEY_FILE));
    if (command === "import" && hasKey && existsSync(join(dir, "webhooks/subscriptions.json"))) {
      const { id } = localSealingKeys(source);
      await recordSealingKey(connection.client, id);
      process.stderr.write(
        `${SEAL_KEY_FILE}: stays on this VM (id ${id}); give every VM the same key (docs/webhooks.md, "The sealing key")\n`,
      );
    }
    if (command === "status") {
      const recorded = await connection.client.get(SEAL_KEY_ID);
      const here = hasKey ? localSealingKeys(source).ids.join(", ") : "none yet";
      process.stdout.write(
        `sealing key\tid ${recorded ?? "not recorded yet"} in Redis; this VM holds ${here}\n`,
      );
    }
  });
} catch (error) {
  process.stderr.write(`Error: ${(error as Error).message}\n`);
  process.exitCode = 1;
}

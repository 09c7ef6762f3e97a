/**
 * `npm run --silent webhooks -- COMMAND`: webhook subscriptions and their deliveries in DATA_DIR,
 * or, with REDIS_URL set, in Redis, where every server process and VM reads them (see
 * `webhooks help`).
 */
import { resolve } from "node:path";
import { withSharedDocuments } from "../src/shared/shared-cli.ts";
import { redisDocumentStore } from "../src/shared/shared-documents.ts";
import { redisWebhookStores } from "../src/webhooks/redis-webhooks.ts";
import { fileWebhookStores, type WebhookStores } from "../src/webhooks/webhook-stores.ts";
import { runWebhooksCli } from "../src/webhooks/webhooks-cli.ts";
import { DATASETS } from "../src/datasets/registry.ts";

const dir = resolve(process.env.DATA_DIR || "data");
const rules = {
  allowPrivate: process.env.WEBHOOK_ALLOW_PRIVATE === "1",
  allowHttp: process.env.WEBHOOK_ALLOW_HTTP === "1",
};
const sealKey = process.env.WEBHOOK_SEAL_KEY;
// The datasets a subscription may name: those the catalog describes.
const datasets = DATASETS.map((d) => d.id);
const run = (webhooks: WebhookStores) =>
  runWebhooksCli(
    process.argv.slice(2),
    webhooks,
    rules,
    {
      stdout: (t) => void process.stdout.write(t),
      stderr: (t) => void process.stderr.write(t),
    },
    datasets,
  );
try {
  const url = process.env.REDIS_URL;
  process.exitCode =
    url === undefined || url === ""
      ? await run(fileWebhookStores(dir, { sealKey }))
      : await withSharedDocuments(url, (shared, connection) =>
          run(
            redisWebhookStores(connection.client, dir, redisDocumentStore(shared, dir), {
              sealKey,
              log: (line) => void process.stderr.write(`${line}\n`),
            }),
          ),
        );
} catch (error) {
  process.stderr.write(`Error: ${(error as Error).message}\n`);
  process.exitCode = 1;
}

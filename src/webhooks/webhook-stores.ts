/**
 * Where the webhooks' state is kept, chosen once where the program starts (`server-process.ts`,
 * `scripts/webhooks.ts`) and handed to every part that touches it: the subscriptions document,
 * the outbox, and the key that seals the signing secrets. On one VM all three are in DATA_DIR;
 * with REDIS_URL all three are in Redis (`redis-webhooks.ts`), so every VM sees one set.
 */
import { join } from "node:path";
import { type DocumentStore, fileDocuments } from "../files/document-store.ts";
import { fileOutbox, type OutboxStore } from "./outbox-store.ts";
import { sealingKey } from "../files/sealing.ts";
import { WEBHOOKS_DIR } from "./subscriptions.ts";

/** DATA_DIR's sealing key, made on first use. */
export const SEAL_KEY_FILE = `${WEBHOOKS_DIR}/seal.key`;

export interface WebhookStores {
  /** The data directory, whose copy of the subscriptions every reader reads. */
  readonly dataDir: string;
  /** Where changes to the subscriptions go. */
  readonly documents: DocumentStore;
  readonly outbox: OutboxStore;
  /** The key the signing secrets are sealed under. */
  sealingKey(): Promise<Buffer>;
}

/** Everything in DATA_DIR. */
export function fileWebhookStores(dataDir: string, documents = fileDocuments(dataDir)): WebhookStores {
  return {
    dataDir,
    documents,
    outbox: fileOutbox(dataDir),
    sealingKey: () => Promise.resolve(sealingKey(join(dataDir, SEAL_KEY_FILE))),
  };
}

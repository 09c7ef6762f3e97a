/**
 * Where the webhooks' state is kept, chosen once where the program starts (`server-process.ts`,
 * `scripts/webhooks.ts`) and handed to every part that touches it: the subscriptions document,
 * the outbox, and the keys that seal the signing secrets. On one VM all are in DATA_DIR; with
 * REDIS_URL the subscriptions and the outbox are in Redis (`redis-webhooks.ts`), so every VM sees
 * one set, while the sealing keys stay on each VM (`redis-sealing.ts`): never beside what they seal.
 */
import { join } from "node:path";
import { type DocumentStore, fileDocuments } from "../files/document-store.ts";
import { fileOutbox, type OutboxStore } from "./outbox-store.ts";
import { parseSealingKeys, type SealingKeys, sealingKeysAt } from "../files/sealing.ts";
import { WEBHOOKS_DIR } from "./subscriptions.ts";

/** DATA_DIR's sealing keys, made with one new key on first use. */
export const SEAL_KEY_FILE = `${WEBHOOKS_DIR}/seal.key`;

export interface WebhookStores {
  /** The data directory, whose copy of the subscriptions every reader reads. */
  readonly dataDir: string;
  /** Where changes to the subscriptions go. */
  readonly documents: DocumentStore;
  readonly outbox: OutboxStore;
  /** The keys the signing secrets are sealed under (with Redis, checked against the other VMs'). */
  sealingKeys(): Promise<SealingKeys>;
  /** Records that every secret is now sealed under the key of that id (`webhooks -- reseal`). */
  resealed(id: string): Promise<void>;
}

/** Where this VM's sealing keys come from: `WEBHOOK_SEAL_KEY`, when set, else DATA_DIR's file. */
export interface SealingKeySource {
  readonly dataDir: string;
  /** `WEBHOOK_SEAL_KEY`'s text (base64 keys, comma-separated, the sealing one first), or undefined. */
  readonly sealKey?: string;
}

/** This VM's sealing keys: `WEBHOOK_SEAL_KEY`'s when set, else DATA_DIR's file (made when missing). */
export function localSealingKeys(source: SealingKeySource): SealingKeys {
  return source.sealKey === undefined || source.sealKey === ""
    ? sealingKeysAt(join(source.dataDir, SEAL_KEY_FILE))
    : parseSealingKeys(source.sealKey, "WEBHOOK_SEAL_KEY");
}

/** Everything in DATA_DIR (the sealing keys in `WEBHOOK_SEAL_KEY` when given). */
export function fileWebhookStores(
  dataDir: string,
  options: { documents?: DocumentStore; sealKey?: string } = {},
): WebhookStores {
  return {
    dataDir,
    documents: options.documents ?? fileDocuments(dataDir),
    outbox: fileOutbox(dataDir),
    sealingKeys: () => Promise.resolve(localSealingKeys({ dataDir, sealKey: options.sealKey })),
    resealed: () => Promise.resolve(),
  };
}

/**
 * The state a server process must share with the others (docs/operations.md, "Running on more
 * than one core or VM"): without REDIS_URL, this process's own limiter and DATA_DIR's files; with
 * it, the limiter on Redis, the kept documents (keys, accounts, sessions, counts, webhook
 * subscriptions) in Redis and followed into DATA_DIR, and the webhooks' outbox and sealing key.
 */
import type { Config } from "../config.ts";
import { type DocumentStore, fileDocuments } from "../files/document-store.ts";
import { createLimiter, type Limiter } from "../limits/limiter.ts";
import type { RedisConnection } from "../shared/redis-connection.ts";
import { redisDocumentStore, sharedDocuments } from "../shared/shared-documents.ts";
import { createSharedLimiter } from "../shared/shared-limiter.ts";
import { redisWebhookStores } from "../webhooks/redis-webhooks.ts";
import { fileWebhookStores, type WebhookStores } from "../webhooks/webhook-stores.ts";

export interface SharedState {
  readonly limiter: Limiter;
  readonly redis?: RedisConnection;
  readonly documents: DocumentStore;
  readonly webhooks: WebhookStores;
}

/** Opens the shared state `config` asks for; `log` gets its notices. */
export async function openSharedState(config: Config, log: (line: string) => void): Promise<SharedState> {
  if (config.redisUrl === undefined) {
    const documents = fileDocuments(config.dataDir);
    return { limiter: createLimiter(), documents, webhooks: fileWebhookStores(config.dataDir, documents) };
  }
  // Loaded only here: without REDIS_URL the Redis client's code (about 1 MB of the heap) is never
  // loaded, and every major GC has that much less to mark (docs/performance.md).
  const { connectRedis } = await import("../shared/redis-connection.ts");
  const redis = connectRedis(config.redisUrl, { log });
  if (!(await redis.ready(3_000))) {
    log(`Starting without Redis for now (REDIS_FAILURE=${config.redisFailure}); it is retried every second`);
  }
  const shared = sharedDocuments(redis);
  shared.follow(config.dataDir, log);
  const limiter = createSharedLimiter({
    connection: redis,
    failure: config.redisFailure,
    local: createLimiter(),
    log,
  });
  const documents = redisDocumentStore(shared, config.dataDir);
  const webhooks = redisWebhookStores(redis.client, config.dataDir, documents);
  return { limiter, redis, documents, webhooks };
}

/**
 * The state a server process must share with the others (docs/operations.md, "Running on more
 * than one core or VM"): without REDIS_URL, this process's own limiter and DATA_DIR's files; with
 * it, the limiter on Redis, the kept documents (keys, accounts, sessions, counts, webhook
 * subscriptions) in Redis and followed into DATA_DIR, and the webhooks' outbox (their sealing keys
 * stay on each VM).
 */
import type { Config } from "../config.ts";
import { type DocumentStore, fileDocuments } from "../files/document-store.ts";
import { createLimiter, type Limiter } from "../limits/limiter.ts";
import type { RedisConnection } from "../shared/redis-connection.ts";
import { migrateRedis } from "../shared/redis-migrations.ts";
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
    const webhooks = fileWebhookStores(config.dataDir, { documents, sealKey: config.webhooks.sealKey });
    return { limiter: createLimiter(), documents, webhooks };
  }
  // Loaded only here: without REDIS_URL the Redis client's code (about 1 MB of the heap) is never
  // loaded, and every major GC has that much less to mark (docs/performance.md).
  const { connectRedis } = await import("../shared/redis-connection.ts");
  const redis = connectRedis(config.redisUrl, { log });
  // What an earlier release left in Redis is upgraded before anything here uses it, or, when Redis
  // is away at the start, as soon as it answers.
  const migrate = () =>
    migrateRedis(redis.client, log).catch((error: unknown) =>
      log(
        `Redis: its keys could not be upgraded (${(error as Error).message}); tried again at the next start`,
      ),
    );
  if (await redis.ready(3_000)) await migrate();
  else {
    log(`Starting without Redis for now (REDIS_FAILURE=${config.redisFailure}); it is retried every second`);
    redis.client.once("ready", () => void migrate());
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
  const webhooks = redisWebhookStores(redis.client, config.dataDir, documents, {
    sealKey: config.webhooks.sealKey,
    log,
  });
  return { limiter, redis, documents, webhooks };
}

/**
 * The sealing keys when the webhooks' state is in Redis (docs/webhooks.md, "The sealing key"). The
 * keys stay on each VM (`WEBHOOK_SEAL_KEY` or `DATA_DIR/webhooks/seal.key`), so that a copy of
 * Redis gives the sealed secrets without what opens them. Redis keeps only the id of the key the
 * secrets are sealed under (`wh:seal-key-id`, an HMAC under the key: nothing of the key itself),
 * set by the first VM to ask: a VM whose keys do not include it is refused, saying so, rather than
 * seal a secret the others cannot open or sign with a key the subscriptions were not sealed under.
 *
 * The development builds between 1.8.0 and 1.9 kept the key itself in Redis. The first VM of 1.9
 * to ask moves it
 * out, into its DATA_DIR's file (first, before a key of the VM's own), records its id and deletes
 * it from Redis; every other VM must then be given the same key before it signs again.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Redis } from "ioredis";
import { writeFileAtomic } from "../files/atomic-write.ts";
import { parseSealingKeys, type SealingKeys } from "../files/sealing.ts";
import { localSealingKeys, SEAL_KEY_FILE, type SealingKeySource } from "./webhook-stores.ts";

/** The id of the key the secrets in Redis are sealed under (with the connection's prefix, `gds:`). */
export const SEAL_KEY_ID = "wh:seal-key-id";
/**
 * Where the builds before 1.9 kept the key itself: `gds:gds:webhook-seal-key` with the connection's
 * prefix, or `gds:webhook-seal-key` once `shared/redis-migrations.ts` has undone the doubled prefix.
 */
export const LEGACY_SEAL_KEYS = ["gds:webhook-seal-key", "webhook-seal-key"] as const;

const SEE = 'docs/webhooks.md, "The sealing key"';

/** A VM whose keys are not those the secrets in Redis are sealed under. */
export class SealingKeyMismatch extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SealingKeyMismatch";
  }
}

// Moves a key an earlier release kept in Redis into this VM's file, records its id, deletes it.
async function moveLegacyKey(client: Redis, source: SealingKeySource, log: (line: string) => void) {
  const [doubled, single] = await client.mget(...LEGACY_SEAL_KEYS);
  const legacy = (doubled ?? single)?.trim();
  if (legacy === undefined) return;
  const { id } = parseSealingKeys(legacy, "the sealing key Redis held");
  if (source.sealKey !== undefined && source.sealKey !== "") {
    if (!parseSealingKeys(source.sealKey, "WEBHOOK_SEAL_KEY").ids.includes(id)) {
      const where = doubled === null ? LEGACY_SEAL_KEYS[1] : LEGACY_SEAL_KEYS[0];
      throw new SealingKeyMismatch(
        `Redis holds the key the webhook secrets are sealed under (id ${id}, at gds:${where}) and WEBHOOK_SEAL_KEY does not: add it there, or unset WEBHOOK_SEAL_KEY to have it moved into DATA_DIR/${SEAL_KEY_FILE} (${SEE})`,
      );
    }
  } else {
    const path = join(source.dataDir, SEAL_KEY_FILE);
    const own = existsSync(path)
      ? readFileSync(path, "utf8")
          .split(/[\s,]+/)
          .filter(Boolean)
      : [];
    if (!own.includes(legacy)) writeFileAtomic(path, [legacy, ...own].join("\n") + "\n", { mode: 0o600 });
  }
  await client
    .multi()
    .set(SEAL_KEY_ID, id)
    .del(...LEGACY_SEAL_KEYS)
    .exec();
  log(
    `The webhooks' sealing key (id ${id}) moved out of Redis into this VM's ${source.sealKey ? "WEBHOOK_SEAL_KEY" : `DATA_DIR/${SEAL_KEY_FILE}`}: give every other VM the same key before it delivers (${SEE})`,
  );
}

/** This VM's sealing keys, checked against the id Redis keeps; rejects with a SealingKeyMismatch. */
export async function checkedSealingKeys(
  client: Redis,
  source: SealingKeySource,
  log: (line: string) => void,
): Promise<SealingKeys> {
  await moveLegacyKey(client, source, log);
  const keys = localSealingKeys(source);
  await client.set(SEAL_KEY_ID, keys.id, "NX");
  const sealedUnder = await client.get(SEAL_KEY_ID);
  if (sealedUnder !== null && !keys.ids.includes(sealedUnder)) {
    const where = source.sealKey ? "WEBHOOK_SEAL_KEY" : `DATA_DIR/${SEAL_KEY_FILE}`;
    throw new SealingKeyMismatch(
      `This VM's sealing key (${where}, id ${keys.id}) is not the one the webhook secrets in Redis are sealed under (id ${sealedUnder}): give every VM the same key (${SEE})`,
    );
  }
  return keys;
}

/** Records the key the secrets are now sealed under (after `webhooks -- reseal`, or an import). */
export async function recordSealingKey(client: Redis, id: string): Promise<void> {
  await client.set(SEAL_KEY_ID, id);
}

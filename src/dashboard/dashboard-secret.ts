/**
 * The secret that signs the dashboard's sign-in tokens (`csrf.ts`): 32 random bytes made once and
 * kept, so that every process that serves the dashboard accepts the tokens of the others. On one
 * VM it is `DATA_DIR/dashboard-secret` (mode 0600), made atomically by the first process that
 * needs it; with REDIS_URL it is kept in Redis, so that every VM shares it. Losing it costs only
 * the sign-in forms open at the time (they ask to reload).
 */
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import type { Redis } from "ioredis";
import { secretFileText } from "../files/secret-file.ts";

export const SECRET_FILE = "dashboard-secret";
// With the connection's prefix, `gds:dashboard-secret`.
const REDIS_KEY = "dashboard-secret";

function decode(text: string, where: string): Buffer {
  const bytes = Buffer.from(text.trim(), "base64");
  if (bytes.length !== 32)
    throw new SyntaxError(`The dashboard secret in ${where} is not 32 bytes of base64`);
  return bytes;
}

/**
 * The secret in `dir`, made on first use: written beside, then linked into place (never half-made).
 * Once made it is only read, so a server starts on a store it cannot write to.
 */
export function fileSecret(dir: string): Buffer {
  const path = join(dir, SECRET_FILE);
  return decode(secretFileText(path), path);
}

/** The secret every process and VM shares through Redis (the first to ask makes it). */
export async function redisSecret(client: Redis): Promise<Buffer> {
  await client.set(REDIS_KEY, randomBytes(32).toString("base64"), "NX");
  const text = await client.get(REDIS_KEY);
  if (text === null) throw new Error(`Redis lost ${REDIS_KEY} as it was made`);
  return decode(text, `Redis's ${REDIS_KEY}`);
}

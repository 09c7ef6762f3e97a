/**
 * A secret of 32 random bytes kept in a file (mode 0600, base64), made on first use: written
 * beside, then linked into place, so two processes making it at once both read the one that won,
 * and it is never half-made. Once made it is only read.
 */
import { randomBytes } from "node:crypto";
import { existsSync, linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { tempPathOf } from "./atomic-write.ts";

/** The file's text, made when missing. */
export function secretFileText(path: string): string {
  if (!existsSync(path)) {
    mkdirSync(dirname(path), { recursive: true });
    const temp = tempPathOf(path);
    try {
      writeFileSync(temp, randomBytes(32).toString("base64") + "\n", { mode: 0o600 });
      linkSync(temp, path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    } finally {
      rmSync(temp, { force: true });
    }
  }
  return readFileSync(path, "utf8");
}

/** This release's version, from package.json (semantic versioning; CHANGELOG.md says what changed). */
import { readFileSync } from "node:fs";

export const VERSION: string = (
  JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string }
).version;

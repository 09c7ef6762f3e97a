/**
 * The user's pages stay true to the code: every relative link of the README and docs/ reaches a
 * file and, with an anchor, a heading there; the README lists every dataset's path and every
 * scope with its default limit.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { DEFAULT_LIMITS } from "../src/limits/scopes.ts";
import { DATASETS as DOCUMENTED } from "../src/datasets/registry.ts";

const ROOT = join(import.meta.dirname, "..");
const PAGES = [
  "README.md",
  "CHANGELOG.md",
  "data/README.md",
  ...readdirSync(join(ROOT, "docs"))
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/${f}`),
];

/** A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces as hyphens. */
function slug(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .trim()
    .replace(/\s/g, "-");
}

/** Every anchor of a Markdown page, a repeated heading numbered as GitHub numbers it. */
function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  const body = text.replace(/```[\s\S]*?```/g, "");
  for (const [, heading] of body.matchAll(/^#{1,6} (.+)$/gm)) {
    const base = slug(heading!);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** The relative links `[text](target)` of a page, outside code blocks. */
function links(text: string): string[] {
  const body = text.replace(/```[\s\S]*?```/g, "").replace(/`[^`\n]*`/g, "");
  return [...body.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((m) => m[1]!)
    .filter((target) => !/^[a-z]+:/.test(target));
}

test("a heading's anchor is GitHub's", () => {
  assert.equal(
    slug("Grid stress (`features.grid_stress_index`, versions `v2` and `v1`)"),
    "grid-stress-featuresgrid_stress_index-versions-v2-and-v1",
  );
  assert.equal(slug("Eskom's demand forecast"), "eskoms-demand-forecast");
  assert.equal(slug("Years of history: the data-request form"), "years-of-history-the-data-request-form");
  assert.deepEqual([...anchors("# A\n## A\n```\n# not a heading\n```\n")], ["a", "a-1"]);
});

test("every relative link of the README and docs/ reaches a file, and a heading there", () => {
  const broken: string[] = [];
  for (const page of PAGES) {
    const text = readFileSync(join(ROOT, page), "utf8");
    for (const target of links(text)) {
      const [path, anchor] = target.split("#") as [string, string | undefined];
      const file = path === "" ? join(ROOT, page) : join(ROOT, dirname(page), path);
      if (!existsSync(file)) {
        broken.push(`${page}: ${target} (no such file)`);
        continue;
      }
      if (anchor !== undefined && file.endsWith(".md") && !anchors(readFileSync(file, "utf8")).has(anchor)) {
        broken.push(`${page}: ${target} (no heading "${anchor}" in ${relative(ROOT, file)})`);
      }
    }
  }
  assert.deepEqual(broken, []);
});

test("the README lists every dataset's path, and every scope with its default limit", () => {
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");
  for (const dataset of DOCUMENTED) {
    assert.ok(readme.includes(`| \`GET ${dataset.path}\``), `the endpoints table lists ${dataset.path}`);
  }
  for (const [scope, limit] of Object.entries(DEFAULT_LIMITS)) {
    assert.match(readme, new RegExp(`^\\| \`${scope}\` +\\|[^|]+\\| ${limit} +\\|$`, "m"), scope);
  }
});

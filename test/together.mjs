/**
 * The test files `run-suite.mjs` was given after `--`, run one after another in this one process
 * (run-suite.mjs hands the list down in GDS_TEST_FILES_TOGETHER, as JSON). Each file's tests
 * report under that file. A file run here shares the process with the others: it must leave no
 * global change behind (`process.env`, listeners, mocks not restored) and keep its hooks inside
 * its tests, since a top-level `before` or `after` would belong to the whole process
 * (suite-files.test.ts checks the hooks and process.env). A file that fails to load fails as one
 * test naming it; the others still run.
 */
import { relative } from "node:path";
import { test } from "node:test";
import { pathToFileURL } from "node:url";

const list = process.env.GDS_TEST_FILES_TOGETHER;
if (list === undefined) throw new Error("together.mjs runs the files run-suite.mjs names: make test-suite");
const files = JSON.parse(list);
for (const file of files) {
  try {
    await import(pathToFileURL(file).href);
  } catch (error) {
    test(`${relative(process.cwd(), file)} loads`, () => {
      throw error;
    });
  }
}

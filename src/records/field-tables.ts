/**
 * The field tables of docs/api.md, generated from the dataset tables: one Markdown table per dataset and
 * interval between `<!-- fields: <dataset id> <interval> -->` and `<!-- /fields -->`.
 * `npm run field-tables` rewrites them; a test fails when the page and the code disagree.
 */
import type { DatasetDoc, FieldDoc, Interval } from "./dataset.ts";

const escape = (text: string) => text.replaceAll("|", "\\|");

function rows(fields: readonly FieldDoc[], prefix = ""): string[] {
  return fields.flatMap((field) => [
    `| \`${prefix}${field.name}\` | ${escape(field.label ?? "")} | ${field.unit ?? ""} | ${escape(field.description)} |`,
    ...rows(field.properties ?? [], `${prefix}${field.name}.`),
  ]);
}

/** The Markdown table of a dataset's fields at one interval (prettier aligns it afterwards). */
export function fieldTable(dataset: DatasetDoc, interval: Interval): string {
  return [
    "| field | label | unit | meaning |",
    "| --- | --- | --- | --- |",
    ...rows(dataset.fields[interval]),
  ].join("\n");
}

const MARKER = /<!-- fields: (\S+) (1h|1d) -->\n[\s\S]*?<!-- \/fields -->/g;

/** `readme` with every marked field table regenerated; throws on a marker naming no dataset. */
export function withFieldTables(readme: string, datasets: readonly DatasetDoc[]): string {
  return readme.replace(MARKER, (_all, id: string, interval: Interval) => {
    const dataset = datasets.find((d) => d.id === id);
    if (dataset === undefined) throw new Error(`docs/api.md: a field table names ${id}, which is no dataset`);
    return `<!-- fields: ${id} ${interval} -->\n\n${fieldTable(dataset, interval)}\n\n<!-- /fields -->`;
  });
}

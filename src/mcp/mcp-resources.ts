/**
 * The MCP resources: the dataset reference (each dataset's path, intervals, fields with units and
 * meanings, and the portal files it is read from) and the grid-stress method, as Markdown an
 * agent can read and cite.
 */
import type { DatasetDoc, FieldDoc } from "../datasets/dataset.ts";
import { DATASET_SOURCES } from "../pull/portal-files.ts";

/** One resource: its URI, name, description and text. */
export interface Resource {
  readonly uri: string;
  readonly name: string;
  readonly description: string;
  readonly mimeType: "text/markdown";
  text(): string;
}

const cell = (value: string) => value.replace(/\|/g, "\\|").replace(/\n/g, " ");

function fieldTable(fields: readonly FieldDoc[]): string {
  const rows = fields.map((f) => `| \`${f.name}\` | ${f.unit ?? ""} | ${cell(f.description)} |`);
  return ["| field | unit | meaning |", "| --- | --- | --- |", ...rows].join("\n");
}

function datasetSection(d: DatasetDoc): string {
  const sources = DATASET_SOURCES[d.id] ?? [];
  const hourly = d.fields["1h"];
  const longer = d.intervals?.filter((i) => i !== "1h").join(", ") ?? "1d, 1w, 1mo, 1y, fy";
  return [
    `## ${d.id}`,
    `\`GET ${d.path}\`, scope \`${d.scope}\`, intervals ${(d.intervals ?? ["1h", "1d", "1w", "1mo", "1y", "fy"]).join(", ")}.`,
    d.description,
    ...(sources.length === 0 ? [] : [`Read from the portal's ${sources.map((s) => `\`${s}\``).join(", ")}.`]),
    ...(hourly.length === 0 ? [] : ["### At 1h", fieldTable(hourly)]),
    `### At ${longer}`,
    fieldTable(d.fields["1d"]),
  ].join("\n\n");
}

/** The resources over the service's datasets. */
export function mcpResources(datasets: readonly DatasetDoc[]): Resource[] {
  const stress = datasets.find((d) => d.id === "features.grid_stress_index");
  return [
    {
      uri: "gds://reference/datasets",
      name: "Dataset reference",
      description: "Every dataset: path, intervals, fields with units and meanings, and its portal files.",
      mimeType: "text/markdown",
      text: () =>
        [
          "# Grid Data Service datasets",
          "Stamps carry their offset: +00:00 is UTC, +02:00 is SAST (South Africa, no daylight saving). A bare date in start or end means 00:00 in tz (UTC by default). Ranges are [start, end).",
          ...datasets.map(datasetSection),
        ].join("\n\n"),
    },
    {
      uri: "gds://reference/grid-stress",
      name: "Grid-stress method",
      description:
        "How the grid-stress index is computed, what its bands mean, and how it does on data it was not fitted on.",
      mimeType: "text/markdown",
      text: () =>
        [
          `# ${stress?.id ?? "features.grid_stress_index"}`,
          stress?.description ?? "",
          stress?.reference ?? "",
        ].join("\n\n"),
    },
  ];
}

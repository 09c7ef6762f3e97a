/**
 * The MCP resources: the dataset reference (each dataset's path, intervals, fields with labels,
 * units and meanings, and the portal files it is read from) and the method of each computed
 * dataset (grid stress), as Markdown an agent can read and cite.
 */
import { intervalsOf } from "../records/dataset.ts";
import { sourcesOf } from "../datasets/dataset-sources.ts";
import type { DatasetDefinition } from "../datasets/registry.ts";
import { fieldTable } from "../records/field-tables.ts";

/** One resource: its URI, name, description and text. */
export interface Resource {
  readonly uri: string;
  readonly name: string;
  readonly description: string;
  readonly mimeType: "text/markdown";
  text(): string;
}

function datasetSection(d: DatasetDefinition): string {
  const sources = sourcesOf(d);
  const longer = d.intervals?.filter((i) => i !== "1h").join(", ") ?? "1d, 1w, 1mo, 1y, fy";
  return [
    `## ${d.id}: ${d.title}`,
    `\`GET ${d.path}\`, scope \`${d.scope}\`, intervals ${intervalsOf(d).join(", ")}.`,
    d.description,
    ...(sources.length === 0 ? [] : [`Read from the portal's ${sources.map((s) => `\`${s}\``).join(", ")}.`]),
    ...(d.fields["1h"].length === 0 ? [] : ["### At 1h", fieldTable(d, "1h")]),
    `### At ${longer}`,
    fieldTable(d, "1d"),
  ].join("\n\n");
}

// A computed dataset's method, by the last part of its path: `gds://reference/grid-stress`.
function methodResource(d: DatasetDefinition): Resource {
  return {
    uri: `gds://reference/${d.path.split("/").at(-1)!}`,
    name: `${d.title}: the method`,
    description: `How ${d.id} is computed from the other datasets, what its values mean, and how it does on data it was not fitted on.`,
    mimeType: "text/markdown",
    text: () => [`# ${d.id}`, d.description, d.reference ?? ""].join("\n\n"),
  };
}

/** The resources over the service's datasets: their reference, and each computed one's method. */
export function mcpResources(datasets: readonly DatasetDefinition[]): Resource[] {
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
    ...datasets.filter((d) => d.kind === "computed").map(methodResource),
  ];
}

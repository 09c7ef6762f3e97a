/** Statistics for judging a score against labelled hours: ROC AUC and a distribution summary. */

/**
 * The area under the ROC curve: the probability that a random positive scores above a random
 * negative, ties counting half (the Mann-Whitney U statistic over the pair count). NaN when either
 * class is empty.
 */
export function rocAuc(scores: readonly number[], labels: readonly boolean[]): number {
  if (scores.length !== labels.length) throw new RangeError("Scores and labels differ in length");
  const order = scores.map((s, i) => [s, labels[i]!] as const).sort((a, b) => a[0] - b[0]);
  let rankSum = 0;
  let positives = 0;
  for (let i = 0; i < order.length;) {
    let j = i;
    while (j + 1 < order.length && order[j + 1]![0] === order[i]![0]) j++;
    const rank = (i + j) / 2 + 1; // ties share the mean rank
    for (let k = i; k <= j; k++) {
      if (order[k]![1]) {
        rankSum += rank;
        positives++;
      }
    }
    i = j + 1;
  }
  const negatives = order.length - positives;
  if (positives === 0 || negatives === 0) return NaN;
  return (rankSum - (positives * (positives + 1)) / 2) / (positives * negatives);
}

/** Min, quartiles, deciles, max and mean of some values (linear interpolation between ranks). */
export function summarize(values: readonly number[]): Record<string, number> {
  if (values.length === 0) return {};
  const sorted = [...values].sort((a, b) => a - b);
  const q = (p: number) => {
    const at = p * (sorted.length - 1);
    const lo = Math.floor(at);
    const hi = Math.ceil(at);
    return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (at - lo);
  };
  return {
    n: sorted.length,
    min: sorted[0]!,
    p10: q(0.1),
    p25: q(0.25),
    median: q(0.5),
    p75: q(0.75),
    p90: q(0.9),
    max: sorted.at(-1)!,
    mean: sorted.reduce((a, b) => a + b, 0) / sorted.length,
  };
}

/** ROC AUC: how well a score ranks labelled hours (grid stress's evaluation, `npm run evaluate-stress`). */

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

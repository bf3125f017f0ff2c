/**
 * Did-you-mean suggestions by edit distance (Damerau–Levenshtein, optimal string alignment).
 * @module
 */

/**
 * Edit distance between two strings, counting an adjacent transposition as one edit.
 * @returns the number of edits
 */
export function editDistance(a: string, b: string): number {
  if (a === b) return 0;
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[] = new Array(rows * cols).fill(0);
  for (let i = 0; i < rows; i++) d[i * cols] = i;
  for (let j = 0; j < cols; j++) d[j] = j;
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(
        d[(i - 1) * cols + j]! + 1,
        d[i * cols + j - 1]! + 1,
        d[(i - 1) * cols + j - 1]! + cost,
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        v = Math.min(v, d[(i - 2) * cols + j - 2]! + 1);
      }
      d[i * cols + j] = v;
    }
  }
  return d[rows * cols - 1]!;
}

/**
 * The closest candidates to `word`: case-insensitive equality first, then edit distance within
 * max(2, a third of the word's length).
 * @returns up to `limit` candidates, nearest first (ties in the candidates' order)
 */
export function suggest(word: string, candidates: readonly string[], limit = 1): string[] {
  if (word.length >= 256) return [];
  const lower = word.toLowerCase();
  const budget = Math.max(2, Math.floor(word.length / 3));
  return candidates
    .map((c, index) => ({
      c,
      index,
      d: c.toLowerCase() === lower ? 0 : editDistance(lower, c.toLowerCase()),
    }))
    .filter((x) => x.d <= budget && x.c !== word)
    .sort((x, y) => x.d - y.d || x.index - y.index)
    .slice(0, limit)
    .map((x) => x.c);
}

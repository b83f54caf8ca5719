/** Typed characters that arrive within this long of each other form one search (WAI-ARIA menu pattern). */
export const TYPEAHEAD_RESET_MS = 350;

/**
 * The item type-ahead moves to: the next label after `current` (wrapping) that starts with what was
 * typed. Typing one letter again and again cycles through the items that start with it. -1 if none.
 */
export function typeAheadMatch(labels: readonly string[], current: number, typed: string): number {
  const needle = typed.toLocaleLowerCase();
  if (!needle || labels.length === 0) return -1;
  const repeated = needle.length > 1 && [...needle].every((ch) => ch === needle[0]);
  const search = repeated ? needle[0]! : needle;
  // A longer search may still match the current item; a single letter moves on from it.
  const start = search.length > 1 ? current : current + 1;
  for (let i = 0; i < labels.length; i++) {
    const index = (((start + i) % labels.length) + labels.length) % labels.length;
    if (labels[index]!.trim().toLocaleLowerCase().startsWith(search)) return index;
  }
  return -1;
}

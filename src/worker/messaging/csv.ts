/**
 * CSV for spreadsheets. A cell a spreadsheet would run as a formula (it starts, after any leading
 * spaces, with = + - or @, or with a tab or line break) gets a leading apostrophe, in every column:
 * names come from drivers, codes and messages from providers, and any of them can be hostile. A
 * plain signed number (a phone number in E.164) is left as it is. Cells holding a comma, a
 * semicolon (the separator in locales that write decimal commas), a quote, a tab or a line break
 * are quoted, so no locale splits a cell into a new one that starts with a formula.
 */
const FORMULA_START = /^[\s]*[=+\-@]|^[\t\r\n]/;
const PLAIN_NUMBER = /^[+-]?\d+(\.\d+)?$/;

export function csvCell(value: string | number | boolean | null | undefined): string {
  if (value === null || value === undefined) return "";
  let text = String(value);
  if (FORMULA_START.test(text) && !PLAIN_NUMBER.test(text)) text = `'${text}`;
  return /[",;\t\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function csvRow(cells: (string | number | boolean | null | undefined)[]): string {
  return cells.map(csvCell).join(",");
}

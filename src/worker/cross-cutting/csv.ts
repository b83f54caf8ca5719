import { stringify } from "csv-stringify/sync";

/**
 * The one CSV writer of the admin exports (users, payments, a campaign's ledger): RFC 4180 quoting
 * and CRLF lines by csv-stringify, with our rules for what a spreadsheet would do with a cell.
 *
 * - Excel, LibreOffice and Sheets run a cell starting with = + - @ (or spaces, a tab or a line
 *   break before one) as a formula, in every column and whatever the locale's separator, so every
 *   such cell gets a leading apostrophe, numbers included (`-5`, an E.164 phone `+1…`): a column
 *   holds what a driver or a provider wrote, and a rule with exceptions is one a hostile value can
 *   find. csv-stringify's own `escape_formulas` leaves negative numbers and leading spaces alone,
 *   so the rule is ours, in `cast`.
 * - A cell holding a comma, a semicolon (the separator where decimals take a comma), a quote, a tab
 *   or a line break is quoted, so no locale splits it into a new cell that starts with a formula.
 * - Booleans are written yes/no, and null or undefined as an empty cell.
 */
export type CsvValue = string | number | boolean | null | undefined;

const FORMULA_START = /^\s*[=+\-@]|^[\t\r\n]/;
const defused = (text: string) => (FORMULA_START.test(text) ? `'${text}` : text);

const OPTIONS = {
  record_delimiter: "windows",
  quoted_match: /[;\t\r\n]/,
  cast: {
    string: defused,
    number: (value: number) => defused(String(value)),
    bigint: (value: bigint) => defused(String(value)),
    boolean: (value: boolean) => (value ? "yes" : "no"),
  },
} as const;

/** One row of cells as a CSV line, with its CRLF. */
export function csvLine(cells: readonly CsvValue[]): string {
  return stringify([cells.map((cell) => cell ?? null)], OPTIONS);
}

/** One cell as it stands in a line (quoted where it must be). */
export const csvCell = (value: CsvValue): string => csvLine([value]).slice(0, -2);

/**
 * A streamed CSV: the header, then whatever `nextRows` yields, one chunk per pull, until it
 * answers null. Each chunk is read from D1 when the client is ready for it, so an export of
 * 100,000 rows never sits in memory at once. `byteOrderMark` (the default) starts the file with
 * one: Excel reads it as UTF-8 (names with accents) only with it.
 */
export function csvStream(
  header: readonly string[],
  nextRows: () => Promise<CsvValue[][] | null>,
  { byteOrderMark = true }: { byteOrderMark?: boolean } = {},
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let headerSent = false;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!headerSent) {
        headerSent = true;
        controller.enqueue(encoder.encode(`${byteOrderMark ? "\uFEFF" : ""}${csvLine(header)}`));
        return;
      }
      const rows = await nextRows();
      if (rows === null) {
        controller.close();
        return;
      }
      controller.enqueue(encoder.encode(rows.map(csvLine).join("")));
    },
  });
}

/** The answer headers of a CSV download: never cached (it holds personal data). */
export function csvHeaders(filename: string): Record<string, string> {
  return { "Content-Type": "text/csv; charset=utf-8", "Content-Disposition": `attachment; filename="${filename}"`, "Cache-Control": "no-store" };
}

/**
 * CSV for the admin exports: RFC 4180 quoting, CRLF lines, and every cell a spreadsheet could run
 * as a formula defused. Excel, LibreOffice and Sheets treat a cell starting with = + - @ (or spaces,
 * a tab or a line break before one) as a formula, in every column and whatever the separator of the
 * locale (`;` too), so any such cell gets a leading apostrophe, numbers-looking or not. Tabs are
 * quoted too: a spreadsheet pasting the file as tab-separated would split on them.
 */
export type CsvValue = string | number | boolean | null | undefined;

const FORMULA_START = /^\s*[=+\-@]|^[\t\r\n]/;

export function csvCell(value: CsvValue): string {
  if (value === null || value === undefined) return "";
  let s = typeof value === "boolean" ? (value ? "yes" : "no") : String(value);
  if (FORMULA_START.test(s)) s = `'${s}`;
  return /[",;\t\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export function csvLine(cells: readonly CsvValue[]): string {
  return `${cells.map(csvCell).join(",")}\r\n`;
}

/**
 * A streamed CSV: the header, then whatever `nextRows` yields, one chunk per pull, until it
 * answers null. Each chunk is read from D1 when the client is ready for it, so an export of
 * 100,000 rows never sits in memory at once.
 */
export function csvStream(header: readonly string[], nextRows: () => Promise<CsvValue[][] | null>): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let headerSent = false;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!headerSent) {
        headerSent = true;
        // A byte-order mark: Excel reads the file as UTF-8 (names with accents) only with it.
        controller.enqueue(encoder.encode(`\uFEFF${csvLine(header)}`));
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

export function csvHeaders(filename: string): Record<string, string> {
  return { "Content-Type": "text/csv; charset=utf-8", "Content-Disposition": `attachment; filename="${filename}"`, "Cache-Control": "no-store" };
}

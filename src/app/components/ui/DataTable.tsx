import type { ReactNode } from "react";
import { Icon } from "./Icon";
import { TableScroll } from "./TableScroll";
import "./controls.css";

export type SortDir = "asc" | "desc";

export type Column<Row> = {
  key: string;
  header: ReactNode;
  cell: (row: Row) => ReactNode;
  /** The server's sort key; a header with one is a button that sorts. */
  sortKey?: string;
  className?: string;
};

type Props<Row> = {
  columns: Column<Row>[];
  rows: Row[];
  rowKey: (row: Row) => string | number;
  caption?: ReactNode;
  /** True while a page is being fetched; the previous rows stay visible. */
  busy?: boolean;
  empty?: ReactNode;
  sort?: { key: string; dir: SortDir };
  onSort?: (key: string, dir: SortDir) => void;
  rowClassName?: (row: Row) => string | undefined;
};

/** A presentational table: the rows it is given are one page from the server. */
export function DataTable<Row>({ columns, rows, rowKey, caption, busy, empty, sort, onSort, rowClassName }: Props<Row>) {
  return (
    <TableScroll label={caption} busy={busy}>
      <table className="data-table">
        {caption && <caption className="visually-hidden">{caption}</caption>}
        <thead>
          <tr>
            {columns.map((col) => {
              const active = sort && col.sortKey && sort.key === col.sortKey;
              const ariaSort = active ? (sort.dir === "asc" ? "ascending" : "descending") : undefined;
              return (
                <th key={col.key} scope="col" className={col.className} aria-sort={ariaSort}>
                  {col.sortKey && onSort ? (
                    <button type="button" className="sort-button" onClick={() => onSort(col.sortKey!, active && sort.dir === "asc" ? "desc" : "asc")}>
                      {col.header}
                      <Icon name={active ? (sort.dir === "asc" ? "chevron-up" : "chevron-down") : "chevrons-up-down"} className="sort-mark" />
                    </button>
                  ) : (
                    col.header
                  )}
                </th>
              );
            })}
          </tr>
        </thead>
        <tbody>
          {rows.length === 0 ? (
            <tr>
              <td colSpan={columns.length} className="data-table-empty">
                <div className="data-table-empty-content">{empty}</div>
              </td>
            </tr>
          ) : (
            rows.map((row) => (
              <tr key={rowKey(row)} className={rowClassName?.(row)}>
                {columns.map((col) => (
                  <td key={col.key} className={col.className}>
                    {col.cell(row)}
                  </td>
                ))}
              </tr>
            ))
          )}
        </tbody>
      </table>
    </TableScroll>
  );
}

/** A boolean cell: a check or a cross, with words for screen readers. */
export function BoolMark({ value, yes, no }: { value: boolean; yes: string; no: string }) {
  return (
    <span className={value ? "bool bool-yes" : "bool bool-no"} title={value ? yes : no}>
      <Icon name={value ? "check" : "x"} />
      <span className="visually-hidden">{value ? yes : no}</span>
    </span>
  );
}

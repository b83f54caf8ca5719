import { useCallback, useId, useState } from "react";
import { DEFAULT_PAGE_SIZE, FIRST_PAGE, PAGE_SIZES, pageCount } from "../../../shared/paging";
import "./controls.css";

export type PagerLabels = {
  rowsPerPage: string;
  previous: string;
  next: string;
  /** "Page N" (and optionally "of M"). */
  page: (page: number, pages: number) => string;
};

type Props = {
  page: number;
  pageSize: number;
  total: number;
  onPage: (page: number) => void;
  onPageSize: (pageSize: number) => void;
  labels: PagerLabels;
  sizes?: readonly number[];
  disabled?: boolean;
};

/**
 * The page and page size behind a Pager, starting at page 1 with 20 rows. A new page size, and
 * `restart()` (for a new filter, search or sort), go back to page 1. Spread `pager` on the Pager.
 */
export function usePaging() {
  const [page, setPage] = useState(FIRST_PAGE);
  const [pageSize, setPageSize] = useState<number>(DEFAULT_PAGE_SIZE);
  // Stable, so effects may depend on it.
  const restart = useCallback(() => setPage(FIRST_PAGE), []);
  const onPageSize = (size: number) => {
    setPageSize(size);
    setPage(FIRST_PAGE);
  };
  return { page, pageSize, restart, pager: { page, pageSize, onPage: setPage, onPageSize } };
}

/** Rows per page (docs/product.md, constants: 20/40/60/80/100), previous and next, and "Page N". */
export function Pager({ page, pageSize, total, onPage, onPageSize, labels, sizes = PAGE_SIZES, disabled }: Props) {
  const id = useId();
  const pages = pageCount(total, pageSize);
  return (
    <div className="pager">
      <label htmlFor={id} className="pager-size">
        {labels.rowsPerPage}
        <select id={id} value={pageSize} disabled={disabled} onChange={(e) => onPageSize(Number(e.target.value))}>
          {sizes.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </select>
      </label>
      <div className="pager-nav">
        <button type="button" className="button button-secondary" disabled={disabled || page <= 1} onClick={() => onPage(page - 1)}>
          {labels.previous}
        </button>
        <span className="pager-page" aria-live="polite">
          {labels.page(page, pages)}
        </span>
        <button type="button" className="button button-secondary" disabled={disabled || page >= pages} onClick={() => onPage(page + 1)}>
          {labels.next}
        </button>
      </div>
    </div>
  );
}

import { type ReactNode, useEffect, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import useSWR from "swr";
import { DEFAULT_PAGE_SIZE, FIRST_PAGE, type Page } from "../../../../shared/paging";
import { type Column, DataTable, type SortDir } from "../../../components/ui/DataTable";
import { Pager, usePaging } from "../../../components/ui/Pager";
import { StatusView } from "../../../components/ui/StatusView";
import { noRetryOn4xx } from "../api";
import { usePagerLabels } from "../labels";
import type { ReviewPaging } from "./api";

/** An audience endpoint: it filters, searches, sorts, pages and counts. */
type AudienceList<Filters, Row> = { key: string; load: (filters: Filters, paging: ReviewPaging) => Promise<Page<Row>> };

type Props<Filters, Row extends { phone: string }> = {
  list: AudienceList<Filters, Row>;
  /** The panel's filters (no paging). */
  filters: Filters;
  columns: Column<Row>[];
  /** Whether the server sorts this list (the header buttons send `sort` and `dir`). */
  sortable?: boolean;
  summary: (recipients: number) => string;
  preview: ReactNode;
  loadError: string;
  nothingToReview: string;
  rowClassName?: (row: Row) => string | undefined;
  onCancel: () => void;
  /** Confirms and sends; the panel resets itself when it succeeds. */
  onSend: (excludedPhones: string[], recipients: number) => Promise<unknown>;
};

const SEARCH_DEBOUNCE_MS = 300;

/**
 * The review step of both panels. Every row starts selected; a deselected row's phone is kept in
 * a set and sent as `excludedPhones`, so N is the audience's server-side total minus that set,
 * whatever page or search is on screen.
 */
export function ReviewStep<Filters, Row extends { phone: string }>(props: Props<Filters, Row>) {
  const { list, filters, columns, sortable, summary, preview, loadError, nothingToReview, rowClassName, onCancel, onSend } = props;
  const { t } = useTranslation("admin");
  const pagerLabels = usePagerLabels();
  const [searchInput, setSearchInput] = useState("");
  const [search, setSearch] = useState("");
  const { page, pageSize, restart, pager } = usePaging();
  const [sort, setSort] = useState<{ key: string; dir: SortDir } | undefined>();
  const [excluded, setExcluded] = useState<ReadonlySet<string>>(new Set());
  const [sending, setSending] = useState(false);

  useEffect(() => {
    const timer = setTimeout(() => {
      setSearch(searchInput.trim());
      restart();
    }, SEARCH_DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [searchInput]);

  // The count of the whole audience is the first page without search: while nothing is searched,
  // sorted or paged it is the very same request as the table's.
  const countPaging: ReviewPaging = { page: FIRST_PAGE, pageSize: DEFAULT_PAGE_SIZE };
  const rowsPaging: ReviewPaging = { page, pageSize, search: search || undefined, sort: sort?.key, dir: sort?.dir };
  const count = useAudiencePage(list, filters, countPaging);
  const rows = useAudiencePage(list, filters, rowsPaging);

  const total = count.data?.total ?? 0;
  const recipients = Math.max(0, total - excluded.size);
  const pageRows = rows.data?.rows ?? [];
  const selectedOnPage = pageRows.filter((r) => !excluded.has(r.phone)).length;

  const toggle = (phones: string[], selected: boolean) =>
    setExcluded((prev) => {
      const next = new Set(prev);
      for (const phone of phones) {
        if (selected) next.delete(phone);
        else next.add(phone);
      }
      return next;
    });

  const selectColumn: Column<Row> = {
    key: "select",
    className: "col-select",
    header: (
      <PageCheckbox
        label={t("review.selectPage")}
        checked={pageRows.length > 0 && selectedOnPage === pageRows.length}
        indeterminate={selectedOnPage > 0 && selectedOnPage < pageRows.length}
        disabled={pageRows.length === 0}
        onChange={(on) =>
          toggle(
            pageRows.map((r) => r.phone),
            on,
          )
        }
      />
    ),
    cell: (row) => (
      <input
        type="checkbox"
        aria-label={t("review.selectRow", { phone: row.phone })}
        checked={!excluded.has(row.phone)}
        onChange={(e) => toggle([row.phone], e.target.checked)}
      />
    ),
  };

  const firstLoad = count.isLoading || (rows.isLoading && !rows.data);
  const failed = (count.error && !count.data) || (rows.error && !rows.data);
  const empty = !firstLoad && !failed && count.data?.total === 0;

  async function send() {
    setSending(true);
    try {
      await onSend([...excluded], recipients);
    } finally {
      setSending(false);
    }
  }

  return (
    <div className="review">
      <p className="review-summary" aria-live="polite">
        <strong>{firstLoad || failed ? "…" : summary(recipients)}</strong>
      </p>
      <div className="review-preview">{preview}</div>

      {failed ? (
        <StatusView kind="error" compact title={loadError} onRetry={() => void Promise.all([count.mutate(), rows.mutate()])} />
      ) : firstLoad ? (
        <StatusView kind="loading" compact title={t("review.loading")} />
      ) : empty ? (
        <StatusView kind="empty" compact title={nothingToReview} />
      ) : (
        <>
          <input
            type="search"
            className="review-search"
            placeholder={t("review.search")}
            aria-label={t("review.search")}
            value={searchInput}
            onChange={(e) => setSearchInput(e.target.value)}
          />
          {(rows.error || count.error) && (
            <p className="alert" role="alert">
              {loadError}
            </p>
          )}
          <DataTable
            caption={t("review.caption")}
            columns={[selectColumn, ...columns]}
            rows={pageRows}
            rowKey={(r) => r.phone}
            busy={rows.isLoading}
            empty={t("review.noMatch")}
            sort={sortable ? sort : undefined}
            onSort={
              sortable
                ? (key, dir) => {
                    setSort({ key, dir });
                    restart();
                  }
                : undefined
            }
            rowClassName={rowClassName}
          />
          <Pager {...pager} total={rows.data?.total ?? 0} labels={pagerLabels} />
          <p className="muted">{t("review.selection", { selected: recipients, total })}</p>
        </>
      )}

      <div className="actions">
        <button type="button" className="button button-secondary" onClick={onCancel} disabled={sending}>
          {t("actions.cancel")}
        </button>
        <button type="button" className="button" onClick={() => void send()} disabled={sending || firstLoad || Boolean(failed) || recipients === 0}>
          {sending ? t("send.sending") : t("actions.send")}
        </button>
      </div>
    </div>
  );
}

function PageCheckbox({
  label,
  checked,
  indeterminate,
  disabled,
  onChange,
}: {
  label: string;
  checked: boolean;
  indeterminate: boolean;
  disabled: boolean;
  onChange: (on: boolean) => void;
}) {
  const ref = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (ref.current) ref.current.indeterminate = indeterminate;
  }, [indeterminate]);
  return <input ref={ref} type="checkbox" aria-label={label} checked={checked} disabled={disabled} onChange={(e) => onChange(e.target.checked)} />;
}

function useAudiencePage<Filters, Row>(list: AudienceList<Filters, Row>, filters: Filters, paging: ReviewPaging) {
  return useSWR([list.key, filters, paging], () => list.load(filters, paging), { keepPreviousData: true, ...noRetryOn4xx });
}

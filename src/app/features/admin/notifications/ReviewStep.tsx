import { type ReactNode, useEffect, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import useSWR from "swr";
import { EXCLUSION_REASONS, type ExclusionReason, type ReviewSummary } from "../../../../shared/campaigns";
import { DEFAULT_PAGE_SIZE, FIRST_PAGE, type Page } from "../../../../shared/paging";
import { Badge } from "../../../components/ui/Badge";
import { type Column, DataTable, type SortDir } from "../../../components/ui/DataTable";
import { Pager, usePaging } from "../../../components/ui/Pager";
import { StatusView } from "../../../components/ui/StatusView";
import { noRetryOn4xx } from "../api";
import { formatDateTime } from "../format";
import { usePagerLabels } from "../labels";
import type { ReviewPaging, ReviewRules } from "./api";

/** How the review marks a row (the server adds these when the rules are in the query). */
type RuleMarks = { exclusion?: ExclusionReason | null; deferredUntil?: number | null };

/**
 * An audience endpoint: it filters, searches, sorts, pages and counts, and, given the rules the
 * message is held to, marks each row and sums up who is left out and who waits (docs/messaging-rules.md).
 */
type AudienceList<Filters, Row> = {
  key: string;
  load: (filters: Filters, paging: ReviewPaging, rules?: ReviewRules) => Promise<Page<Row & RuleMarks>>;
  summary: (filters: Filters, rules: ReviewRules) => Promise<ReviewSummary>;
};

type Props<Filters, Row extends { phone: string }> = {
  list: AudienceList<Filters, Row>;
  /** The panel's filters (no paging). */
  filters: Filters;
  /** What the rules check the audience against: channel, purpose, template, start. */
  rules: ReviewRules;
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
  const { list, filters, rules, columns, sortable, summary, preview, loadError, nothingToReview, rowClassName, onCancel, onSend } = props;
  const { t } = useTranslation("admin");
  const pagerLabels = usePagerLabels();
  const [searchInput, setSearchInput] = useState("");
  const [search, setSearch] = useState("");
  const { page, pageSize, restart, pager } = usePaging();
  const [sort, setSort] = useState<{ key: string; dir: SortDir } | undefined>();
  const [excluded, setExcluded] = useState<ReadonlySet<string>>(new Set());
  const [sending, setSending] = useState(false);

  useEffect(() => {
    const term = searchInput.trim();
    // Only a changed search goes back to page 1 (the first run, on opening, must not undo a quick "Next").
    if (term === search) return;
    const timer = setTimeout(() => {
      setSearch(term);
      restart();
    }, SEARCH_DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [searchInput, search, restart]);

  // The count of the whole audience is the first page without search: while nothing is searched,
  // sorted or paged it is the very same request as the table's.
  const countPaging: ReviewPaging = { page: FIRST_PAGE, pageSize: DEFAULT_PAGE_SIZE };
  const rowsPaging: ReviewPaging = { page, pageSize, search: search || undefined, sort: sort?.key, dir: sort?.dir };
  const count = useAudiencePage(list, filters, countPaging);
  const rows = useAudiencePage(list, filters, rowsPaging, rules);
  const rulesSummary = useSWR([`${list.key}/review`, filters, rules], () => list.summary(filters, rules), { keepPreviousData: true, ...noRetryOn4xx });

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

  const rulesColumn: Column<Row & RuleMarks> = {
    key: "rules",
    header: t("review.rules"),
    cell: (row) =>
      row.exclusion ? (
        <Badge tone="warning">{t(`review.reasons.${row.exclusion}`)}</Badge>
      ) : row.deferredUntil ? (
        <Badge tone="brand">{t("review.waitsUntil", { at: formatDateTime(row.deferredUntil) })}</Badge>
      ) : (
        ""
      ),
  };
  const sendable = rulesSummary.data ? rulesSummary.data.sendNow + rulesSummary.data.deferred.count : 0;
  const refused = Boolean(rulesSummary.data?.refusal) || (rulesSummary.data !== undefined && sendable === 0);

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
      <RulesSummary summary={rulesSummary.data} loading={rulesSummary.isLoading} failed={Boolean(rulesSummary.error)} scheduledAt={rules.scheduledAt} />

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
          <p className="muted review-results" aria-live="polite">
            {t("review.results", { count: rows.data?.total ?? 0 })}
          </p>
          {(rows.error || count.error) && (
            <p className="alert" role="alert">
              {loadError}
            </p>
          )}
          <DataTable
            caption={t("review.caption")}
            columns={[selectColumn, rulesColumn, ...columns] as Column<Row & RuleMarks>[]}
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
        <button
          type="button"
          className="button"
          onClick={() => void send()}
          disabled={sending || firstLoad || Boolean(failed) || recipients === 0 || refused || !rulesSummary.data}
        >
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

function useAudiencePage<Filters, Row>(list: AudienceList<Filters, Row>, filters: Filters, paging: ReviewPaging, rules?: ReviewRules) {
  return useSWR([list.key, filters, paging, rules ?? null], () => list.load(filters, paging, rules), { keepPreviousData: true, ...noRetryOn4xx });
}

/** Who the rules leave out and why, who goes at once, and who waits for their allowed hours until when. */
function RulesSummary({ summary, loading, failed, scheduledAt }: { summary?: ReviewSummary; loading: boolean; failed: boolean; scheduledAt?: number }) {
  const { t } = useTranslation("admin");
  if (failed && !summary) {
    return (
      <p className="alert" role="alert">
        {t("errors.fetchData")}
      </p>
    );
  }
  if (!summary) return loading ? <p className="muted">{t("review.summaryLoading")}</p> : null;
  const reasons = EXCLUSION_REASONS.filter((r) => summary.excluded[r] > 0);
  const { deferred } = summary;
  return (
    <div className="rules-summary" aria-live="polite">
      {summary.refusal && (
        <p className="alert" role="alert">
          {/* The server words it in English; the one refusal it makes is said in the admin's language. */}
          {summary.excluded.whatsapp_marketing_us > 0 ? t("serverErrors.reasons.whatsapp_marketing_us") : summary.refusal}
        </p>
      )}
      <ul>
        {scheduledAt !== undefined && <li>{t("review.scheduled", { at: formatDateTime(scheduledAt) })}</li>}
        <li>{t("review.sendNow", { n: summary.sendNow })}</li>
        {deferred.count > 0 && deferred.first !== null && deferred.last !== null && (
          <li>
            {deferred.first === deferred.last
              ? t("review.deferred", { n: deferred.count, first: formatDateTime(deferred.first) })
              : t("review.deferredRange", { n: deferred.count, first: formatDateTime(deferred.first), last: formatDateTime(deferred.last) })}
          </li>
        )}
        {reasons.length > 0 && (
          <li>
            {t("review.leftOut")}: {reasons.map((r) => t("review.reasonCount", { reason: t(`review.reasons.${r}`), n: summary.excluded[r] })).join(" · ")}
          </li>
        )}
      </ul>
    </div>
  );
}

import { useDeferredValue, useId, useState } from "react";
import { useTranslation } from "react-i18next";
import useSWR from "swr";
import type { DriverRow } from "../../../../shared/audience";
import type { App } from "../../../../shared/auth";
import { formatUsPhone } from "../../../../shared/phone";
import { type Column, DataTable } from "../../../components/ui/DataTable";
import { Pager, usePaging } from "../../../components/ui/Pager";
import { type TriState, TriStateSelect } from "../../../components/ui/TriStateSelect";
import { api, asQuery, unwrap } from "../../../lib/api-client";
import { noRetryOn4xx } from "../api";
import { useTriLabels } from "../labels";

/** "Add all matching" reads the matches 100 at a time and stops here: a larger audience is panel 1's (Notifications). */
export const MAX_PICKED_AT_ONCE = 1000;
const READ_SIZE = 100;

type Filters = { app: App; search: string; goodStanding: TriState; accountConnected: TriState; setupComplete: TriState };
const initialFilters: Filters = { app: "flex", search: "", goodStanding: "all", accountConnected: "all", setupComplete: "all" };

/** The audience preview the notifications panel reads (GET /api/admin/audience): filtered, searched and paged on the server. */
function readUsers(f: Filters, page: number, pageSize: number) {
  return unwrap(api.admin.audience.$get({ query: asQuery({ ...f, search: f.search.trim() || undefined, page, pageSize }) }));
}

/**
 * Tools' recipients from the user tables: Flex or Spark drivers, searched and filtered on the server
 * as in panel 1, picked row by row (or every match, up to MAX_PICKED_AT_ONCE) and added to the
 * phone list beside the typed or pasted numbers.
 */
export function UserPicker({ onAdd }: { onAdd: (phones: string[]) => void }) {
  const { t } = useTranslation("admin");
  const ids = useId();
  const triLabels = useTriLabels();
  const [filters, setFilters] = useState<Filters>(initialFilters);
  const query = useDeferredValue(filters);
  const { page, pageSize, restart, pager } = usePaging();
  const [picked, setPicked] = useState<ReadonlySet<string>>(new Set());
  const [added, setAdded] = useState<number | null>(null);
  const [addingAll, setAddingAll] = useState(false);
  const [failed, setFailed] = useState(false);
  const users = useSWR(["admin/tools-users", query, page, pageSize], () => readUsers(query, page, pageSize), noRetryOn4xx);
  const rows = users.data?.rows ?? [];
  const total = users.data?.total ?? 0;

  const update = (patch: Partial<Filters>) => {
    setFilters((f) => ({ ...f, ...patch }));
    restart();
  };
  const toggle = (phones: string[], on: boolean) =>
    setPicked((prev) => {
      const next = new Set(prev);
      for (const p of phones) {
        if (on) next.add(p);
        else next.delete(p);
      }
      return next;
    });
  const add = (phones: string[]) => {
    onAdd(phones);
    setAdded(phones.length);
    setPicked(new Set());
  };
  const addAll = async () => {
    setAddingAll(true);
    setFailed(false);
    try {
      const phones: string[] = [];
      for (let n = 1; phones.length < Math.min(total, MAX_PICKED_AT_ONCE); n++) {
        const next = await readUsers(query, n, READ_SIZE);
        phones.push(...next.rows.map((r) => r.phone));
        if (next.rows.length < READ_SIZE) break;
      }
      add(phones.slice(0, MAX_PICKED_AT_ONCE));
    } catch {
      setFailed(true);
    } finally {
      setAddingAll(false);
    }
  };

  const columns: Column<DriverRow>[] = [
    {
      key: "select",
      className: "col-select",
      header: (
        <input
          type="checkbox"
          aria-label={t("review.selectPage")}
          checked={rows.length > 0 && rows.every((r) => picked.has(r.phone))}
          disabled={rows.length === 0}
          onChange={(e) =>
            toggle(
              rows.map((r) => r.phone),
              e.target.checked,
            )
          }
        />
      ),
      cell: (r) => (
        <input
          type="checkbox"
          aria-label={t("review.selectRow", { phone: r.phone })}
          checked={picked.has(r.phone)}
          onChange={(e) => toggle([r.phone], e.target.checked)}
        />
      ),
    },
    { key: "name", header: t("columns.name"), cell: (r) => r.name },
    { key: "phone", header: t("columns.phone"), className: "nowrap", cell: (r) => formatUsPhone(r.phone) },
    {
      key: "region",
      header: filters.app === "flex" ? t("columns.region") : t("columns.deliveryArea"),
      cell: (r) => (filters.app === "flex" ? r.region : r.deliveryArea) ?? "",
    },
  ];

  return (
    <section className="user-picker" aria-labelledby={`${ids}-title`}>
      <h3 id={`${ids}-title`}>{t("tools.picker.title")}</h3>
      <div className="field-row">
        <div className="field">
          <label htmlFor={`${ids}-app`}>{t("drivers.app")}</label>
          <select id={`${ids}-app`} value={filters.app} onChange={(e) => update({ app: e.target.value as App })}>
            <option value="flex">{t("drivers.appUsers.flex")}</option>
            <option value="spark">{t("drivers.appUsers.spark")}</option>
          </select>
        </div>
        <div className="field">
          <label htmlFor={`${ids}-search`}>{t("tools.picker.search")}</label>
          <input id={`${ids}-search`} type="search" value={filters.search} maxLength={100} onChange={(e) => update({ search: e.target.value })} />
        </div>
      </div>
      <div className="tri-grid">
        <TriStateSelect
          label={t("filters.goodStanding")}
          value={filters.goodStanding}
          onChange={(goodStanding) => update({ goodStanding })}
          labels={triLabels}
        />
        <TriStateSelect
          label={t("filters.proxyInstalled")}
          value={filters.accountConnected}
          onChange={(accountConnected) => update({ accountConnected })}
          labels={triLabels}
        />
        <TriStateSelect
          label={t("filters.setupComplete")}
          value={filters.setupComplete}
          onChange={(setupComplete) => update({ setupComplete })}
          labels={triLabels}
        />
      </div>
      {users.error ? (
        <p className="alert" role="alert">
          {t("tools.picker.error")}
        </p>
      ) : !users.data ? (
        <p className="loading-inline" role="status">
          <span className="spinner spinner-small" aria-hidden="true" /> {t("tools.picker.loading")}
        </p>
      ) : (
        <>
          <div className="selection-bar">
            <strong aria-live="polite">{t("tools.picker.selection", { selected: picked.size, total })}</strong>
            <span>
              <button type="button" className="button button-secondary" disabled={picked.size === 0} onClick={() => add([...picked])}>
                {t("tools.picker.addSelected", { count: picked.size })}
              </button>
              <button
                type="button"
                className="button button-secondary"
                disabled={total === 0 || total > MAX_PICKED_AT_ONCE || addingAll}
                aria-describedby={total > MAX_PICKED_AT_ONCE ? `${ids}-too-many` : undefined}
                onClick={() => void addAll()}
              >
                {t("tools.picker.addAll", { count: total })}
              </button>
            </span>
          </div>
          {total > MAX_PICKED_AT_ONCE && (
            <p id={`${ids}-too-many`} className="muted">
              {t("tools.picker.tooMany", { max: MAX_PICKED_AT_ONCE })}
            </p>
          )}
          {failed && (
            <p className="alert" role="alert">
              {t("tools.picker.error")}
            </p>
          )}
          <DataTable caption={t("tools.picker.title")} columns={columns} rows={rows} rowKey={(r) => String(r.id)} empty={t("tools.picker.empty")} />
          <Pager
            {...pager}
            page={page}
            total={total}
            labels={{
              rowsPerPage: t("paging.rowsPerPage"),
              previous: t("paging.previous"),
              next: t("paging.next"),
              page: (n, pages) => t("paging.page", { page: n, pages }),
            }}
          />
        </>
      )}
      {added !== null && (
        <p role="status" className="notice">
          {t("tools.picker.added", { count: added })}
        </p>
      )}
    </section>
  );
}

import { useEffect, useId, useState } from "react";
import { useTranslation } from "react-i18next";
import { Link, useSearchParams } from "react-router";
import { isErasedPhone } from "../../../../shared/account";
import { USER_ROLES, USER_SORTS, type UserListRow } from "../../../../shared/admin-users";
import { localTimeZone } from "../../../../shared/audience";
import { formatDDMMYY } from "../../../../shared/dates";
import { DEFAULT_PAGE_SIZE, PAGE_SIZES } from "../../../../shared/paging";
import { formatUsPhone } from "../../../../shared/phone";
import { BoolMark, type Column, DataTable, type SortDir } from "../../../components/ui/DataTable";
import { MultiSelect } from "../../../components/ui/MultiSelect";
import { Pager } from "../../../components/ui/Pager";
import { type TriState, TriStateSelect } from "../../../components/ui/TriStateSelect";
import { USERS_NS } from "../../../i18n/admin-users";
import { asQuery } from "../../../lib/api-client";
import { formatCount, saveText } from "../format";
import { useAdminUser } from "../use-admin-user";
import { exportUsers, useRegions, useUsers } from "./api";
import { usePagerLabels } from "./labels";
import "../lists.css";
import "./users.css";

const TRI_FILTERS = ["goodStanding", "accountConnected", "setupComplete", "reseller"] as const;
const DATE_FILTERS = ["createdFrom", "createdTo", "expiresFrom", "expiresTo"] as const;

/**
 * The filters live in the address, so a filtered list can be shared, bookmarked and gone back to.
 * Sorting by referral code is for administrators with billingDetails (the server refuses it otherwise).
 */
function readFilters(params: URLSearchParams, billing: boolean) {
  const pick = <T extends string>(name: string, allowed: readonly T[], fallback: T): T => {
    const v = params.get(name) as T | null;
    return v && allowed.includes(v) ? v : fallback;
  };
  const size = Number(params.get("pageSize"));
  return {
    app: pick("app", ["flex", "spark"] as const, "flex"),
    search: params.get("search") ?? "",
    region: params.getAll("region"),
    tri: Object.fromEntries(TRI_FILTERS.map((k) => [k, pick(k, ["all", "yes", "no"] as const, "all")])) as Record<(typeof TRI_FILTERS)[number], TriState>,
    system: pick("system", ["all", "on", "off"] as const, "all"),
    role: pick("role", USER_ROLES, "drivers"),
    dates: Object.fromEntries(DATE_FILTERS.map((k) => [k, params.get(k) ?? ""])) as Record<(typeof DATE_FILTERS)[number], string>,
    sort: pick("sort", billing ? USER_SORTS : USER_SORTS.filter((s) => s !== "referral"), "createdAt"),
    dir: pick("dir", ["asc", "desc"] as const, "desc"),
    page: Math.max(1, Math.floor(Number(params.get("page")) || 1)),
    pageSize: (PAGE_SIZES as readonly number[]).includes(size) ? size : DEFAULT_PAGE_SIZE,
  };
}

type Filters = ReturnType<typeof readFilters>;

function toQuery(f: Filters, timeZone: string) {
  return {
    app: f.app,
    search: f.search.trim() || undefined,
    region: f.region,
    ...f.tri,
    system: f.system,
    role: f.role,
    ...Object.fromEntries(Object.entries(f.dates).filter(([, v]) => v)),
    timeZone,
    sort: f.sort,
    dir: f.dir,
    page: f.page,
    pageSize: f.pageSize,
  };
}

/** /admin/users: every account, searched, filtered and sorted on the server, a page at a time, and the filtered set as CSV. */
export default function UsersPage() {
  const { t, i18n } = useTranslation(USERS_NS);
  const [params, setParams] = useSearchParams();
  const { billingDetails } = useAdminUser();
  const filters = readFilters(params, billingDetails);
  const timeZone = localTimeZone() ?? "UTC";
  const query = asQuery(toQuery(filters, timeZone));
  const users = useUsers(query);
  const regions = useRegions(filters.app);
  const [search, setSearch] = useState(filters.search);
  const [exporting, setExporting] = useState<"idle" | "busy" | "failed">("idle");
  const ids = { search: useId(), app: useId(), system: useId(), role: useId() };
  const pagerLabels = usePagerLabels();

  /** Changes filters (back to page 1 unless the page itself changes). */
  const update = (changes: Record<string, string | string[] | number | null>) => {
    setParams(
      (current) => {
        const next = new URLSearchParams(current);
        for (const [key, value] of Object.entries(changes)) {
          next.delete(key);
          if (Array.isArray(value)) for (const v of value) next.append(key, v);
          else if (value !== null && value !== "") next.set(key, String(value));
        }
        if (!("page" in changes)) next.delete("page");
        return next;
      },
      { replace: true },
    );
  };

  // The search box asks the server once typing pauses.
  useEffect(() => {
    if (search === filters.search) return;
    const timer = setTimeout(() => update({ search }), 300);
    return () => clearTimeout(timer);
  });

  const download = async () => {
    setExporting("busy");
    try {
      const { page: _page, pageSize: _size, ...all } = query;
      saveText(await exportUsers(all), `users-${filters.app}.csv`);
      setExporting("idle");
    } catch (err) {
      console.error("The CSV export failed", err);
      setExporting("failed");
    }
  };

  const yesNo = { yes: t("yes"), no: t("no") };
  const columns: Column<UserListRow>[] = [
    {
      key: "name",
      header: t("columns.name"),
      sortKey: "name",
      // A name can be empty (a sign-up whose phone was proven by someone else, an erased account): the link still says whose row it is.
      cell: (u) => <Link to={`/admin/users/${u.id}`}>{u.name || t(isErasedPhone(u.phone) ? "erasedAccount" : "noName")}</Link>,
    },
    {
      key: "phone",
      header: t("columns.phone"),
      sortKey: "phone",
      className: "nowrap",
      cell: (u) => (isErasedPhone(u.phone) ? "—" : formatUsPhone(u.phone) || u.phone),
    },
    { key: "region", header: t(filters.app === "flex" ? "columns.region" : "columns.deliveryArea"), sortKey: "region", cell: (u) => u.region ?? "" },
    // Referral codes are billing data: the server sends them only to administrators with billingDetails.
    ...(billingDetails ? [{ key: "referral", header: t("columns.referral"), sortKey: "referral", cell: (u: UserListRow) => u.referral ?? "" }] : []),
    { key: "standing", header: t("columns.goodStanding"), cell: (u) => <BoolMark value={u.goodStanding} {...yesNo} /> },
    { key: "connected", header: t("columns.accountConnected"), cell: (u) => <BoolMark value={u.accountConnected} {...yesNo} /> },
    { key: "setup", header: t("columns.setupComplete"), cell: (u) => <BoolMark value={u.setupComplete} {...yesNo} /> },
    { key: "system", header: t("columns.system"), sortKey: "status", cell: (u) => (u.status === "start" ? t("system.on") : t("system.off")) },
    {
      key: "expiration",
      header: t("columns.expiration"),
      sortKey: "expirationAt",
      className: "nowrap",
      cell: (u) => formatDDMMYY(u.expirationAt) ?? t("none"),
    },
    { key: "created", header: t("columns.created"), sortKey: "createdAt", className: "nowrap", cell: (u) => formatDDMMYY(u.createdAt) },
    { key: "role", header: t("columns.role"), cell: (u) => (u.isAdmin ? (u.roleName ?? t("roles.admins")) : u.reseller ? t("reseller") : t("driver")) },
  ];

  const total = users.data?.total ?? 0;
  const triLabels = { all: t("tri.all"), yes: t("tri.yes"), no: t("tri.no") };

  return (
    <section className="users-page">
      <h1>{t("title")}</h1>
      <details className="filters" open>
        <summary>{t("filters.title")}</summary>
        <div className="filters-grid">
          <div className="field">
            <label htmlFor={ids.search}>{t("filters.search")}</label>
            <input
              id={ids.search}
              type="search"
              value={search}
              placeholder={t(billingDetails ? "filters.searchHint" : "filters.searchHintNoReferral")}
              onChange={(e) => setSearch(e.target.value)}
            />
          </div>
          <div className="field">
            <label htmlFor={ids.app}>{t("filters.app")}</label>
            <select id={ids.app} value={filters.app} onChange={(e) => update({ app: e.target.value, region: [] })}>
              <option value="flex">Flex</option>
              <option value="spark">Spark</option>
            </select>
          </div>
          <div className="field">
            <label htmlFor={ids.role}>{t("filters.role")}</label>
            <select id={ids.role} value={filters.role} onChange={(e) => update({ role: e.target.value })}>
              {USER_ROLES.map((r) => (
                <option key={r} value={r}>
                  {t(`roles.${r}`)}
                </option>
              ))}
            </select>
          </div>
          <div className="field">
            <label htmlFor={ids.system}>{t("filters.system")}</label>
            <select id={ids.system} value={filters.system} onChange={(e) => update({ system: e.target.value })}>
              <option value="all">{t("tri.all")}</option>
              <option value="on">{t("system.on")}</option>
              <option value="off">{t("system.off")}</option>
            </select>
          </div>
          {TRI_FILTERS.map((k) => (
            <TriStateSelect
              key={k}
              label={t(`filters.${k}`)}
              value={filters.tri[k]}
              labels={triLabels}
              onChange={(v) => update({ [k]: v === "all" ? null : v })}
            />
          ))}
          {DATE_FILTERS.map((k) => (
            <DateFilter key={k} label={t(`filters.${k}`)} value={filters.dates[k]} lang={i18n.language} onChange={(v) => update({ [k]: v })} />
          ))}
        </div>
        {(regions.data?.Items.length ?? 0) > 0 && (
          <MultiSelect
            legend={t(filters.app === "flex" ? "filters.region" : "filters.deliveryArea")}
            options={regions.data!.Items}
            value={filters.region}
            onChange={(region) => update({ region })}
            labels={{ selected: (n) => t("filters.selected", { count: n }), clear: t("filters.clear"), filter: t("filters.filter"), none: t("filters.none") }}
          />
        )}
        <button
          type="button"
          className="link-button"
          onClick={() => {
            setSearch("");
            setParams(new URLSearchParams(), { replace: true });
          }}
        >
          {t("filters.reset")}
        </button>
      </details>

      <div className="results-bar">
        <p role="status" aria-live="polite">
          {users.data ? t("results", { count: total, n: formatCount(total, i18n.language) }) : ""}
        </p>
        <button type="button" className="button button-secondary" onClick={() => void download()} disabled={exporting === "busy" || !users.data}>
          {exporting === "busy" ? t("export.busy") : t("export.button")}
        </button>
      </div>
      {exporting === "failed" && (
        <p className="alert" role="alert">
          {t("export.failed")}
        </p>
      )}

      {users.error && !users.data ? (
        <div className="alert" role="alert">
          <p>{t("error")}</p>
          <button type="button" className="button button-secondary" onClick={() => void users.mutate()}>
            {t("retry")}
          </button>
        </div>
      ) : !users.data ? (
        <div className="loading-block" role="status">
          <span className="spinner" aria-hidden="true" />
          <span>{t("loading")}</span>
        </div>
      ) : (
        <>
          <DataTable
            caption={t("title")}
            columns={columns}
            rows={users.data.rows}
            rowKey={(u) => u.id}
            busy={users.isValidating}
            empty={t("empty")}
            sort={{ key: filters.sort, dir: filters.dir }}
            onSort={(key: string, dir: SortDir) => update({ sort: key, dir })}
            rowClassName={(u) => (u.reseller ? "row-reseller" : undefined)}
          />
          <Pager
            page={filters.page}
            pageSize={filters.pageSize}
            total={total}
            onPage={(page) => update({ page })}
            onPageSize={(pageSize) => update({ pageSize })}
            labels={pagerLabels}
          />
        </>
      )}
    </section>
  );
}

function DateFilter({ label, value, lang, onChange }: { label: string; value: string; lang: string; onChange: (value: string) => void }) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input id={id} type="date" lang={lang} value={value} onChange={(e) => onChange(e.target.value)} />
    </div>
  );
}

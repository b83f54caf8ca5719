import { type ReactNode, useId } from "react";
import { useTranslation } from "react-i18next";
import type { PagerLabels } from "../../components/ui/Pager";
import { LISTS_NS } from "../../i18n/admin-lists";
import "./lists.css";

/**
 * The pieces the console's list pages share: a labelled select and a date field for their filter
 * bars (the filters live in the address; see each page), and the filter bar's frame.
 */
export function FilterBar({ title, children, onReset, resetLabel }: { title: string; children: ReactNode; onReset: () => void; resetLabel: string }) {
  return (
    <details className="filters" open>
      <summary>{title}</summary>
      <div className="filters-grid">{children}</div>
      <button type="button" className="link-button" onClick={onReset}>
        {resetLabel}
      </button>
    </details>
  );
}

export function SelectFilter<V extends string>({
  label,
  value,
  options,
  onChange,
}: {
  label: string;
  value: V;
  options: readonly { value: V; label: string }[];
  onChange: (value: V) => void;
}) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <select id={id} value={value} onChange={(e) => onChange(e.target.value as V)}>
        {options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
    </div>
  );
}

export function DateFilter({ label, value, lang, onChange }: { label: string; value: string; lang: string; onChange: (value: string) => void }) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input id={id} type="date" lang={lang} value={value} onChange={(e) => onChange(e.target.value)} />
    </div>
  );
}

export function TextFilter({ label, value, hint, onChange }: { label: string; value: string; hint?: string; onChange: (value: string) => void }) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input id={id} type="search" value={value} placeholder={hint} onChange={(e) => onChange(e.target.value)} />
    </div>
  );
}

/** "Rows per page", "Page N of M" and the rest, in the lists' words. */
export function usePagerWords(): PagerLabels {
  const { t } = useTranslation(LISTS_NS);
  return {
    rowsPerPage: t("paging.rowsPerPage"),
    previous: t("paging.previous"),
    next: t("paging.next"),
    page: (page, pages) => t("paging.page", { page, pages }),
  };
}

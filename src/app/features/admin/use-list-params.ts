import { useEffect, useState } from "react";
import { useSearchParams } from "react-router";
import { DEFAULT_PAGE_SIZE, PAGE_SIZES } from "../../../shared/paging";

/**
 * A list page's filters, kept in the address (shareable, bookmarkable, and Back undoes a filter).
 * `update` changes some and goes back to page 1 unless the page itself changes; the search text is
 * sent once typing pauses.
 */
export function useListParams() {
  const [params, setParams] = useSearchParams();
  const size = Number(params.get("pageSize"));
  const paging = {
    page: Math.max(1, Math.floor(Number(params.get("page")) || 1)),
    pageSize: (PAGE_SIZES as readonly number[]).includes(size) ? size : DEFAULT_PAGE_SIZE,
  };
  const update = (changes: Record<string, string | string[] | number | null>) => {
    setParams(
      (current) => {
        const next = new URLSearchParams(current);
        for (const [key, value] of Object.entries(changes)) {
          next.delete(key);
          if (Array.isArray(value)) for (const v of value) next.append(key, v);
          else if (value !== null && value !== "" && value !== "all") next.set(key, String(value));
        }
        if (!("page" in changes)) next.delete("page");
        return next;
      },
      { replace: true },
    );
  };
  const pick = <T extends string>(name: string, allowed: readonly T[], fallback: T): T => {
    const v = params.get(name) as T | null;
    return v && allowed.includes(v) ? v : fallback;
  };
  const text = (name: string) => params.get(name) ?? "";
  const [search, setSearch] = useState(text("search"));
  const applied = text("search");
  useEffect(() => {
    if (search === applied) return;
    const timer = setTimeout(() => update({ search }), 300);
    return () => clearTimeout(timer);
  });
  const reset = () => {
    setSearch("");
    setParams(new URLSearchParams(), { replace: true });
  };
  return {
    paging,
    update,
    pick,
    text,
    search,
    setSearch,
    reset,
    pager: { page: paging.page, pageSize: paging.pageSize, onPage: (page: number) => update({ page }), onPageSize: (pageSize: number) => update({ pageSize }) },
  };
}

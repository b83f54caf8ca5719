import { createContext, type ReactNode, useContext, useEffect, useState } from "react";

/**
 * document.title for the screens of a layout. The layout names each page from its route's handle;
 * a page that knows better (a user's name on /admin/users/42) says so with usePageTitle, and its
 * title wins while it is mounted. Titles read "<page> · Blockpilot".
 */
const PageTitleContext = createContext<(title: string | null) => void>(() => {});

export function PageTitleProvider({ fallback, suffix, children }: { fallback: string; suffix: string; children: ReactNode }) {
  const [override, setOverride] = useState<string | null>(null);
  const title = override ?? fallback;
  useEffect(() => {
    document.title = title ? `${title} · ${suffix}` : suffix;
  }, [title, suffix]);
  return <PageTitleContext.Provider value={setOverride}>{children}</PageTitleContext.Provider>;
}

/** A page's own title (null or empty keeps the route's). */
export function usePageTitle(title: string | null | undefined) {
  const set = useContext(PageTitleContext);
  useEffect(() => {
    set(title || null);
    return () => set(null);
  }, [set, title]);
}

import { createContext, useContext, useEffect } from "react";
import { useMatches } from "react-router";

/**
 * Every page has its own document.title: the route's `handle.title` (a translation key) by
 * default, or what the page says with usePageTitle (a campaign's name, a user's). RootLayout
 * writes it as "<title> · Blockpilot" in the current language.
 */
export const PageTitleContext = createContext<(title: string | null) => void>(() => {});

/** Overrides the route's title while the calling page is shown; pass already translated words. @public (pages named by their data use it) */
export function usePageTitle(title: string | null | undefined) {
  const setTitle = useContext(PageTitleContext);
  useEffect(() => {
    if (!title) return;
    setTitle(title);
    return () => setTitle(null);
  }, [title, setTitle]);
}

/** A route's handle: translation keys (namespace "common" unless prefixed). */
export type RouteHandle = {
  title?: string;
  /**
   * The page's opening paragraph, when it has one under its heading: a guarded page shows it with
   * the heading while the session loads (PagePending in routing/Guard.tsx), so a page whose largest
   * first paint is that paragraph has it on screen from the pre-rendered HTML on.
   */
  lead?: string;
};

/** The handle of the deepest matched route that has a title (RootLayout's document title, a guarded page's pending heading). */
export function useRouteHandle(): RouteHandle | undefined {
  return useMatches().findLast((match) => (match.handle as RouteHandle | undefined)?.title)?.handle as RouteHandle | undefined;
}

export const useRouteTitleKey = (): string | undefined => useRouteHandle()?.title;

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

/** A route's handle: its title's translation key (namespace "common" unless prefixed). */
export type RouteHandle = {
  title?: string;
};

/** The title key of the deepest matched route that has one (RootLayout's document title, a guarded page's pending heading). */
export function useRouteTitleKey(): string | undefined {
  return (useMatches().findLast((match) => (match.handle as RouteHandle | undefined)?.title)?.handle as RouteHandle | undefined)?.title;
}

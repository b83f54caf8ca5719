import { type MouseEvent, useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import { Outlet, useNavigation } from "react-router";
import { HydrationBoundary } from "../boot/hydration";
import { lazyPart } from "../boot/lazy-part";
import { PageTitleContext, useRouteTitleKey } from "../lib/page-title";
import { TopBar } from "./TopBar";

// The footer sits below the fold: its code and strings load after the first paint.
const SiteFooter = lazyPart("footer", () => import("./SiteFooter"));

/** Moves focus to the page's <main id="main"> without touching the URL the router owns. */
function skipToMain(event: MouseEvent<HTMLAnchorElement>) {
  const main = document.getElementById("main");
  if (!main) return;
  event.preventDefault();
  main.focus();
  main.scrollIntoView();
}

/** The frame of every page: skip link, top bar, the page, the footer; and the page's title. */
export function RootLayout() {
  const navigation = useNavigation();
  const { t } = useTranslation();
  const titleKey = useRouteTitleKey();
  const [override, setOverride] = useState<string | null>(null);
  const title = override ?? (titleKey ? t(titleKey) : null);
  const appName = t("appName");
  useEffect(() => {
    document.title = title ? `${title} · ${appName}` : appName;
  }, [title, appName]);
  return (
    <PageTitleContext.Provider value={setOverride}>
      {/* biome-ignore lint/a11y/useValidAnchor: a skip link is a link to #main; the click handler only keeps the router's URL. */}
      <a className="skip-link" href="#main" onClick={skipToMain}>
        {t("skipToContent")}
      </a>
      <TopBar />
      <div className={navigation.state === "loading" ? "route-progress active" : "route-progress"} aria-hidden="true" />
      <Outlet />
      <HydrationBoundary fallback={null}>
        <SiteFooter />
      </HydrationBoundary>
    </PageTitleContext.Provider>
  );
}

import { useTranslation } from "react-i18next";
import { isRouteErrorResponse, Link, useRouteError } from "react-router";
import { isChunkLoadError } from "../lib/lazy-page";

/**
 * Error pages. They render inside the frame (top bar and footer stay) because the router puts
 * their error boundary below the root layout; the root's own boundary is the last resort.
 */

/** The page-load boundary: a route's code could not be downloaded. */
export function PageLoadError() {
  const { t } = useTranslation();
  return (
    <main id="main" tabIndex={-1} className="page error-page" role="alert">
      <h1>{t("errors.pageLoad")}</h1>
      <button type="button" className="button" onClick={() => window.location.assign("/")}>
        {t("goBack")}
      </button>
    </main>
  );
}

/** "page not found", for an address no route matches. */
export function NotFoundPage() {
  const { t } = useTranslation();
  return (
    <main id="main" tabIndex={-1} className="page error-page">
      <p className="error-code" aria-hidden="true">
        404
      </p>
      <h1>{t("errors.pageNotFound")}</h1>
      <p className="muted">{t("errors.notFoundHint")}</p>
      <Link className="button" to="/">
        {t("goBack")}
      </Link>
    </main>
  );
}

/** The route error element: "page not found" for a Not Found, otherwise "an error has occurred". */
export function ErrorPage() {
  const error = useRouteError();
  const { t } = useTranslation();
  if (isChunkLoadError(error)) return <PageLoadError />;
  if (isRouteErrorResponse(error) && error.statusText === "Not Found") return <NotFoundPage />;
  console.error(error);
  return (
    <main id="main" tabIndex={-1} className="page error-page" role="alert">
      <h1>{t("errors.anErrorHasOccurred")}</h1>
      <Link className="button" to="/">
        {t("goBack")}
      </Link>
    </main>
  );
}

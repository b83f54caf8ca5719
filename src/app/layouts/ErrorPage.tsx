import { useTranslation } from "react-i18next";
import { isRouteErrorResponse, Link, useRouteError } from "react-router";
import { Logo } from "../components/ui/Logo";
import { isChunkLoadError } from "../lib/lazy-page";

/** The page-load boundary: a route's code could not be downloaded. */
export function PageLoadError() {
  const { t } = useTranslation();
  return (
    <main className="error-page" role="alert">
      <Logo size={56} />
      <p>{t("errors.pageLoad")}</p>
      <button type="button" className="button" onClick={() => window.location.assign("/")}>
        {t("goBack")}
      </button>
    </main>
  );
}

/** The root error element: "page not found" for a Not Found, otherwise "an error has occurred". */
export function ErrorPage() {
  const error = useRouteError();
  const { t } = useTranslation();
  if (isChunkLoadError(error)) return <PageLoadError />;
  const notFound = isRouteErrorResponse(error) && error.statusText === "Not Found";
  if (!notFound) console.error(error);
  return (
    <main className="error-page" role="alert">
      <Logo size={56} />
      <h1>{notFound ? t("errors.pageNotFound") : t("errors.anErrorHasOccurred")}</h1>
      <Link className="button" to="/">
        {t("goBack")}
      </Link>
    </main>
  );
}

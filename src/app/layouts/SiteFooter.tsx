import { useTranslation } from "react-i18next";
import { Link } from "react-router";
import useSWR from "swr";
import { Logo } from "../components/ui/Logo";
import { publicApi } from "../lib/api-client";
import { useSession } from "../lib/session";
import { type Versions, versionsFrom } from "../lib/versions";
import "../i18n/site";

// The versions are response headers, so this reads the raw response of the typed call.
async function fetchVersions(): Promise<Versions | null> {
  const res = await publicApi.status.health.$get();
  return res.ok ? versionsFrom(res.headers) : null;
}

/** The footer of every page: what we are, where help is, the legal pages and the versions running. */
export default function SiteFooter() {
  const { t } = useTranslation("site");
  return (
    <footer className="site-footer">
      <div className="site-footer-inner">
        <div>
          <Link to="/" className="site-footer-brand">
            <Logo size={28} />
            {t("common:appName")}
          </Link>
          <p>{t("footer.tagline")}</p>
        </div>
        <nav aria-label={t("footer.product")}>
          <h2>{t("footer.product")}</h2>
          <ul>
            <li>
              <Link to="/#how-it-works">{t("footer.howItWorks")}</Link>
            </li>
            <li>
              <Link to="/#plans">{t("footer.pricing")}</Link>
            </li>
            <AccountLinks />
          </ul>
        </nav>
        <nav aria-label={t("footer.help")}>
          <h2>{t("footer.help")}</h2>
          <ul>
            <li>
              <Link to="/faqs">{t("common:nav.faqs")}</Link>
            </li>
            <li>
              <Link to="/contact">{t("common:nav.contact")}</Link>
            </li>
          </ul>
          <p>{t("footer.hours")}</p>
        </nav>
        <nav aria-label={t("footer.legal")}>
          <h2>{t("footer.legal")}</h2>
          <ul>
            <li>
              <Link to="/terms">{t("common:nav.terms")}</Link>
            </li>
            <li>
              <Link to="/privacy">{t("common:titles.privacy")}</Link>
            </li>
          </ul>
        </nav>
      </div>
      <div className="site-footer-base">
        <p>{t("footer.copyright", { year: new Date().getFullYear() })}</p>
        <FooterVersions />
      </div>
    </footer>
  );
}

/**
 * Signed out: create an account, sign in. Signed in: the way back to one's own screens, the driver's
 * dashboard or the console. Neither while the session loads, so a signed-in visitor is never offered
 * "Sign in" (the dashboard's pre-rendered page is rendered that way: docs/public-site.md).
 */
function AccountLinks() {
  const { t } = useTranslation("site");
  const { loading, session, user } = useSession();
  if (loading || (session && !user)) return null;
  if (user) {
    return <li>{user.isAdmin ? <Link to="/admin">{t("common:menu.admin")}</Link> : <Link to="/flex/dashboard">{t("common:titles.flexDashboard")}</Link>}</li>;
  }
  return (
    <>
      <li>
        <Link to="/register">{t("footer.register")}</Link>
      </li>
      <li>
        <Link to="/login">{t("common:nav.signIn")}</Link>
      </li>
    </>
  );
}

/**
 * The versions line, a component of its own: SWR's store re-renders the component that reads it
 * synchronously when a request starts or ends, and on the pre-rendered pages that was the whole
 * footer, right after hydrating (a long task on a slow phone).
 */
function FooterVersions() {
  const { t } = useTranslation("site");
  // The versions change only with a deploy: read once per visit.
  const { data: versions } = useSWR("health-versions", fetchVersions, { revalidateOnFocus: false, revalidateIfStale: false, shouldRetryOnError: false });
  return <p data-testid="versions">{versions ? t("footer.versions", { app: versions.app, schema: versions.schema }) : "\u00a0"}</p>;
}

import { useTranslation } from "react-i18next";
import { useSiteInfo } from "./api";
import "../../i18n/legal";
import "./site.css";

/** The providers the privacy policy names: who processes card payments, who sends text messages. */
const PROVIDERS = { paymentProvider: "Stripe", smsProvider: "Twilio" };

/**
 * A legal document (terms or privacy) from the "legal" namespace: its sections in order, with a
 * table of contents. The contact address comes from the server's configuration.
 */
export function LegalDocument({ doc }: { doc: "terms" | "privacy" }) {
  const { t, i18n } = useTranslation("legal");
  const site = useSiteInfo();
  const sections = Object.keys(i18n.getResourceBundle("en", "legal")[doc].sections as Record<string, unknown>);
  const values = { ...PROVIDERS, email: site.data?.supportEmail ?? "…" };
  return (
    <article className="site-page legal">
      <h1>{t(doc === "terms" ? "common:titles.terms" : "common:titles.privacy")}</h1>
      <p className="site-lead">{t(`${doc}.lead`)}</p>
      <p className="muted">{t("updated")}</p>
      <nav className="legal-contents" aria-labelledby={`${doc}-contents`}>
        <h2 id={`${doc}-contents`}>{t("contents")}</h2>
        <ol>
          {sections.map((key) => (
            <li key={key}>
              <a href={`#${key}`}>{t(`${doc}.sections.${key}.title`).replace(/^\d+\.\s*/, "")}</a>
            </li>
          ))}
        </ol>
      </nav>
      {sections.map((key) => (
        <section key={key} id={key} aria-labelledby={`${key}-title`}>
          <h2 id={`${key}-title`}>{t(`${doc}.sections.${key}.title`)}</h2>
          <p>{t(`${doc}.sections.${key}.body`, values)}</p>
        </section>
      ))}
    </article>
  );
}

export function TermsPage() {
  return <LegalDocument doc="terms" />;
}

export function PrivacyPage() {
  return <LegalDocument doc="privacy" />;
}

import { useTranslation } from "react-i18next";
import { Link } from "react-router";
import { Icon } from "../../components/ui/Icon";
import "../../i18n/site";
import "./site.css";

/** The questions, in the order drivers meet them (site.json keeps the words). */
const QUESTIONS = ["hours", "download", "filters", "taken", "connect", "safe", "pay", "freeWeek", "cancel", "languages"] as const;

/** /faqs: short answers, each a disclosure so the list reads at a glance. */
export default function FaqsPage() {
  const { t } = useTranslation("site");
  return (
    <article className="site-page">
      <h1>{t("common:titles.faqs")}</h1>
      <p className="site-lead">{t("faqs.lead")}</p>
      <div className="faq-list">
        {QUESTIONS.map((key) => (
          <details key={key} className="faq-item" id={key}>
            <summary>{t(`faqs.items.${key}.q`)}</summary>
            <p>{t(`faqs.items.${key}.a`)}</p>
          </details>
        ))}
      </div>
      <p>
        <Link to="/contact" className="button button-secondary">
          <Icon name="message-square" />
          {t("faqs.contactCta")}
        </Link>
      </p>
    </article>
  );
}

import { useTranslation } from "react-i18next";
import { StatusView } from "../../../components/ui/StatusView";
import { BILLING_NS } from "../../../i18n/admin-billing";
import { useSession } from "../../../lib/session";
import "../lists.css";
import { PaymentsSection } from "./PaymentsSection";
import { PlansSection } from "./PlansSection";
import { ResellersSection } from "./ResellersSection";
import "./billing.css";

/**
 * /admin/billing (billingDetails; the server enforces it): payments with totals, refunds, CSV and
 * revenue per day; the plans (edited by the owner); resellers and their commissions.
 */
export default function BillingPage() {
  const { t } = useTranslation(BILLING_NS);
  const user = useSession().user;
  if (!user?.role?.properties.billingDetails) {
    return (
      <section>
        <h1>{t("title")}</h1>
        <StatusView kind="empty" icon="lock" title={t("noAccess")} message={t("noAccessHelp")} />
      </section>
    );
  }
  return (
    <section className="billing-page">
      <h1>{t("title")}</h1>
      <nav className="in-page-nav" aria-label={t("sections")}>
        <a href="#payments-heading">{t("payments.title")}</a>
        <a href="#plans-heading">{t("plans.title")}</a>
        <a href="#resellers-heading">{t("resellers.title")}</a>
      </nav>
      <div className="user-sections">
        <PaymentsSection />
        <PlansSection canEdit={user.role.name === "owner"} />
        <ResellersSection />
      </div>
    </section>
  );
}

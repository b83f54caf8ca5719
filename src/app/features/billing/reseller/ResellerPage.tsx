import { useTranslation } from "react-i18next";
import { useSearchParams } from "react-router";
import { StatusView } from "../../../components/ui/StatusView";
import { type ApprovedReseller, useReseller } from "../api";
import { CopyField } from "../CopyField";
import { PaymentResult } from "../PaymentResult";
import { ClientsCard } from "./ClientsCard";
import { CommissionsCard } from "./CommissionsCard";
import { PayoutsCard } from "./PayoutsCard";
import { ResellerApplication } from "./ResellerApplication";
import "../../../i18n/billing";
import "../billing.css";

/**
 * /flex/reseller: apply to the reseller program; once approved, the referral code to share, payout
 * setup (Connect Express onboarding), the clients who registered with the code (pay their plan,
 * open their calendar) and the commissions earned on their payments.
 */
export default function ResellerPage() {
  const { t } = useTranslation("billing");
  const { data, error, mutate } = useReseller();
  return (
    <section className="billing-page">
      <h1>{t("common:titles.flexReseller")}</h1>
      {error ? (
        <StatusView kind="error" title={t("reseller.loadError")} onRetry={() => void mutate()} />
      ) : !data ? (
        <StatusView kind="loading" />
      ) : data.reseller.status === "approved" ? (
        <ResellerHome reseller={data.reseller as ApprovedReseller} reload={() => void mutate()} />
      ) : (
        <ResellerApplication summary={data.reseller} onApplied={() => void mutate()} />
      )}
    </section>
  );
}

/** An approved reseller's page: a client's payment coming back from the checkout, the code, payouts, clients and commissions. */
function ResellerHome({ reseller, reload }: { reseller: ApprovedReseller; reload: () => void }) {
  const { t } = useTranslation("billing");
  const [params] = useSearchParams();
  const paymentId = Number(params.get("payment")) || null;
  const shareLink = `${window.location.origin}/register?ref=${encodeURIComponent(reseller.referralCode ?? "")}`;
  return (
    <>
      {paymentId !== null && <PaymentResult key={paymentId} paymentId={paymentId} canceled={params.get("canceled") === "1"} />}
      <div className="reseller-grid">
        <section className="card" aria-labelledby="reseller-code-title">
          <h2 id="reseller-code-title">{t("reseller.codeTitle")}</h2>
          <p>{t("reseller.commission", { percent: reseller.commissionPercent })}</p>
          <CopyField label={t("reseller.code")} value={reseller.referralCode ?? ""} />
          <CopyField label={t("reseller.link")} value={shareLink} />
        </section>
        <PayoutsCard reseller={reseller} onboarding={params.get("onboarding")} reload={reload} />
      </div>
      <ClientsCard />
      <CommissionsCard />
    </>
  );
}

import { useState } from "react";
import { useTranslation } from "react-i18next";
import { Link } from "react-router";
import type { UserDetail } from "../../../../shared/admin-users";
import { useConfirm } from "../../../components/ui/Dialog";
import { USERS_NS } from "../../../i18n/admin-users";
import { resellerApi } from "./api";

/**
 * Where this driver stands in the reseller programme, and the decision a billing admin can take
 * from here (approval with a chosen code and commission is on the billing page). The code and the
 * rate are billing data; nobody decides their own application (`own`).
 */
export function ResellerSection({ user, billing, own, onChanged }: { user: UserDetail; billing: boolean; own: boolean; onChanged: () => void }) {
  const { t } = useTranslation(USERS_NS);
  const [confirm, confirmDialog] = useConfirm();
  const [error, setError] = useState<string | null>(null);
  const state = user.resellerState;
  const act = async (how: "approve" | "reject" | "revoke") => {
    const ok = await confirm({
      title: t(`resellerState.${how}Title`, { name: user.name }),
      confirmLabel: t(`resellerState.${how}`),
      tone: how === "approve" ? "primary" : "danger",
    });
    if (!ok) return;
    try {
      await resellerApi[how](user.id);
      setError(null);
      onChanged();
    } catch (err) {
      setError(err instanceof Error ? err.message : t("error"));
    }
  };
  return (
    <section className="user-section" aria-labelledby="reseller-heading">
      <h2 id="reseller-heading">{t("resellerState.title")}</h2>
      <p>
        {!state
          ? t("resellerState.none")
          : billing || state.status === "applied" || state.status === "rejected"
            ? t(`resellerState.statuses.${state.status}`, { code: state.referralCode ?? "—", percent: state.commissionPercent })
            : t(`resellerState.plain.${state.status}`)}
      </p>
      {billing && own && state?.status === "applied" && <p className="muted">{t("resellerState.own")}</p>}
      {billing && !own && state && (
        <div className="actions">
          {state.status === "applied" && (
            <>
              <button type="button" className="button" onClick={() => void act("approve")}>
                {t("resellerState.approve")}
              </button>
              <button type="button" className="button button-secondary" onClick={() => void act("reject")}>
                {t("resellerState.reject")}
              </button>
            </>
          )}
          {state.status === "approved" && (
            <button type="button" className="button button-secondary" onClick={() => void act("revoke")}>
              {t("resellerState.revoke")}
            </button>
          )}
          <Link to="/admin/billing#resellers-heading">{t("resellerState.billing")}</Link>
        </div>
      )}
      {error && (
        <p className="alert" role="alert">
          {error}
        </p>
      )}
      {confirmDialog}
    </section>
  );
}

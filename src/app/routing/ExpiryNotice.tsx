import { useTranslation } from "react-i18next";
import { Link, useLocation } from "react-router";
import { useSession } from "../lib/session";

/** docs/product.md, accounts and signing in: the flag raised once when the service expires today, shown until dismissed. */
export function ExpiryNotice() {
  const { t } = useTranslation("auth");
  const { expiresToday, dismissExpiryNotice } = useSession();
  const { pathname } = useLocation();
  if (!expiresToday) return null;
  return (
    <div className="notice expiry-notice" role="status">
      <span>{t("expiry.today")}</span>
      {pathname !== "/payment" && (
        <Link to="/payment" onClick={dismissExpiryNotice}>
          {t("expiry.renew")}
        </Link>
      )}
      <button type="button" className="link-button" onClick={dismissExpiryNotice}>
        {t("expiry.dismiss")}
      </button>
    </div>
  );
}

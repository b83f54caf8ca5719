import { useId, useState } from "react";
import { useTranslation } from "react-i18next";
import type { UserDetail } from "../../../../shared/admin-users";
import { USERS_NS } from "../../../i18n/admin-users";
import { formatDateTime } from "../format";
import { userApi } from "./api";

/** Per channel, whether this person may be messaged: a STOP reply shows here, and an admin can set or clear it. */
export function OptOutsSection({ user, onSaved }: { user: UserDetail; onSaved: (user: UserDetail) => void }) {
  const { t, i18n } = useTranslation(USERS_NS);
  const ids = { sms: useId(), whatsapp: useId() };
  const [wanted, setWanted] = useState({ sms: user.optOuts.sms.optedOut, whatsapp: user.optOuts.whatsapp.optedOut });
  const [state, setState] = useState<{ busy: boolean; message: string | null; failed: boolean }>({ busy: false, message: null, failed: false });
  const changed = wanted.sms !== user.optOuts.sms.optedOut || wanted.whatsapp !== user.optOuts.whatsapp.optedOut;
  return (
    <section className="user-section" aria-labelledby="optouts-heading">
      <h2 id="optouts-heading">{t("optOuts.title")}</h2>
      <form
        onSubmit={async (e) => {
          e.preventDefault();
          setState({ busy: true, message: null, failed: false });
          try {
            const { user: saved } = await userApi.setOptOuts(user.id, wanted);
            onSaved(saved);
            setState({ busy: false, message: t("optOuts.saved"), failed: false });
          } catch (err) {
            setState({ busy: false, message: err instanceof Error ? err.message : t("error"), failed: true });
          }
        }}
      >
        {(["sms", "whatsapp"] as const).map((channel) => {
          const current = user.optOuts[channel];
          return (
            <div key={channel} className="checkbox-field">
              <input id={ids[channel]} type="checkbox" checked={wanted[channel]} onChange={(e) => setWanted((w) => ({ ...w, [channel]: e.target.checked }))} />
              <label htmlFor={ids[channel]}>
                {t(`optOuts.${channel}`)}
                {current.optedOut && current.keyword && (
                  <span className="muted"> · {t("optOuts.since", { keyword: current.keyword, at: formatDateTime(current.at, i18n.language) })}</span>
                )}
              </label>
            </div>
          );
        })}
        <div className="actions">
          <button type="submit" className="button button-secondary" disabled={!changed || state.busy}>
            {t("save")}
          </button>
          <span role="status" aria-live="polite" className={state.failed ? "field-error" : "muted"}>
            {state.message}
          </span>
        </div>
      </form>
    </section>
  );
}

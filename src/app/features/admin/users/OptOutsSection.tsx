import { useId, useState } from "react";
import { useTranslation } from "react-i18next";
import { z } from "zod";
import type { UserDetail } from "../../../../shared/admin-users";
import { USERS_NS } from "../../../i18n/admin-users";
import { useSchemaForm } from "../../../lib/forms";
import { formatDateTime } from "../format";
import { userApi } from "./api";

const optOutsForm = z.object({ sms: z.boolean(), whatsapp: z.boolean() });

/** Per channel, whether this person may be messaged: a STOP reply shows here, and an admin can set or clear it. */
export function OptOutsSection({ user, onSaved }: { user: UserDetail; onSaved: (user: UserDetail) => void }) {
  const { t } = useTranslation(USERS_NS);
  const ids = { sms: useId(), whatsapp: useId() };
  // UserPage keys this section by the saved state, so the form starts again from each save.
  const form = useSchemaForm(optOutsForm, { sms: user.optOuts.sms.optedOut, whatsapp: user.optOuts.whatsapp.optedOut });
  const [state, setState] = useState<{ message: string | null; failed: boolean }>({ message: null, failed: false });
  return (
    <section className="user-section" aria-labelledby="optouts-heading">
      <h2 id="optouts-heading">{t("optOuts.title")}</h2>
      <form
        noValidate
        onSubmit={form.onSubmit(async (wanted) => {
          setState({ message: null, failed: false });
          try {
            const { user: saved } = await userApi.setOptOuts(user.id, wanted);
            onSaved(saved);
            setState({ message: t("optOuts.saved"), failed: false });
          } catch (err) {
            setState({ message: err instanceof Error ? err.message : t("error"), failed: true });
          }
        })}
      >
        {(["sms", "whatsapp"] as const).map((channel) => {
          const current = user.optOuts[channel];
          return (
            <div key={channel} className="checkbox-field">
              <input id={ids[channel]} type="checkbox" {...form.register(channel)} />
              <label htmlFor={ids[channel]}>
                {t(`optOuts.${channel}`)}
                {current.optedOut && current.keyword && (
                  <span className="muted"> · {t("optOuts.since", { keyword: current.keyword, at: formatDateTime(current.at) })}</span>
                )}
              </label>
            </div>
          );
        })}
        <div className="actions">
          <button type="submit" className="button button-secondary" disabled={!form.formState.isDirty || form.submitting}>
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

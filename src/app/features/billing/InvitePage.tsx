import { useTranslation } from "react-i18next";
import { useParams } from "react-router";
import { useSWRConfig } from "swr";
import { phoneSchema } from "../../../shared/auth";
import { formatPhoneAsTyped } from "../../../shared/phone";
import { z } from "../../../shared/zod";
import { PhoneField } from "../../components/ui/PhoneField";
import { toast } from "../../components/ui/Toast";
import { ApiClientError } from "../../lib/api-client";
import { apiErrorKey, required, useSchemaForm } from "../../lib/forms";
import { billingApi, INVITATIONS_KEY, useInvitations } from "./api";
import { CopyField } from "./CopyField";
import { InvitationsCard } from "./InvitationsCard";
import "../../i18n/auth";
import "../../i18n/billing";
import "./billing.css";

/** The invitation form: the Worker's phone rule, and a phone is needed. */
const inviteForm = z.object({ phoneNumber: required(phoneSchema) });

/** The server's reasons for refusing an invitation, as translation keys. */
function refusalKey(err: unknown): string {
  if (err instanceof ApiClientError) {
    const reason = (err.details as { reason?: string } | undefined)?.reason;
    if (reason === "daily_limit") return "billing:invite.errors.dailyLimit";
    // Only refusals about the driver's own data: whether the number belongs to a driver or opted out is never said.
    if (reason === "self" || reason === "already_invited") return `billing:invite.errors.${reason}`;
  }
  return apiErrorKey(err, "billing:invite.errors.couldntSend");
}

/**
 * /flex/invite and /flex/invite/:phoneNumber (prefilled): invite a friend by SMS, share the
 * invite link, and follow each invitation to the free week.
 */
export default function InvitePage() {
  const { t } = useTranslation("billing");
  const { phoneNumber } = useParams();
  const { mutate } = useSWRConfig();
  const invitations = useInvitations(1, 20);
  const form = useSchemaForm(inviteForm, { phoneNumber: formatPhoneAsTyped(phoneNumber ?? "") });
  const remaining = invitations.data?.summary.remainingToday;

  const submit = form.onSubmit(async ({ phoneNumber: phone }) => {
    try {
      await billingApi.invite(phone);
      // One answer for every number: the server texts only those that are not drivers already and did not opt out.
      toast.success(t("invite.sent", { phone: formatPhoneAsTyped(phone) }));
      form.reset({ phoneNumber: "" });
      // Every page of the list (and the summary) is stale now.
      await mutate((key) => Array.isArray(key) && key[0] === INVITATIONS_KEY);
    } catch (err) {
      const key = refusalKey(err);
      if (key.startsWith("billing:invite.errors.") && key !== "billing:invite.errors.couldntSend") form.setFieldError("phoneNumber", key);
      else form.setFormError(key);
    }
  });

  return (
    <section className="billing-page">
      <h1>{t("common:titles.flexInvite")}</h1>
      <p className="lead">{t("invite.intro")}</p>
      <form className="card invite-form" onSubmit={submit} noValidate>
        <PhoneField
          {...form.field("phoneNumber")}
          label={t("invite.phone")}
          hint={remaining !== undefined ? t("invite.remaining", { count: remaining }) : undefined}
        />
        {form.formError && (
          <p className="alert" role="alert">
            {form.formError}
          </p>
        )}
        <div className="actions">
          <button type="submit" className="button" disabled={form.submitting || remaining === 0}>
            {form.submitting ? t("invite.sending") : t("invite.send")}
          </button>
        </div>
      </form>
      {invitations.data && <CopyField label={t("invite.link")} value={invitations.data.inviteLink} />}
      <InvitationsCard />
    </section>
  );
}

import { useMemo, useState } from "react";
import { useTranslation } from "react-i18next";
import { DELETE_CONFIRMATION_WORDS } from "../../../../shared/account";
import type { UserDetail } from "../../../../shared/admin-users";
import { z } from "../../../../shared/zod";
import { TextField } from "../../../components/ui/FormField";
import { USERS_NS } from "../../../i18n/admin-users";
import { refusalMessage, required, useSchemaForm } from "../../../lib/forms";
import { useSession } from "../../../lib/session";
import { FormDialog } from "../FormDialog";
import { userApi } from "./api";

/** The server's rules (shared/account.ts adminEraseSchema): a reference of 3 to 500 characters, and the word in the admin's language. */
const eraseForm = (word: string) =>
  z.object({
    reference: required(z.string().trim().min(3, "admin-users:erase.referenceRequired").max(500, "tooLong")),
    confirmation: required(z.string()).refine((value) => value.trim().toUpperCase() === word, "admin-users:erase.typeWord"),
  });

/**
 * Erasing an account for a written request: billing administrators for drivers, the owner for
 * administrators too (the server decides the same way). An erased account says so instead.
 */
export function EraseSection({ user, onErased }: { user: UserDetail; onErased: () => void }) {
  const { t, i18n } = useTranslation(USERS_NS);
  const word = DELETE_CONFIRMATION_WORDS[i18n.language === "es" ? "es" : "en"];
  const schema = useMemo(() => eraseForm(word), [word]);
  const me = useSession().user;
  const isOwner = me?.role?.name === "owner";
  const allowed = user.isAdmin ? isOwner && me?.id !== user.id && user.roleName !== "owner" : isOwner || Boolean(me?.role?.properties.billingDetails);
  const [open, setOpen] = useState(false);
  const form = useSchemaForm(schema, { reference: "", confirmation: "" });
  const erased = user.phone.startsWith("erased:");
  if (!erased && !allowed) return null;

  const close = () => {
    form.reset();
    setOpen(false);
  };
  const submit = form.onSubmit(async (values) => {
    try {
      await userApi.erase(user.id, values);
      close();
      onErased();
    } catch (err) {
      form.setFormError(...refusalMessage(err, "admin-users:error"));
    }
  });

  return (
    <section className="user-section" aria-labelledby="erase-heading">
      <h2 id="erase-heading">{t("erase.title")}</h2>
      {erased ? (
        <p>{t("erase.erased")}</p>
      ) : (
        <>
          <p>{t("erase.lead")}</p>
          <div className="actions">
            <button type="button" className="button button-danger" onClick={() => setOpen(true)}>
              {t("erase.action")}
            </button>
          </div>
        </>
      )}
      {open && (
        <FormDialog title={t("erase.title")} onClose={close} onSubmit={submit} form={form} submitLabel={t("erase.confirm")} danger>
          <p>{t("erase.warning", { name: user.name })}</p>
          <TextField {...form.field("reference")} label={t("erase.reference")} hint={t("erase.referenceHint")} autoComplete="off" />
          <TextField {...form.field("confirmation")} label={t("erase.confirmLabel", { word })} autoComplete="off" />
        </FormDialog>
      )}
    </section>
  );
}

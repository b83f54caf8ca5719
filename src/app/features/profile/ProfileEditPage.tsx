import { useTranslation } from "react-i18next";
import { useNavigate } from "react-router";
import { SelectField, TextField } from "../../components/ui/FormField";
import { Splash } from "../../components/ui/Splash";
import { toast } from "../../components/ui/Toast";
import { setLanguage } from "../../i18n";
import { apiErrorKey, useSchemaForm } from "../../lib/forms";
import { type User, useSession } from "../../lib/session";
import { profileApi } from "./api";
import { FormActions } from "./FormActions";
import { profileSchema } from "./schemas";
import "./profile.css";
import "../../i18n/auth";

/** /profile/edit: name, email and language (PATCH /api/auth/me). */
export default function ProfileEditPage() {
  const { user } = useSession();
  if (!user) return <Splash inline />;
  return <EditForm user={user} />;
}

function EditForm({ user }: { user: User }) {
  const { t, i18n } = useTranslation("auth");
  const navigate = useNavigate();
  const { setUser } = useSession();
  const form = useSchemaForm(profileSchema, { name: user.name, email: user.email ?? "", language: user.language });

  const submit = form.onSubmit(async (data) => {
    try {
      // An emptied email is sent as "" so the server removes it (absent would mean "unchanged").
      const { Item } = await profileApi.update({ ...data, email: data.email ?? "" });
      setUser(Item);
      // The account's language is also the interface's from now on.
      if (data.language !== i18n.language) await setLanguage(data.language);
      toast.success(t("profile.saved"));
      void navigate("/profile");
    } catch (err) {
      form.setFormError(apiErrorKey(err, "auth:errors.couldntSaveProfile"));
    }
  });

  return (
    <section className="profile">
      <h1>{t("common:titles.profileEdit")}</h1>
      <form className="profile-form" onSubmit={submit} noValidate>
        <TextField {...form.field("name")} label={t("fields.name")} autoComplete="name" />
        <TextField {...form.field("email")} label={`${t("fields.email")} ${t("fields.optional")}`} type="email" autoComplete="email" inputMode="email" />
        <SelectField {...form.field("language")} label={t("fields.language")}>
          <option value="en">{t("languages.en")}</option>
          <option value="es">{t("languages.es")}</option>
        </SelectField>
        <FormActions error={form.formError} submitting={form.submitting} submitLabel={t("profile.save")} />
      </form>
    </section>
  );
}

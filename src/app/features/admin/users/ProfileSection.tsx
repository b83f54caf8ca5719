import { useEffect, useId, useState } from "react";
import { useTranslation } from "react-i18next";
import { z } from "zod";
import type { UserDetail } from "../../../../shared/admin-users";
import { USERS_NS } from "../../../i18n/admin-users";
import { fieldErrorText, useSchemaForm } from "../../../lib/forms";
import { userApi } from "./api";

// Messages are translation keys, so the form re-words them when the language changes.
const profileForm = z.object({
  name: z.string().trim().min(1, "admin-users:validation.required").max(100, "admin-users:validation.tooLong"),
  email: z
    .string()
    .trim()
    .max(254, "admin-users:validation.tooLong")
    .refine((v) => v === "" || /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(v), "admin-users:validation.email"),
  language: z.enum(["en", "es"]),
  region: z.string().trim().max(100, "admin-users:validation.tooLong"),
});
type ProfileForm = z.infer<typeof profileForm>;

/** The profile an admin may correct: name, email, language and region (or delivery area). */
export function ProfileSection({ user, onSaved }: { user: UserDetail; onSaved: (user: UserDetail) => void }) {
  const { t } = useTranslation(USERS_NS);
  const ids = { name: useId(), email: useId(), language: useId(), region: useId() };
  const [result, setResult] = useState<"saved" | "failed" | null>(null);
  const saved: ProfileForm = { name: user.name, email: user.email ?? "", language: user.language, region: user.region ?? "" };
  const form = useSchemaForm(profileForm, saved);
  const { register, formState, reset } = form;
  // The account as now saved (after this save, or another admin's) is what the fields start from again.
  const savedKey = JSON.stringify(saved);
  useEffect(() => reset(JSON.parse(savedKey) as ProfileForm), [savedKey, reset]);
  const error = (field: keyof ProfileForm) => {
    const message = fieldErrorText(t, formState.errors[field]);
    return message ? (
      <p id={`${ids[field]}-error`} className="field-error">
        {message}
      </p>
    ) : null;
  };
  const described = (field: keyof ProfileForm) => (formState.errors[field] ? { "aria-invalid": true, "aria-describedby": `${ids[field]}-error` } : {});

  const submit = form.onSubmit(async (values) => {
    setResult(null);
    try {
      const { user: next } = await userApi.update(user.id, values);
      reset(values);
      onSaved(next);
      setResult("saved");
    } catch (err) {
      console.error("Saving the profile failed", err);
      setResult("failed");
    }
  });

  return (
    <section className="user-section" aria-labelledby="profile-heading">
      <h2 id="profile-heading">{t("profile.title")}</h2>
      <form onSubmit={submit} noValidate className="profile-form">
        <div className="filters-grid">
          <div className="field">
            <label htmlFor={ids.name}>{t("profile.name")}</label>
            <input id={ids.name} {...register("name")} {...described("name")} />
            {error("name")}
          </div>
          <div className="field">
            <label htmlFor={ids.email}>{t("profile.email")}</label>
            <input id={ids.email} type="email" {...register("email")} {...described("email")} />
            {error("email")}
          </div>
          <div className="field">
            <label htmlFor={ids.language}>{t("profile.language")}</label>
            <select id={ids.language} {...register("language")}>
              <option value="en">English</option>
              <option value="es">Español</option>
            </select>
          </div>
          <div className="field">
            <label htmlFor={ids.region}>{t(user.app === "flex" ? "columns.region" : "columns.deliveryArea")}</label>
            <input id={ids.region} {...register("region")} {...described("region")} />
            {error("region")}
          </div>
        </div>
        <div className="actions">
          <button type="submit" className="button" disabled={form.submitting || !formState.isDirty}>
            {form.submitting ? t("saving") : t("save")}
          </button>
          <span role="status" aria-live="polite" className={result === "failed" ? "field-error" : "muted"}>
            {result === "saved" ? t("profile.saved") : result === "failed" ? t("error") : ""}
          </span>
        </div>
      </form>
    </section>
  );
}

import { useTranslation } from "react-i18next";
import { PasswordField, type TextFieldProps } from "./FormField";
import "../../i18n/forms";

type FieldProps = Omit<TextFieldProps, "label" | "type">;

/**
 * A new password and its confirmation, with the rules under the first: registration, the
 * password reset, the NEW_PASSWORD_REQUIRED challenge and the profile's password change.
 */
export function NewPasswordFields({ password, confirm, label, autoFocus }: { password: FieldProps; confirm: FieldProps; label?: string; autoFocus?: boolean }) {
  const { t } = useTranslation("forms");
  const toggle = { showLabel: t("password.show"), hideLabel: t("password.hide") };
  return (
    <>
      <PasswordField
        {...password}
        {...toggle}
        label={label ?? t("password.new")}
        autoComplete="new-password"
        hint={t("password.rules")}
        autoFocus={autoFocus}
      />
      <PasswordField {...confirm} {...toggle} label={t("password.confirm")} autoComplete="new-password" />
    </>
  );
}

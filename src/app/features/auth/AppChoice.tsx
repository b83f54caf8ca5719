import { useTranslation } from "react-i18next";
import { ChoiceField } from "../../components/ui/FormField";
import type { App } from "./api";

/** Flex or Spark (docs/product.md, constants: Flex by default): accounts are per app, so every identity form asks. */
export function AppChoice({ value, onChange, disabled }: { value: App; onChange: (app: App) => void; disabled?: boolean }) {
  const { t } = useTranslation("auth");
  return (
    <ChoiceField<App>
      legend={t("fields.app")}
      name="app"
      value={value}
      onChange={onChange}
      disabled={disabled}
      choices={[
        { value: "flex", label: t("apps.flex") },
        { value: "spark", label: t("apps.spark") },
      ]}
    />
  );
}

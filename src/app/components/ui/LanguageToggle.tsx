import { useTranslation } from "react-i18next";
import { setLanguage } from "../../i18n";
import { Icon } from "./Icon";

/** English ⇄ Español: shows the language it switches to, in that language. */
export function LanguageToggle() {
  const { t, i18n } = useTranslation();
  const next = i18n.language === "es" ? "en" : "es";
  return (
    <button
      type="button"
      className="button button-ghost button-small language-toggle"
      lang={next}
      aria-label={`${t("language.label")}: ${t("language.switchTo")}`}
      onClick={() => void setLanguage(next).catch((err: unknown) => console.error("could not switch language", err))}
    >
      <Icon name="languages" />
      {t("language.switchTo")}
    </button>
  );
}

import { useTranslation } from "react-i18next";
import { setLanguage } from "../../i18n";

export function LanguageToggle() {
  const { t, i18n } = useTranslation();
  const next = i18n.language === "es" ? "en" : "es";
  return (
    <button
      type="button"
      className="link-button"
      lang={next}
      aria-label={`${t("language.label")}: ${t("language.switchTo")}`}
      onClick={() => void setLanguage(next).catch((err: unknown) => console.error("could not switch language", err))}
    >
      {t("language.switchTo")}
    </button>
  );
}

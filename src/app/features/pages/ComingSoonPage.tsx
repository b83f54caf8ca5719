import { useTranslation } from "react-i18next";
import { useMatches } from "react-router";

export type PageHandle = { title: string };

/** A route whose screen a later change fills: its title and a short line, never a blank page. */
export default function ComingSoonPage() {
  const { t } = useTranslation();
  const matches = useMatches();
  const handle = matches.at(-1)?.handle as PageHandle | undefined;
  return (
    <section>
      <h1>{handle ? t(handle.title) : t("appName")}</h1>
      <p className="muted">{t("comingSoon")}</p>
    </section>
  );
}

import { useTranslation } from "react-i18next";
import { Link } from "react-router";

export default function HomePage() {
  const { t } = useTranslation();
  return (
    <main id="main" tabIndex={-1} className="page home">
      <section className="hero">
        <h1>{t("titles.home")}</h1>
        <p className="lead">{t("home.lead")}</p>
        <ul className="points">
          <li>{t("home.points.filters")}</li>
          <li>{t("home.points.dashboard")}</li>
          <li>{t("home.points.invite")}</li>
        </ul>
        <div className="actions">
          <Link className="button" to="/register">
            {t("home.register")}
          </Link>
          <Link className="button button-secondary" to="/login">
            {t("home.signIn")}
          </Link>
        </div>
        <p className="muted">{t("home.support")}</p>
      </section>
    </main>
  );
}

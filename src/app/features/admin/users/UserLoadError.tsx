import { useTranslation } from "react-i18next";
import { PageHead } from "../../../components/ui/PageHead";
import { USERS_NS } from "../../../i18n/admin-users";
import { ApiClientError } from "../../../lib/api-client";
import type { useUser } from "./api";

/** A user that could not be read: "not found" for an id that names no one, else the error with a retry. */
export function UserLoadError({ user, back }: { user: ReturnType<typeof useUser>; back: { to: string; label: string } }) {
  const { t } = useTranslation(USERS_NS);
  const missing = user.error instanceof ApiClientError && (user.error.status === 404 || user.error.status === 400);
  return (
    <section>
      <PageHead back={back} title={missing ? t("notFound") : t("title")} />
      <div className="alert" role="alert">
        <p>{missing ? t("notFoundHelp") : t("error")}</p>
        {!missing && (
          <button type="button" className="button button-secondary" onClick={() => void user.mutate()}>
            {t("retry")}
          </button>
        )}
      </div>
    </section>
  );
}

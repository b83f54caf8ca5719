import { useId, useState } from "react";
import { useTranslation } from "react-i18next";
import { z } from "zod";
import type { SessionRow, UserDetail } from "../../../../shared/admin-users";
import { type Column, DataTable } from "../../../components/ui/DataTable";
import { Pager, usePaging } from "../../../components/ui/Pager";
import { USERS_NS } from "../../../i18n/admin-users";
import { fieldErrorText, useSchemaForm } from "../../../lib/forms";
import { useSession } from "../../../lib/session";
import { formatDateTime } from "../format";
import { userApi, useUserSessions } from "./api";
import { usePagerLabels } from "./labels";
import { ReasonDialog } from "./ReasonDialog";

/**
 * Sessions (sign out everywhere), the authenticator (reset: owner) and the role (owner). On an
 * administrator's account only the owner may act (`mayChange`).
 */
export function AccessSection({ user, mayChange, onChanged }: { user: UserDetail; mayChange: boolean; onChanged: (user?: UserDetail) => void }) {
  const { t } = useTranslation(USERS_NS);
  const me = useSession().user;
  const isOwner = me?.role?.name === "owner";
  const paging = usePaging();
  const sessions = useUserSessions(String(user.id), { page: paging.page, pageSize: paging.pageSize });
  const [dialog, setDialog] = useState<"signOut" | "totp" | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const pagerLabels = usePagerLabels();

  const columns: Column<SessionRow>[] = [
    { key: "id", header: t("sessions.id"), cell: (s) => <code>…{s.id}</code> },
    { key: "started", header: t("sessions.started"), cell: (s) => formatDateTime(s.startedAt) },
    { key: "last", header: t("sessions.lastUsed"), cell: (s) => formatDateTime(s.lastUsedAt) },
    { key: "expires", header: t("sessions.expires"), cell: (s) => formatDateTime(s.expiresAt) },
    { key: "totp", header: t("sessions.totp"), cell: (s) => (s.totp ? t("yes") : t("no")) },
  ];

  return (
    <section className="user-section" aria-labelledby="access-heading">
      <h2 id="access-heading">{t("access.title")}</h2>
      {notice && (
        <p className="notice" role="status">
          {notice}
        </p>
      )}
      <h3>{t("sessions.title")}</h3>
      {sessions.error && !sessions.data ? (
        <p className="alert" role="alert">
          {t("error")}
        </p>
      ) : (
        <>
          <DataTable
            caption={t("sessions.title")}
            columns={columns}
            rows={sessions.data?.rows ?? []}
            rowKey={(s) => s.id}
            busy={sessions.isLoading}
            empty={t("sessions.none")}
          />
          {(sessions.data?.total ?? 0) > paging.pageSize && <Pager {...paging.pager} total={sessions.data!.total} labels={pagerLabels} />}
        </>
      )}
      {mayChange && (
        <div className="actions">
          <button type="button" className="button button-secondary" onClick={() => setDialog("signOut")}>
            {t("sessions.signOutEverywhere")}
          </button>
        </div>
      )}

      <h3>{t("totp.title")}</h3>
      <p>{user.mfaMethod === "totp" ? t("totp.enrolled") : user.mfaMethod === "sms" ? t("totp.sms") : t("totp.none")}</p>
      {isOwner && user.mfaMethod === "totp" && (
        <button type="button" className="button button-danger" onClick={() => setDialog("totp")}>
          {t("totp.reset")}
        </button>
      )}

      {isOwner && <RoleForm user={user} self={me?.id === user.id} onSaved={onChanged} />}

      <ReasonDialog
        open={dialog === "signOut"}
        title={t("sessions.signOutEverywhere")}
        description={t("sessions.confirm", { name: user.name })}
        confirmLabel={t("sessions.signOutEverywhere")}
        danger
        onCancel={() => setDialog(null)}
        onConfirm={async (reason) => {
          const { sessions: ended } = await userApi.signOut(user.id, reason);
          setDialog(null);
          setNotice(t("sessions.ended", { count: ended }));
          void sessions.mutate();
          onChanged();
        }}
      />
      <ReasonDialog
        open={dialog === "totp"}
        title={t("totp.reset")}
        description={t("totp.confirm", { name: user.name })}
        confirmLabel={t("totp.reset")}
        danger
        onCancel={() => setDialog(null)}
        onConfirm={async (reason) => {
          const { user: saved } = await userApi.resetTotp(user.id, reason);
          setDialog(null);
          setNotice(t("totp.done"));
          void sessions.mutate();
          onChanged(saved);
        }}
      />
    </section>
  );
}

/** The role as the server takes it (shared/admin-users.ts, userRoleSchema): a name for an administrator, nothing else for a driver. */
const roleForm = z
  .object({ isAdmin: z.boolean(), roleName: z.string().trim().max(40, "tooLong"), billingDetails: z.boolean() })
  .refine((r) => !r.isAdmin || r.roleName !== "", { path: ["roleName"], message: "required" });

function RoleForm({ user, self, onSaved }: { user: UserDetail; self: boolean; onSaved: (user: UserDetail) => void }) {
  const { t } = useTranslation(USERS_NS);
  const ids = { admin: useId(), name: useId(), billing: useId() };
  const form = useSchemaForm(roleForm, { isAdmin: user.isAdmin, roleName: user.roleName ?? "support", billingDetails: user.roleBillingDetails });
  const [state, setState] = useState<{ message: string | null; failed: boolean }>({ message: null, failed: false });
  const [isAdmin, roleName, billing] = form.watch(["isAdmin", "roleName", "billingDetails"]);
  const changed = isAdmin !== user.isAdmin || (isAdmin && (roleName !== (user.roleName ?? "") || billing !== user.roleBillingDetails));
  const nameError = fieldErrorText(t, form.formState.errors.roleName);

  return (
    <form
      className="role-form"
      noValidate
      onSubmit={form.onSubmit(async (role) => {
        setState({ message: null, failed: false });
        try {
          const { user: saved } = await userApi.setRole(
            user.id,
            role.isAdmin ? { isAdmin: true, roleName: role.roleName, billingDetails: role.billingDetails } : { isAdmin: false },
          );
          onSaved(saved);
          setState({ message: t("role.saved"), failed: false });
        } catch (err) {
          setState({ message: err instanceof Error ? err.message : t("error"), failed: true });
        }
      })}
    >
      <h3>{t("role.title")}</h3>
      {self ? (
        <p className="muted">{t("role.self")}</p>
      ) : (
        <>
          <div className="checkbox-field">
            <input id={ids.admin} type="checkbox" {...form.register("isAdmin")} />
            <label htmlFor={ids.admin}>{t("role.isAdmin")}</label>
          </div>
          {isAdmin && (
            <>
              <div className="field">
                <label htmlFor={ids.name}>{t("role.name")}</label>
                <input
                  id={ids.name}
                  maxLength={40}
                  aria-invalid={nameError ? true : undefined}
                  aria-describedby={nameError ? `${ids.name}-error` : undefined}
                  {...form.register("roleName")}
                />
                {nameError && (
                  <p id={`${ids.name}-error`} className="field-error">
                    {nameError}
                  </p>
                )}
              </div>
              <div className="checkbox-field">
                <input id={ids.billing} type="checkbox" {...form.register("billingDetails")} />
                <label htmlFor={ids.billing}>{t("role.billingDetails")}</label>
              </div>
            </>
          )}
          {isAdmin && !user.isAdmin && <p className="muted">{t("role.promoteNote")}</p>}
          <div className="actions">
            <button type="submit" className="button" disabled={!changed || form.submitting || (isAdmin && roleName.trim() === "")}>
              {t("role.save")}
            </button>
            <span role="status" aria-live="polite" className={state.failed ? "field-error" : "muted"}>
              {state.message}
            </span>
          </div>
        </>
      )}
    </form>
  );
}

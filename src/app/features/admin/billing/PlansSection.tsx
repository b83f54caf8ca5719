import { useState } from "react";
import { useTranslation } from "react-i18next";
import { StatusView } from "../../../components/ui/StatusView";
import { BILLING_NS } from "../../../i18n/admin-billing";
import { formatMoney } from "../format";
import { createPlan, updatePlan, usePlans } from "./api";

type Plan = NonNullable<ReturnType<typeof usePlans>["data"]>["Items"][number];
type Draft = { name: string; days: string; price: string; active: boolean; sortOrder: string };

const toDraft = (p: Plan): Draft => ({
  name: p.name,
  days: String(p.days),
  price: (p.priceCents / 100).toFixed(2),
  active: p.active,
  sortOrder: String(p.sortOrder),
});
const fromDraft = (d: Draft) => ({
  name: d.name.trim(),
  days: Number(d.days),
  priceCents: Math.round(Number(d.price) * 100),
  active: d.active,
  sortOrder: Number(d.sortOrder),
});

/** The plans drivers can buy; the owner edits them (payments keep their own price and days). */
export function PlansSection({ canEdit }: { canEdit: boolean }) {
  const { t, i18n } = useTranslation(BILLING_NS);
  const plans = usePlans();
  const [drafts, setDrafts] = useState<Record<number, Draft>>({});
  const [adding, setAdding] = useState<(Draft & { app: "flex" | "spark" }) | null>(null);
  const [message, setMessage] = useState<{ text: string; failed: boolean } | null>(null);

  const save = async (run: () => Promise<unknown>) => {
    setMessage(null);
    try {
      await run();
      setMessage({ text: t("plans.saved"), failed: false });
      await plans.mutate();
    } catch (err) {
      setMessage({ text: err instanceof Error ? err.message : t("error"), failed: true });
    }
  };

  const field = (label: string, value: string, onChange: (v: string) => void, type = "text") => (
    <input aria-label={label} type={type} value={value} disabled={!canEdit} onChange={(e) => onChange(e.target.value)} className="plan-input" />
  );

  return (
    <section className="user-section" aria-labelledby="plans-heading">
      <h2 id="plans-heading">{t("plans.title")}</h2>
      {!canEdit && <p className="muted">{t("plans.ownerOnly")}</p>}
      {plans.error && !plans.data ? (
        <StatusView kind="error" message={t("error")} onRetry={() => void plans.mutate()} />
      ) : !plans.data ? (
        <StatusView kind="loading" compact />
      ) : (
        <div className="table-wrap">
          <table className="data-table">
            <caption className="visually-hidden">{t("plans.title")}</caption>
            <thead>
              <tr>
                <th scope="col">{t("app")}</th>
                <th scope="col">{t("plans.name")}</th>
                <th scope="col">{t("plans.days")}</th>
                <th scope="col">{t("plans.price")}</th>
                <th scope="col">{t("plans.order")}</th>
                <th scope="col">{t("plans.active")}</th>
                {canEdit && (
                  <th scope="col">
                    <span className="visually-hidden">{t("plans.save")}</span>
                  </th>
                )}
              </tr>
            </thead>
            <tbody>
              {plans.data.Items.map((p) => {
                const d = drafts[p.id] ?? toDraft(p);
                const set = (change: Partial<Draft>) => setDrafts((all) => ({ ...all, [p.id]: { ...d, ...change } }));
                const dirty = JSON.stringify(d) !== JSON.stringify(toDraft(p));
                return (
                  <tr key={p.id}>
                    <td>{p.app === "flex" ? "Flex" : "Spark"}</td>
                    <td>{canEdit ? field(t("plans.nameOf", { name: p.name }), d.name, (name) => set({ name })) : p.name}</td>
                    <td>{canEdit ? field(t("plans.daysOf", { name: p.name }), d.days, (days) => set({ days }), "number") : p.days}</td>
                    <td>
                      {canEdit
                        ? field(t("plans.priceOf", { name: p.name }), d.price, (price) => set({ price }), "number")
                        : formatMoney(p.priceCents, i18n.language)}
                    </td>
                    <td>{canEdit ? field(t("plans.orderOf", { name: p.name }), d.sortOrder, (sortOrder) => set({ sortOrder }), "number") : p.sortOrder}</td>
                    <td>
                      <input
                        type="checkbox"
                        aria-label={t("plans.activeOf", { name: p.name })}
                        checked={d.active}
                        disabled={!canEdit}
                        onChange={(e) => set({ active: e.target.checked })}
                      />
                    </td>
                    {canEdit && (
                      <td>
                        <button
                          type="button"
                          className="button button-secondary"
                          disabled={!dirty}
                          onClick={() =>
                            void save(async () => {
                              await updatePlan(p.id, fromDraft(d));
                              setDrafts(({ [p.id]: _saved, ...rest }) => rest);
                            })
                          }
                        >
                          {t("plans.save")}
                        </button>
                      </td>
                    )}
                  </tr>
                );
              })}
              {canEdit && adding && (
                <tr>
                  <td>
                    <select aria-label={t("app")} value={adding.app} onChange={(e) => setAdding({ ...adding, app: e.target.value as "flex" | "spark" })}>
                      <option value="flex">Flex</option>
                      <option value="spark">Spark</option>
                    </select>
                  </td>
                  <td>{field(t("plans.newName"), adding.name, (name) => setAdding({ ...adding, name }))}</td>
                  <td>{field(t("plans.newDays"), adding.days, (days) => setAdding({ ...adding, days }), "number")}</td>
                  <td>{field(t("plans.newPrice"), adding.price, (price) => setAdding({ ...adding, price }), "number")}</td>
                  <td>{field(t("plans.newOrder"), adding.sortOrder, (sortOrder) => setAdding({ ...adding, sortOrder }), "number")}</td>
                  <td>
                    <input
                      type="checkbox"
                      aria-label={t("plans.newActive")}
                      checked={adding.active}
                      onChange={(e) => setAdding({ ...adding, active: e.target.checked })}
                    />
                  </td>
                  <td>
                    <button
                      type="button"
                      className="button"
                      onClick={() =>
                        void save(async () => {
                          await createPlan({ app: adding.app, ...fromDraft(adding) });
                          setAdding(null);
                        })
                      }
                    >
                      {t("plans.create")}
                    </button>
                  </td>
                </tr>
              )}
            </tbody>
          </table>
        </div>
      )}
      {canEdit && !adding && (
        <button
          type="button"
          className="button button-secondary"
          onClick={() => setAdding({ app: "flex", name: "", days: "7", price: "", active: true, sortOrder: "0" })}
        >
          {t("plans.add")}
        </button>
      )}
      {message && (
        <p role="status" className={message.failed ? "field-error" : "muted"}>
          {message.text}
        </p>
      )}
    </section>
  );
}

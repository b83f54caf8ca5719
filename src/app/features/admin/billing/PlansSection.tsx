import { useId, useState } from "react";
import type { UseFormRegisterReturn } from "react-hook-form";
import { useTranslation } from "react-i18next";
import { appSchema } from "../../../../shared/auth";
import { planFields } from "../../../../shared/billing";
import { z } from "../../../../shared/zod";
import { ReadView } from "../../../components/ui/ReadView";
import { BILLING_NS } from "../../../i18n/admin-billing";
import { refusalMessage, required, useSchemaForm } from "../../../lib/forms";
import { formatMoney } from "../format";
import { createPlan, updatePlan, usePlans } from "./api";

type Plan = NonNullable<ReturnType<typeof usePlans>["data"]>["Items"][number];

/** A number field as typed, checked by the server's rule for it. */
const typedNumber = (schema: z.ZodNumber) => z.string().trim().min(1, "required").transform(Number).pipe(schema);

/** A plan's row as typed (price in dollars) in, the plan's fields as the server takes them out. */
const planFormSchema = z
  .object({
    name: required(planFields.name),
    days: typedNumber(planFields.days),
    price: z
      .string()
      .trim()
      .regex(/^\d+(\.\d{1,2})?$/, "invalid")
      .transform((dollars) => Math.round(Number(dollars) * 100))
      .pipe(planFields.priceCents),
    active: z.boolean(),
    sortOrder: typedNumber(planFields.sortOrder),
  })
  .transform(({ price, ...plan }) => ({ ...plan, priceCents: price }));
type PlanDraft = z.input<typeof planFormSchema>;
const newPlanFormSchema = z.object({ app: appSchema }).and(planFormSchema);

const toDraft = (p: Plan): PlanDraft => ({
  name: p.name,
  days: String(p.days),
  price: (p.priceCents / 100).toFixed(2),
  active: p.active,
  sortOrder: String(p.sortOrder),
});

type Outcome = { key: string; options?: Record<string, unknown>; failed: boolean };

/** The plans drivers can buy; the owner edits them (payments keep their own price and days). */
export function PlansSection({ canEdit }: { canEdit: boolean }) {
  const { t, i18n } = useTranslation(BILLING_NS);
  const plans = usePlans();
  const [adding, setAdding] = useState(false);
  const [outcome, setOutcome] = useState<Outcome | null>(null);

  /** Runs a row's save and says how it went under the table. */
  const save = async (run: () => Promise<unknown>) => {
    setOutcome(null);
    try {
      await run();
      setOutcome({ key: "plans.saved", failed: false });
      await plans.mutate();
      return true;
    } catch (err) {
      const [key, options] = refusalMessage(err, "common:errors.generic");
      setOutcome({ key, options, failed: true });
      return false;
    }
  };

  return (
    <section className="user-section" aria-labelledby="plans-heading">
      <h2 id="plans-heading">{t("plans.title")}</h2>
      {!canEdit && <p className="muted">{t("plans.ownerOnly")}</p>}
      <ReadView read={plans} error={t("error")} compact>
        {(data) => (
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
                {data.Items.map((p) =>
                  canEdit ? (
                    // A saved plan comes back with a new updatedAt: the row starts again from it.
                    <PlanRow key={`${p.id}-${p.updatedAt}`} plan={p} save={save} />
                  ) : (
                    <tr key={p.id}>
                      <td>{p.app === "flex" ? "Flex" : "Spark"}</td>
                      <td>{p.name}</td>
                      <td>{p.days}</td>
                      <td>{formatMoney(p.priceCents, i18n.language)}</td>
                      <td>{p.sortOrder}</td>
                      <td>
                        <input type="checkbox" aria-label={t("plans.activeOf", { name: p.name })} checked={p.active} disabled readOnly />
                      </td>
                    </tr>
                  ),
                )}
                {canEdit && adding && <NewPlanRow save={save} onCreated={() => setAdding(false)} />}
              </tbody>
            </table>
          </div>
        )}
      </ReadView>
      {canEdit && !adding && (
        <button type="button" className="button button-secondary" onClick={() => setAdding(true)}>
          {t("plans.add")}
        </button>
      )}
      {outcome && (
        <p role="status" className={outcome.failed ? "field-error" : "muted"}>
          {t(outcome.key, outcome.options ?? {})}
        </p>
      )}
    </section>
  );
}

type Save = (run: () => Promise<unknown>) => Promise<boolean>;

function PlanRow({ plan, save }: { plan: Plan; save: Save }) {
  const { t } = useTranslation(BILLING_NS);
  const form = useSchemaForm(planFormSchema, toDraft(plan));
  const of = { name: plan.name };
  const submit = form.onSubmit(async (fields) => {
    if (await save(() => updatePlan(plan.id, fields))) form.reset(form.getValues());
  });
  return (
    <tr>
      <td>{plan.app === "flex" ? "Flex" : "Spark"}</td>
      <PlanCells
        field={form.field}
        labels={{ name: t("plans.nameOf", of), days: t("plans.daysOf", of), price: t("plans.priceOf", of), sortOrder: t("plans.orderOf", of) }}
      />
      <td>
        <input type="checkbox" aria-label={t("plans.activeOf", of)} {...form.register("active")} />
      </td>
      <td>
        <button type="button" className="button button-secondary" disabled={!form.formState.isDirty || form.submitting} onClick={submit}>
          {t("plans.save")}
        </button>
      </td>
    </tr>
  );
}

function NewPlanRow({ save, onCreated }: { save: Save; onCreated: () => void }) {
  const { t } = useTranslation(BILLING_NS);
  const form = useSchemaForm(newPlanFormSchema, { app: "flex", name: "", days: "7", price: "", active: true, sortOrder: "0" });
  const submit = form.onSubmit(async (plan) => {
    if (await save(() => createPlan(plan))) onCreated();
  });
  return (
    <tr>
      <td>
        <select aria-label={t("app")} {...form.register("app")}>
          <option value="flex">Flex</option>
          <option value="spark">Spark</option>
        </select>
      </td>
      <PlanCells
        field={form.field}
        labels={{ name: t("plans.newName"), days: t("plans.newDays"), price: t("plans.newPrice"), sortOrder: t("plans.newOrder") }}
      />
      <td>
        <input type="checkbox" aria-label={t("plans.newActive")} {...form.register("active")} />
      </td>
      <td>
        <button type="button" className="button" disabled={form.submitting} onClick={submit}>
          {t("plans.create")}
        </button>
      </td>
    </tr>
  );
}

type CellName = "name" | "days" | "price" | "sortOrder";

/** A plan's typed cells (name, days, price, order), each with its error under it; `field` is the row form's. */
function PlanCells({ field, labels }: { field: (name: CellName) => UseFormRegisterReturn & { error: string | null }; labels: Record<CellName, string> }) {
  const id = useId();
  const cell = (name: CellName, type = "text") => {
    const { error, ...input } = field(name);
    const errorId = `${id}-${name}-error`;
    return (
      <td>
        <input
          aria-label={labels[name]}
          type={type}
          className="plan-input"
          {...input}
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? errorId : undefined}
        />
        {error && (
          <p id={errorId} className="field-error">
            {error}
          </p>
        )}
      </td>
    );
  };
  return (
    <>
      {cell("name")}
      {cell("days", "number")}
      {cell("price", "number")}
      {cell("sortOrder", "number")}
    </>
  );
}

import { useId } from "react";
import { useTranslation } from "react-i18next";
import { type DriverRow, driverAudienceSchema, localTimeZone } from "../../../../shared/audience";
import type { App } from "../../../../shared/auth";
import { formatDDMMYY } from "../../../../shared/dates";
import { formatUsPhone } from "../../../../shared/phone";
import { BoolMark, type Column } from "../../../components/ui/DataTable";
import { MultiSelect } from "../../../components/ui/MultiSelect";
import { type TriState, TriStateSelect } from "../../../components/ui/TriStateSelect";
import { useSettings } from "../api";
import { formatDay } from "../format";
import { useMultiSelectLabels, useTriLabels } from "../labels";
import { emptyMessage, MessageFields, type MessageValue } from "../MessageFields";
import { useAdminUser } from "../use-admin-user";
import { type DriverFilters, driverAudienceList, useReferrals, useRegions } from "./api";
import { AudienceForm, AudiencePanel, filterLines, useAudienceSend } from "./audience-panel";
import { DateField } from "./DateField";
import { ReviewStep } from "./ReviewStep";

export type DriverForm = MessageValue & {
  app: App;
  startDate: string;
  endDate: string;
  startExpirationDate: string;
  endExpirationDate: string;
  referral: string[];
  region: string[];
  goodStanding: TriState;
  accountConnected: TriState;
  setupComplete: TriState;
  limit: boolean;
};

const initialForm: DriverForm = {
  app: "flex",
  startDate: "",
  endDate: "",
  startExpirationDate: "",
  endExpirationDate: "",
  referral: [],
  region: [],
  goodStanding: "all",
  accountConnected: "all",
  setupComplete: "all",
  ...emptyMessage(),
  limit: true,
};

const DATE_FIELDS = ["startDate", "endDate", "startExpirationDate", "endExpirationDate"] as const;

/** The audience the form describes, as the query the server reads (no paging). */
export function driverAudience(form: DriverForm, tzOffsetMinutes = new Date().getTimezoneOffset()): DriverFilters {
  const tri = (v: TriState) => (v === "all" ? undefined : v);
  return {
    app: form.app,
    startDate: form.startDate || undefined,
    endDate: form.endDate || undefined,
    startExpirationDate: form.startExpirationDate || undefined,
    endExpirationDate: form.endExpirationDate || undefined,
    referral: form.referral.length ? form.referral : undefined,
    region: form.app === "flex" && form.region.length ? form.region : undefined,
    goodStanding: tri(form.goodStanding),
    accountConnected: tri(form.accountConnected),
    setupComplete: tri(form.setupComplete),
    tzOffsetMinutes,
    timeZone: localTimeZone(),
  };
}

/** Panel 1, "Send SMS (all users)": filters and message, then the review, then send. */
export function DriversPanel() {
  const { t } = useTranslation("admin");
  const ids = useId();
  const { isOwner } = useAdminUser();
  const triWord = (v: TriState) => (v === "all" ? "" : t(`tri.${v}`));
  const triLabels = useTriLabels();
  const multiLabels = useMultiSelectLabels();
  const { form, update, errors, billingDetails, review, reviewProps, startReview, confirmDialog } = useAudienceSend({
    source: "drivers",
    initialForm,
    audience: driverAudience,
    schema: driverAudienceSchema,
    dateFields: DATE_FIELDS,
    limited: (f) => f.limit,
    extra: (f) => (isOwner && !f.limit ? { liftLimit: true } : {}),
    describe: (f) =>
      filterLines([
        [t("drivers.app"), t(`apps.${f.app}`)],
        [t("drivers.creationStart"), formatDay(f.startDate)],
        [t("drivers.creationEnd"), formatDay(f.endDate)],
        [t("drivers.expirationStart"), formatDay(f.startExpirationDate)],
        [t("drivers.expirationEnd"), formatDay(f.endExpirationDate)],
        [t("drivers.referral"), f.referral.join(", ")],
        [t("drivers.region"), f.app === "flex" ? f.region.join(", ") : ""],
        [t("filters.goodStanding"), triWord(f.goodStanding)],
        [t("filters.proxyInstalled"), triWord(f.accountConnected)],
        [t("filters.setupComplete"), triWord(f.setupComplete)],
      ]),
  });

  const settings = useSettings();
  const regions = useRegions(form.app);
  const referrals = useReferrals(billingDetails);
  const referralCodes = referrals.data?.Items.map((r) => r.referralCode) ?? [];
  const loadFailed = Boolean(settings.error || regions.error);
  const ownerName = settings.data?.ownerName ?? t("drivers.theOwner");

  if (review && reviewProps) {
    const f = review;
    const appName = t(`apps.${f.app}`);
    const columns: Column<DriverRow>[] = [
      {
        key: "name",
        header: t("columns.name"),
        sortKey: "name",
        cell: (r) =>
          r.stripeExpressId ? (
            <mark className="stripe-name" title={t("review.stripeExpress")}>
              {r.name}
            </mark>
          ) : (
            r.name
          ),
      },
      { key: "phone", header: t("columns.phone"), className: "nowrap", sortKey: "phone", cell: (r) => formatUsPhone(r.phone) || r.phone },
      // Referral codes are billing data: the server sends them only to administrators with billingDetails.
      ...(billingDetails ? [{ key: "referral", header: t("columns.referral"), sortKey: "referral", cell: (r: DriverRow) => r.referral ?? "" }] : []),
      f.app === "flex"
        ? { key: "region", header: t("columns.region"), sortKey: "region", cell: (r) => r.region ?? "" }
        : { key: "area", header: t("columns.deliveryArea"), sortKey: "region", cell: (r) => r.deliveryArea ?? "" },
      { key: "standing", header: t("columns.goodStanding"), cell: (r) => <BoolMark value={r.goodStanding} yes={t("tri.yes")} no={t("tri.no")} /> },
      { key: "connected", header: t("columns.accountConnected"), cell: (r) => <BoolMark value={r.accountConnected} yes={t("tri.yes")} no={t("tri.no")} /> },
      { key: "setup", header: t("columns.filtersComplete"), cell: (r) => <BoolMark value={r.setupComplete} yes={t("tri.yes")} no={t("tri.no")} /> },
      {
        key: "expiration",
        header: t("columns.expirationDate"),
        className: "nowrap",
        sortKey: "expirationAt",
        cell: (r) => formatDDMMYY(r.expirationAt) ?? t("review.none"),
      },
      { key: "status", header: t("columns.status"), sortKey: "status", cell: (r) => (r.status === "start" ? t("review.on") : t("review.off")) },
    ];
    return (
      <AudiencePanel title={t("drivers.title")} reviewing>
        <ReviewStep<DriverFilters, DriverRow>
          list={driverAudienceList}
          {...reviewProps}
          columns={columns}
          sortable
          summary={(n) => t("review.summary", { n, app: appName })}
          loadError={t("errors.generic")}
          nothingToReview={t("review.nothingDrivers")}
        />
        {confirmDialog}
      </AudiencePanel>
    );
  }

  return (
    <AudiencePanel title={t("drivers.title")} reviewing={false}>
      {loadFailed && (
        <p className="alert" role="alert">
          {t("errors.generic")}
        </p>
      )}
      <AudienceForm onSubmit={startReview}>
        <fieldset className="radio-row">
          <legend>{t("drivers.app")}</legend>
          {(["flex", "spark"] as const).map((app) => (
            <label key={app} className="check">
              <input type="radio" name={`${ids}-app`} value={app} checked={form.app === app} onChange={() => update({ app, region: [] })} />
              {t(`drivers.appUsers.${app}`)}
            </label>
          ))}
        </fieldset>

        <div className="date-grid">
          <DateField
            id={`${ids}-cs`}
            label={t("drivers.creationStart")}
            value={form.startDate}
            onChange={(startDate) => update({ startDate })}
            error={errors.startDate}
          />
          <DateField
            id={`${ids}-ce`}
            label={t("drivers.creationEnd")}
            value={form.endDate}
            onChange={(endDate) => update({ endDate })}
            error={errors.endDate}
          />
          <DateField
            id={`${ids}-es`}
            label={t("drivers.expirationStart")}
            value={form.startExpirationDate}
            onChange={(startExpirationDate) => update({ startExpirationDate })}
            error={errors.startExpirationDate}
          />
          <DateField
            id={`${ids}-ee`}
            label={t("drivers.expirationEnd")}
            value={form.endExpirationDate}
            onChange={(endExpirationDate) => update({ endExpirationDate })}
            error={errors.endExpirationDate}
          />
        </div>

        {referralCodes.length > 0 && (
          <MultiSelect
            legend={t("drivers.referral")}
            options={referralCodes}
            value={form.referral}
            onChange={(referral) => update({ referral })}
            labels={multiLabels}
          />
        )}
        {form.app === "flex" &&
          (regions.data ? (
            <MultiSelect
              legend={t("drivers.region")}
              options={regions.data.Items}
              value={form.region}
              onChange={(region) => update({ region })}
              labels={multiLabels}
            />
          ) : (
            !regions.error && (
              <p className="loading-inline" role="status">
                <span className="spinner spinner-small" aria-hidden="true" /> {t("drivers.regionsLoading")}
              </p>
            )
          ))}

        <div className="tri-grid">
          <TriStateSelect
            label={t("filters.goodStanding")}
            value={form.goodStanding}
            onChange={(goodStanding) => update({ goodStanding })}
            labels={triLabels}
          />
          <TriStateSelect
            label={t("filters.proxyInstalled")}
            value={form.accountConnected}
            onChange={(accountConnected) => update({ accountConnected })}
            labels={triLabels}
          />
          <TriStateSelect
            label={t("filters.setupComplete")}
            value={form.setupComplete}
            onChange={(setupComplete) => update({ setupComplete })}
            labels={triLabels}
          />
        </div>

        <MessageFields
          value={form}
          onChange={update}
          limit={form.limit}
          billingDetails={billingDetails}
          errors={errors}
          limitControl={{
            checked: form.limit,
            // Only the owner may lift the one-segment limit (the server enforces it too).
            disabled: !isOwner,
            onChange: (limit) => update({ limit }),
            label: t("sms.limit"),
            hint: t("sms.limitHint", { name: ownerName }),
          }}
        />
      </AudienceForm>
    </AudiencePanel>
  );
}

import { useEffect } from "react";
import { useTranslation } from "react-i18next";
import { Link, useLocation } from "react-router";
import { Badge } from "../../components/ui/Badge";
import { type Column, DataTable } from "../../components/ui/DataTable";
import { Icon } from "../../components/ui/Icon";
import type { IconName } from "../../components/ui/icon-names";
import { formatUsd, usePlans } from "./api";
import { type JudgedOffer, SAMPLE_FILTERS, SAMPLE_OFFERS, STATION_NAMES, sampleClock } from "./sample-offers";
import "../../i18n/site";
import "./landing-sections.css";

const RESULT_BADGE = {
  won: { tone: "success", icon: "trophy" },
  disliked: { tone: "warning", icon: "thumbs-down" },
  gone: { tone: "neutral", icon: "hourglass" },
} as const;

/** The landing page below its first screen: for whom, how it works, the product, plans, help, FAQ. */
export default function LandingSections() {
  const { hash } = useLocation();
  // "/#plans" from another page: the section exists only now, so scroll to it here.
  useEffect(() => {
    if (hash) document.getElementById(decodeURIComponent(hash.slice(1)))?.scrollIntoView();
  }, [hash]);
  return (
    <>
      <HowItWorks />
      <Preview />
      <Plans />
      <Help />
      <FaqTeaser />
      <FinalCall />
    </>
  );
}

function HowItWorks() {
  const { t } = useTranslation("site");
  const steps: { key: string; icon: IconName }[] = [
    { key: "step1", icon: "smartphone" },
    { key: "step2", icon: "sliders-horizontal" },
    { key: "step3", icon: "zap" },
  ];
  return (
    <section id="how-it-works" className="landing-section" aria-labelledby="how-title">
      <div className="landing-section-inner">
        <div className="landing-intro">
          <h2>{t("landing.forWhom.title")}</h2>
          <p>{t("landing.forWhom.text")}</p>
        </div>
        <h2 id="how-title">{t("landing.how.title")}</h2>
        <p className="landing-section-lead">{t("landing.how.lead")}</p>
        <ol className="landing-steps">
          {steps.map((step, i) => (
            <li key={step.key} className="card landing-step">
              <span className="landing-step-icon" aria-hidden="true">
                <Icon name={step.icon} />
              </span>
              <h3>
                <span className="landing-step-number">{i + 1}. </span>
                {t(`landing.how.${step.key}.title`)}
              </h3>
              <p>{t(`landing.how.${step.key}.text`)}</p>
            </li>
          ))}
        </ol>
      </div>
    </section>
  );
}

function Preview() {
  const { t, i18n } = useTranslation("site");
  const money = (cents: number) => formatUsd(cents, i18n.language);
  const time = (at: number) => sampleClock(at, i18n.language);
  const columns: Column<JudgedOffer>[] = [
    { key: "block", header: t("landing.preview.columns.block"), className: "nowrap", cell: (o) => `${time(o.startsAt)}–${time(o.endsAt)}` },
    { key: "station", header: t("landing.preview.columns.station"), cell: (o) => `${STATION_NAMES[o.stationId]} (${o.stationId})` },
    { key: "pay", header: t("landing.preview.columns.pay"), cell: (o) => money(o.payCents) },
    { key: "hourly", header: t("landing.preview.columns.hourly"), cell: (o) => money(o.hourlyCents) },
    {
      key: "result",
      header: t("landing.preview.columns.result"),
      cell: (o) => (
        <Badge tone={RESULT_BADGE[o.result].tone} icon={RESULT_BADGE[o.result].icon}>
          {t(`landing.preview.${o.result}`)}
        </Badge>
      ),
    },
    {
      key: "why",
      header: t("landing.preview.columns.why"),
      cell: (o) =>
        o.result === "gone" ? (
          t("landing.preview.goneWhy")
        ) : o.reasons.length > 0 ? (
          <ul className="landing-reasons">
            {o.reasons.map((reason) => (
              <li key={reason}>{t(`landing.preview.reasons.${reason}`)}</li>
            ))}
          </ul>
        ) : (
          "—"
        ),
    },
  ];
  return (
    <section id="preview" className="landing-section landing-section-alt" aria-labelledby="preview-title">
      <div className="landing-section-inner">
        <h2 id="preview-title">{t("landing.preview.title")}</h2>
        <p className="landing-section-lead">{t("landing.preview.lead")}</p>
        <div className="landing-preview">
          <div className="card">
            <h3>{t("landing.preview.filters")}</h3>
            <dl className="landing-filters">
              <dt>{t("landing.preview.stations")}</dt>
              <dd>{t("landing.preview.stationsValue")}</dd>
              <dt>{t("landing.preview.minPay")}</dt>
              <dd>{money(SAMPLE_FILTERS.minPayCents)}</dd>
              <dt>{t("landing.preview.minHourly")}</dt>
              <dd>{money(SAMPLE_FILTERS.minHourlyCents)}</dd>
              <dt>{t("landing.preview.buffer")}</dt>
              <dd>{t("landing.preview.bufferValue", { minutes: SAMPLE_FILTERS.arrivalBufferMinutes })}</dd>
              <dt>{t("landing.preview.schedule")}</dt>
              <dd>{t("landing.preview.scheduleValue")}</dd>
            </dl>
          </div>
          <div className="card landing-offers">
            <h3>{t("landing.preview.offers")}</h3>
            <DataTable caption={t("landing.preview.caption")} columns={columns} rows={SAMPLE_OFFERS} rowKey={(o) => o.id} />
          </div>
        </div>
      </div>
    </section>
  );
}

function Plans() {
  const { t } = useTranslation("site");
  return (
    <section id="plans" className="landing-section" aria-labelledby="plans-title">
      <div className="landing-section-inner">
        <h2 id="plans-title">{t("landing.plans.title")}</h2>
        <p className="landing-section-lead">{t("landing.plans.lead")}</p>
        <PlanList />
        <div className="landing-free-week">
          <span className="landing-step-icon" aria-hidden="true">
            <Icon name="gift" />
          </span>
          <div>
            <h3>{t("landing.plans.freeWeekTitle")}</h3>
            <p>{t("landing.plans.freeWeek")}</p>
          </div>
        </div>
      </div>
    </section>
  );
}

/** The live plans, a component of its own: SWR re-renders its reader synchronously as the request starts and ends. */
function PlanList() {
  const { t, i18n } = useTranslation("site");
  const plans = usePlans("flex");
  return plans.data && plans.data.length > 0 ? (
    <ul className="landing-plans">
      {plans.data.map((plan) => (
        <li key={plan.id} className="card landing-plan">
          <h3>{t("landing.plans.days", { count: plan.days })}</h3>
          <p className="landing-plan-price">{formatUsd(plan.priceCents, i18n.language)}</p>
          <p className="muted">{t("landing.plans.perWeek", { price: formatUsd(Math.round((plan.priceCents * 7) / plan.days), i18n.language) })}</p>
          <Link className="button button-secondary button-block" to="/register">
            {t("landing.plans.choose")}
          </Link>
        </li>
      ))}
    </ul>
  ) : (
    <p className="callout">{plans.isLoading ? t("common:loading") : t("landing.plans.unavailable")}</p>
  );
}

function Help() {
  const { t } = useTranslation("site");
  const points: { key: string; icon: IconName }[] = [
    { key: "hours", icon: "headset" },
    { key: "web", icon: "smartphone" },
    { key: "safe", icon: "shield-check" },
    { key: "languages", icon: "languages" },
  ];
  return (
    <section className="landing-section landing-section-alt" aria-labelledby="help-title">
      <div className="landing-section-inner">
        <h2 id="help-title">{t("landing.trust.title")}</h2>
        <ul className="landing-points">
          {points.map((point) => (
            <li key={point.key}>
              <span className="landing-step-icon" aria-hidden="true">
                <Icon name={point.icon} />
              </span>
              <p>{t(`landing.trust.${point.key}`)}</p>
            </li>
          ))}
        </ul>
      </div>
    </section>
  );
}

function FaqTeaser() {
  const { t } = useTranslation("site");
  return (
    <section className="landing-section" aria-labelledby="faq-title">
      <div className="landing-section-inner landing-narrow">
        <h2 id="faq-title">{t("landing.faq.title")}</h2>
        {["hours", "download", "filters", "pay"].map((key) => (
          <details key={key} className="faq-item">
            <summary>{t(`faqs.items.${key}.q`)}</summary>
            <p>{t(`faqs.items.${key}.a`)}</p>
          </details>
        ))}
        <p>
          <Link to="/faqs" className="landing-more">
            {t("landing.faq.all")}
            <Icon name="arrow-right" />
          </Link>
        </p>
      </div>
    </section>
  );
}

function FinalCall() {
  const { t } = useTranslation("site");
  return (
    <section className="landing-cta" aria-labelledby="cta-title">
      <div className="landing-section-inner">
        <h2 id="cta-title">{t("landing.cta.title")}</h2>
        <p>{t("landing.cta.text")}</p>
        <div className="actions">
          <Link className="button button-large landing-cta-button" to="/register">
            {t("footer.register")}
          </Link>
          <Link className="button button-ghost button-large landing-cta-ghost" to="/contact">
            {t("common:nav.contact")}
          </Link>
        </div>
      </div>
    </section>
  );
}

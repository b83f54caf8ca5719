import { memo } from "react";
import { useTranslation } from "react-i18next";
import type { DriverFilters } from "../../../shared/driver-filters";
import { Badge, type BadgeTone } from "../../components/ui/Badge";
import { TableScroll } from "../../components/ui/TableScroll";
import type { OfferRow, OfferStatus } from "./api";
import { money } from "./format";
import { blockSpan, clock } from "./station-time";
import { whyWords } from "./why";

const TONES: Record<OfferStatus, BadgeTone> = { won: "success", disliked: "neutral", gone: "warning" };

type OfferListProps = {
  rows: OfferRow[];
  filters: DriverFilters | null;
  systemOn: boolean;
  /** Null when read-only: an administrator sees that a block is open for "I've arrived", not the button. */
  onArrive: ((row: OfferRow) => Promise<void>) | null;
  lang: string;
  /** Another page or tab is loading (the rows shown are the last one's). */
  busy: boolean;
};

/**
 * A page of offers, rendered once and laid out two ways by driver.css: a table where the offers'
 * box is wide enough for its six columns, and below that (a phone) one card per offer, its result
 * and station, its time, pay and $/hour, then why it was not taken or what the driver can do. A
 * container query decides, so crossing the width re-renders nothing, and a card is still a row of
 * the table: its cells are read with their column headers, which are hidden on a phone, not removed.
 */
export function OfferList({ rows, filters, systemOn, onArrive, lang, busy }: OfferListProps) {
  const { t } = useTranslation("driver");
  return (
    <TableScroll label={t("dashboard.offers")} busy={busy}>
      <table className="offers-table">
        <thead>
          <tr>
            {(["status", "station", "when", "pay", "hourly", "why"] as const).map((column) => (
              <th key={column} scope="col">
                {t(`dashboard.columns.${column}`)}
              </th>
            ))}
          </tr>
        </thead>
        <OfferRows rows={rows} filters={filters} systemOn={systemOn} onArrive={onArrive} lang={lang} />
      </table>
    </TableScroll>
  );
}

/** The rows, memoised: the urgent render that precedes a deferred one passes the same rows, and a page starting to load changes only the box. */
const OfferRows = memo(function OfferRows({ rows, filters, systemOn, onArrive, lang }: Omit<OfferListProps, "busy">) {
  const { t } = useTranslation("driver");
  return (
    <tbody>
      {rows.map((row) => (
        <tr key={row.id} className="offer" data-status={row.status}>
          <td className="offer-status">
            <Badge tone={TONES[row.status]}>{t(`dashboard.status.${row.status}`)}</Badge>
          </td>
          <td className="offer-station">{row.stationName}</td>
          <td className="offer-when">{blockSpan(row.startsAt, row.endsAt, row.timeZone, lang)}</td>
          {/* On a card the pay and the $/hour share a line, each after its name (data-label; the
              column header already names it for a screen reader). */}
          <td className="offer-pay" data-label={t("dashboard.columns.pay")}>
            {money(row.payCents, lang)}
          </td>
          <td className="offer-hourly" data-label={t("dashboard.columns.hourly")}>
            {money(Math.round((row.payCents * 3_600_000) / Math.max(1, row.endsAt - row.startsAt)), lang)}
          </td>
          <td className="offer-why">
            <OfferDetail row={row} filters={filters} systemOn={systemOn} onArrive={onArrive ? () => void onArrive(row) : null} />
          </td>
        </tr>
      ))}
    </tbody>
  );
});

/** Why an offer was not taken, in words, or where a won block stands and the driver's action on it. */
function OfferDetail({ row, filters, systemOn, onArrive }: { row: OfferRow; filters: DriverFilters | null; systemOn: boolean; onArrive: (() => void) | null }) {
  const { t, i18n } = useTranslation("driver");
  if (row.status === "disliked") {
    const words = whyWords(row, row.reasons, filters, t, i18n.language);
    return (
      <ul className="why-list">
        {words.map((w) => (
          <li key={w}>{w}</li>
        ))}
      </ul>
    );
  }
  if (row.status === "gone") return <span className="muted">{t("dashboard.goneWhy")}</span>;
  if (row.forfeitedAt) return <span className="muted">{t("dashboard.forfeited")}</span>;
  // Asked during a lockout: sent when it ends (the engine's card says when).
  if (row.forfeitQueuedAt) return <span className="muted">{t("dashboard.forfeitQueued")}</span>;
  if (row.arrivedAt) return <span>{t("dashboard.arrivedAt", { time: clock(row.arrivedAt, row.timeZone, i18n.language) })}</span>;
  // Where no check-in is configured the platform has nothing to tell: said, rather than a button that cannot work.
  if (row.canCheckIn && !row.checkInAvailable) return <span className="muted">{t("dashboard.checkInUnavailable")}</span>;
  if (row.canCheckIn && !onArrive) return <span className="muted">{t("dashboard.checkInOpen")}</span>;
  if (row.canCheckIn && onArrive) {
    return (
      <button type="button" className="button button-small" onClick={onArrive} aria-describedby={systemOn ? undefined : `arrive-hint-${row.id}`}>
        {t("dashboard.arrived")}
        {!systemOn && (
          <span id={`arrive-hint-${row.id}`} className="visually-hidden">
            {t("common:errors.turnOnSystem")}
          </span>
        )}
      </button>
    );
  }
  // A block the platform has not yet scheduled for the driver cannot be forfeited there yet.
  if (row.canForfeit && !row.forfeitable) return <span className="muted">{t("dashboard.notForfeitableYet")}</span>;
  return null;
}

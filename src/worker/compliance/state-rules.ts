/**
 * When a marketing message may reach someone, and how many may, by where they are. The federal
 * line applies everywhere in the US; a state line replaces it where the state is stricter; Canada
 * has its own. Each line cites the rule it comes from (docs/messaging-rules.md says how to add one).
 *
 * Hours are local wall-clock minutes after midnight, [start, end): 8:00–21:00 is [480, 1260).
 * `days` maps a weekday (0 = Sunday) to its window, or null when no marketing message may go at all
 * that day. A frequency cap counts marketing messages to one number over a rolling window, on every
 * channel: the statutes say "on the same subject matter", and we treat all of our marketing as one.
 */

export type Window = { start: number; end: number };
export type FrequencyCap = { max: number; windowMs: number };
export type RegionRule = {
  /** The statute or regulation the line comes from. */
  cites: string;
  days: readonly (Window | null)[];
  cap?: FrequencyCap;
};

const hours = (fromHour: number, toHour: number): Window => ({ start: Math.round(fromHour * 60), end: Math.round(toHour * 60) });
const everyDay = (w: Window) => [w, w, w, w, w, w, w] as const;
const DAY_MS = 86_400_000;
const THREE_A_DAY: FrequencyCap = { max: 3, windowMs: DAY_MS };

/** Telephone solicitation only between 8 am and 9 pm at the called party's location. */
export const US_FEDERAL_RULE: RegionRule = { cites: "47 C.F.R. § 64.1200(c)(1) (TCPA)", days: everyDay(hours(8, 21)) };

export const REGION_RULES: Readonly<Record<string, RegionRule>> = {
  FL: { cites: "Fla. Stat. § 501.616(6)(a)–(b) (as amended by SB 1120, 2021)", days: everyDay(hours(8, 20)), cap: THREE_A_DAY },
  OK: { cites: "Okla. Stat. tit. 15, § 775C.4 (Oklahoma Telephone Solicitation Act of 2022)", days: everyDay(hours(8, 20)), cap: THREE_A_DAY },
  MD: { cites: "Md. Code, Com. Law § 14-4503 (Stop the Spam Calls Act of 2023)", days: everyDay(hours(8, 20)), cap: THREE_A_DAY },
  WA: { cites: "RCW 80.36.390 (as amended by HB 1497, 2022)", days: everyDay(hours(8, 20)) },
  CT: { cites: "Conn. Gen. Stat. § 42-288a (as amended by Public Act 23-98)", days: everyDay(hours(9, 20)) },
  TX: {
    cites: "Tex. Bus. & Com. Code § 301.051",
    days: [hours(12, 21), hours(9, 21), hours(9, 21), hours(9, 21), hours(9, 21), hours(9, 21), hours(9, 21)],
  },
};

/** Every Canadian province and territory: telemarketing 9:00–21:30 on weekdays, 10:00–18:00 on weekends. */
export const CANADA_RULE: RegionRule = {
  cites: "CRTC Unsolicited Telecommunications Rules, Part III (Telemarketing Rules)",
  days: [hours(10, 18), hours(9, 21.5), hours(9, 21.5), hours(9, 21.5), hours(9, 21.5), hours(9, 21.5), hours(10, 18)],
};

/** A per-recipient cap for WhatsApp marketing whatever the state: Meta throttles marketing per user itself, and a refused send still costs. */
export const WHATSAPP_MARKETING_CAP: FrequencyCap = { max: 1, windowMs: DAY_MS };

export function ruleFor(region: string | null, country: "US" | "CA" | null): RegionRule {
  if (country === "CA") return CANADA_RULE;
  return (region && REGION_RULES[region]) || US_FEDERAL_RULE;
}

/**
 * The rule for a number whose area code we do not know: every line at once, i.e. for each weekday
 * the latest start and the earliest end of all of them, no day where any line forbids one, and the
 * tightest cap.
 */
export const STRICTEST_RULE: RegionRule = (() => {
  const all = [US_FEDERAL_RULE, CANADA_RULE, ...Object.values(REGION_RULES)];
  const days = [0, 1, 2, 3, 4, 5, 6].map((d) => {
    const windows = all.map((r) => r.days[d]);
    if (windows.some((w) => !w)) return null;
    const start = Math.max(...windows.map((w) => w!.start));
    const end = Math.min(...windows.map((w) => w!.end));
    return start < end ? { start, end } : null;
  });
  return { cites: "all of the above (the number's area code is not in our table)", days, cap: THREE_A_DAY };
})();

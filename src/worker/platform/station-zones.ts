/**
 * Flex delivery stations' metro areas and time zones, by the three-letter area part of the station
 * code ("DMI4" → "DMI"). The platform names a station "Doral (DMI4)" and gives no zone anywhere;
 * this table is best-effort, compiled from public lists of delivery-station codes (drivers'
 * forums and station directories), whose area part follows the metro's airport-style code. A code
 * missing here is not an error: the station's zone falls back to the driver's own (their phone's
 * area code) or the driver chooses it (station-catalogue.ts). Full codes may override a prefix
 * where a metro's stations straddle a zone line.
 */
const ET = "America/New_York";
const CT = "America/Chicago";
const MT = "America/Denver";
const PT = "America/Los_Angeles";
const AZ = "America/Phoenix";

export type StationArea = { city: string; timeZone: string };

/** [prefix, city, zone]. */
const AREAS: readonly (readonly [string, string, string])[] = [
  ["DAB", "Albuquerque, NM", MT],
  ["DAT", "Atlanta, GA", ET],
  ["DAU", "Austin, TX", CT],
  ["DAX", "Los Angeles, CA", PT],
  ["DBA", "Baltimore, MD", ET],
  ["DBM", "Birmingham, AL", CT],
  ["DBO", "Boston, MA", ET],
  ["DBU", "Buffalo, NY", ET],
  ["DCB", "Columbus, OH", ET],
  ["DCD", "Cedar Rapids, IA", CT],
  ["DCH", "Chicago, IL", CT],
  ["DCK", "Charlotte, NC", ET],
  ["DCL", "Cleveland, OH", ET],
  ["DCM", "Columbia, SC", ET],
  ["DCN", "Cincinnati, OH", ET],
  ["DCS", "Colorado Springs, CO", MT],
  ["DCX", "Chicago, IL", CT],
  ["DDE", "Denver, CO", MT],
  ["DDF", "Dallas–Fort Worth, TX", CT],
  ["DDT", "Detroit, MI", ET],
  ["DDV", "Denver, CO", MT],
  ["DDX", "Dallas–Fort Worth, TX", CT],
  ["DEL", "El Paso, TX", MT],
  ["DFA", "Fresno, CA", PT],
  ["DFH", "Fort Lauderdale, FL", ET],
  ["DFL", "South Florida, FL", ET],
  ["DFW", "Dallas–Fort Worth, TX", CT],
  ["DFX", "Fort Myers, FL", ET],
  ["DGR", "Grand Rapids, MI", ET],
  ["DGT", "Greenville, SC", ET],
  ["DHO", "Houston, TX", CT],
  ["DHT", "Hartford, CT", ET],
  ["DHX", "Houston, TX", CT],
  ["DIA", "Indianapolis, IN", ET],
  ["DIN", "Indianapolis, IN", ET],
  ["DJX", "Jacksonville, FL", ET],
  ["DKC", "Kansas City, MO", CT],
  ["DKY", "Louisville, KY", ET],
  ["DLA", "Los Angeles, CA", PT],
  ["DLI", "Long Island, NY", ET],
  ["DLR", "Little Rock, AR", CT],
  ["DLT", "Salt Lake City, UT", MT],
  ["DLV", "Las Vegas, NV", PT],
  ["DLX", "Los Angeles, CA", PT],
  ["DMD", "Washington–Maryland, MD", ET],
  ["DME", "Memphis, TN", CT],
  ["DMF", "Sacramento, CA", PT],
  ["DMI", "Miami, FL", ET],
  ["DML", "Milwaukee, WI", CT],
  ["DMP", "Minneapolis–St. Paul, MN", CT],
  ["DMS", "Madison, WI", CT],
  ["DNA", "Nashville, TN", CT],
  ["DNJ", "Northern New Jersey, NJ", ET],
  ["DNK", "Newark, NJ", ET],
  ["DNO", "New Orleans, LA", CT],
  ["DNY", "New York, NY", ET],
  ["DOB", "Oklahoma City, OK", CT],
  ["DOK", "Oklahoma City, OK", CT],
  ["DOM", "Omaha, NE", CT],
  ["DOR", "Orlando, FL", ET],
  ["DPA", "Pittsburgh, PA", ET],
  ["DPD", "Portland, OR", PT],
  ["DPH", "Philadelphia, PA", ET],
  ["DPP", "Philadelphia, PA", ET],
  ["DPS", "Phoenix, AZ", AZ],
  ["DPX", "Phoenix, AZ", AZ],
  ["DRA", "Raleigh–Durham, NC", ET],
  ["DRC", "Richmond, VA", ET],
  ["DRI", "Reno, NV", PT],
  ["DSA", "San Antonio, TX", CT],
  ["DSD", "San Diego, CA", PT],
  ["DSE", "Seattle, WA", PT],
  ["DSF", "San Francisco Bay Area, CA", PT],
  ["DSJ", "San Jose, CA", PT],
  ["DSK", "Spokane, WA", PT],
  ["DSL", "St. Louis, MO", CT],
  ["DSM", "Des Moines, IA", CT],
  ["DSR", "Sarasota, FL", ET],
  ["DSX", "Seattle, WA", PT],
  ["DTP", "Tampa, FL", ET],
  ["DTU", "Tucson, AZ", AZ],
  ["DTW", "Detroit, MI", ET],
  ["DUT", "Salt Lake City, UT", MT],
  ["DVA", "Northern Virginia, VA", ET],
  ["DWA", "Washington, DC", ET],
  ["DWI", "Wichita, KS", CT],
  // Canada.
  ["DYY", "Toronto, ON", "America/Toronto"],
  ["DYZ", "Toronto, ON", "America/Toronto"],
  ["DYV", "Vancouver, BC", "America/Vancouver"],
  ["DYC", "Calgary, AB", "America/Edmonton"],
  ["DYE", "Edmonton, AB", "America/Edmonton"],
  ["DYO", "Ottawa, ON", "America/Toronto"],
  ["DYU", "Montreal, QC", "America/Toronto"],
  ["DYW", "Winnipeg, MB", "America/Winnipeg"],
];

const byPrefix = new Map<string, StationArea>();
for (const [prefix, city, timeZone] of AREAS) {
  if (byPrefix.has(prefix)) throw new Error(`Station prefix ${prefix} is listed twice`);
  byPrefix.set(prefix, { city, timeZone });
}

/** Full station codes whose zone is not their prefix's (none known yet; the seam for corrections of the table). */
const BY_CODE: ReadonlyMap<string, StationArea> = new Map();

/** "Doral (DMI4) - Amazon.com" → "Doral (DMI4)". */
export function displayName(platformName: string): string {
  return platformName.replace(/\s+-\s+Amazon(\.com)?\s*$/i, "").trim() || platformName.trim();
}

/** The station code in a name: the last parenthesised code of three letters and digits ("Doral (DMI4)" → "DMI4"). */
export function stationCode(name: string): string | null {
  const codes = [...name.matchAll(/\(([A-Z]{3}\d{1,2}[A-Z]?)\)/gi)];
  return codes.length > 0 ? codes[codes.length - 1]![1]!.toUpperCase() : null;
}

/** The metro and zone of a station code ("DMI4"), or null when the table does not know it. */
export function stationArea(code: string | null): StationArea | null {
  if (!code) return null;
  const upper = code.toUpperCase();
  return BY_CODE.get(upper) ?? byPrefix.get(upper.slice(0, 3)) ?? null;
}

/** The US and Canada zones a driver may choose for a station. */
export const NORTH_AMERICAN_ZONES: readonly string[] = [
  "America/St_Johns",
  "America/Halifax",
  ET,
  "America/Toronto",
  CT,
  "America/Winnipeg",
  MT,
  "America/Edmonton",
  AZ,
  PT,
  "America/Vancouver",
  "America/Anchorage",
  "Pacific/Honolulu",
];

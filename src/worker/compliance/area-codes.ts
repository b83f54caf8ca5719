/**
 * Where a US or Canadian number is, as far as its area code tells: the state or province, and every
 * time zone the area code's exchanges lie in. An area code that spans zones (the Florida panhandle's
 * 850, Idaho's 208, Labrador with Newfoundland in 709 …) lists them all, and the quiet-hours rule
 * asks that every one of them be inside its allowed hours: we cannot tell which side of the line a
 * number is on, so the message waits until it is allowed on both sides.
 *
 * Compiled from the NANP assignments of US states, territories and Canadian provinces, with the
 * multi-zone area codes cross-checked against libphonenumber's time-zone map. An area code missing
 * here (a brand-new overlay, a non-geographic or Caribbean code) gets UNKNOWN_LOCATION: every
 * continental zone at once, which is always safe and only ever later.
 */

export type Country = "US" | "CA";
export type Location = { region: string | null; country: Country | null; zones: readonly string[] };

type RegionLine = { region: string; country: Country; zones: readonly string[]; codes: string; split?: Record<string, readonly string[]> };

const ET = "America/New_York";
const CT = "America/Chicago";
const MT = "America/Denver";
const PT = "America/Los_Angeles";

const REGION_LINES: readonly RegionLine[] = [
  { region: "AL", country: "US", zones: [CT], codes: "205 251 256 334 659 938" },
  { region: "AK", country: "US", zones: ["America/Anchorage", "America/Adak"], codes: "907" },
  // Arizona keeps standard time all year, except the Navajo Nation (928), which follows daylight time.
  { region: "AZ", country: "US", zones: ["America/Phoenix"], codes: "480 520 602 623 928", split: { "928": ["America/Phoenix", MT] } },
  { region: "AR", country: "US", zones: [CT], codes: "327 479 501 870" },
  {
    region: "CA",
    country: "US",
    zones: [PT],
    codes: "209 213 279 310 323 341 350 408 415 424 442 510 530 559 562 619 626 628 650 657 661 669 707 714 747 760 805 818 820 840 858 909 916 925 949 951",
  },
  { region: "CO", country: "US", zones: [MT], codes: "303 719 720 970 983" },
  { region: "CT", country: "US", zones: [ET], codes: "203 475 860 959" },
  { region: "DE", country: "US", zones: [ET], codes: "302" },
  { region: "DC", country: "US", zones: [ET], codes: "202 771" },
  {
    region: "FL",
    country: "US",
    zones: [ET],
    codes: "239 305 321 324 352 386 407 448 561 645 656 689 727 754 772 786 813 850 863 904 941 954",
    // The panhandle west of the Apalachicola is on Central time.
    split: { "850": [ET, CT], "448": [ET, CT] },
  },
  { region: "GA", country: "US", zones: [ET], codes: "229 404 470 478 678 706 762 770 912 943" },
  { region: "HI", country: "US", zones: ["Pacific/Honolulu"], codes: "808" },
  // North Idaho is on Pacific time, the south on Mountain.
  { region: "ID", country: "US", zones: ["America/Boise", PT], codes: "208 986" },
  { region: "IL", country: "US", zones: [CT], codes: "217 224 309 312 331 447 464 618 630 708 730 773 779 815 847 872" },
  // Indiana's north-west and south-west corners are on Central time.
  {
    region: "IN",
    country: "US",
    zones: [ET],
    codes: "219 260 317 463 574 765 812 930",
    split: { "219": [ET, CT], "574": [ET, CT], "812": [ET, CT], "930": [ET, CT] },
  },
  { region: "IA", country: "US", zones: [CT], codes: "319 515 563 641 712" },
  { region: "KS", country: "US", zones: [CT], codes: "316 620 785 913", split: { "620": [CT, MT], "785": [CT, MT] } },
  { region: "KY", country: "US", zones: [ET], codes: "270 364 502 606 859", split: { "270": [ET, CT], "364": [ET, CT], "606": [ET, CT] } },
  { region: "LA", country: "US", zones: [CT], codes: "225 318 337 504 985" },
  { region: "ME", country: "US", zones: [ET], codes: "207" },
  { region: "MD", country: "US", zones: [ET], codes: "227 240 301 410 443 667" },
  { region: "MA", country: "US", zones: [ET], codes: "339 351 413 508 617 774 781 857 978" },
  { region: "MI", country: "US", zones: [ET], codes: "231 248 269 313 517 586 616 679 734 810 906 947 989", split: { "906": [ET, CT] } },
  { region: "MN", country: "US", zones: [CT], codes: "218 320 507 612 651 763 952" },
  { region: "MS", country: "US", zones: [CT], codes: "228 601 662 769" },
  { region: "MO", country: "US", zones: [CT], codes: "235 314 417 557 573 636 660 816" },
  { region: "MT", country: "US", zones: [MT], codes: "406" },
  { region: "NE", country: "US", zones: [CT], codes: "308 402 531", split: { "308": [CT, MT] } },
  // West Wendover is on Mountain time.
  { region: "NV", country: "US", zones: [PT], codes: "702 725 775", split: { "775": [PT, MT] } },
  { region: "NH", country: "US", zones: [ET], codes: "603" },
  { region: "NJ", country: "US", zones: [ET], codes: "201 551 609 640 732 848 856 862 908 973" },
  { region: "NM", country: "US", zones: [MT], codes: "505 575" },
  { region: "NY", country: "US", zones: [ET], codes: "212 315 332 347 363 516 518 585 607 631 646 680 716 718 838 845 914 917 929 934" },
  { region: "NC", country: "US", zones: [ET], codes: "252 336 472 704 743 828 910 919 980 984" },
  { region: "ND", country: "US", zones: [CT, MT], codes: "701" },
  { region: "OH", country: "US", zones: [ET], codes: "216 220 234 283 326 330 380 419 440 513 567 614 740 937" },
  { region: "OK", country: "US", zones: [CT], codes: "405 539 572 580 918" },
  // Malheur County, in 541/458, is on Mountain time.
  { region: "OR", country: "US", zones: [PT], codes: "458 503 541 971", split: { "458": [PT, "America/Boise"], "541": [PT, "America/Boise"] } },
  { region: "PA", country: "US", zones: [ET], codes: "215 223 267 272 412 445 484 570 582 610 717 724 814 835 878" },
  { region: "RI", country: "US", zones: [ET], codes: "401" },
  { region: "SC", country: "US", zones: [ET], codes: "803 839 843 854 864" },
  { region: "SD", country: "US", zones: [CT, MT], codes: "605" },
  { region: "TN", country: "US", zones: [CT], codes: "423 615 629 731 865 901 931", split: { "423": [ET, CT], "865": [ET] } },
  {
    region: "TX",
    country: "US",
    zones: [CT],
    codes: "210 214 254 281 325 346 361 409 430 432 469 512 682 713 726 737 806 817 830 832 903 915 936 940 945 956 972 979",
    // El Paso and its neighbours are on Mountain time.
    split: { "915": [MT] },
  },
  { region: "UT", country: "US", zones: [MT], codes: "385 435 801" },
  { region: "VT", country: "US", zones: [ET], codes: "802" },
  { region: "VA", country: "US", zones: [ET], codes: "276 434 540 571 703 757 804 826 948" },
  { region: "WA", country: "US", zones: [PT], codes: "206 253 360 425 509 564" },
  { region: "WV", country: "US", zones: [ET], codes: "304 681" },
  { region: "WI", country: "US", zones: [CT], codes: "262 274 353 414 534 608 715 920" },
  { region: "WY", country: "US", zones: [MT], codes: "307" },
  { region: "PR", country: "US", zones: ["America/Puerto_Rico"], codes: "787 939" },
  { region: "VI", country: "US", zones: ["America/St_Thomas"], codes: "340" },
  { region: "GU", country: "US", zones: ["Pacific/Guam"], codes: "671" },
  { region: "MP", country: "US", zones: ["Pacific/Saipan"], codes: "670" },
  { region: "AS", country: "US", zones: ["Pacific/Pago_Pago"], codes: "684" },

  { region: "AB", country: "CA", zones: ["America/Edmonton"], codes: "368 403 587 780 825" },
  // The East Kootenay is on Mountain time; the overlays cover the whole province.
  {
    region: "BC",
    country: "CA",
    zones: ["America/Vancouver"],
    codes: "236 250 604 672 778",
    split: {
      "236": ["America/Vancouver", "America/Edmonton"],
      "250": ["America/Vancouver", "America/Edmonton"],
      "672": ["America/Vancouver", "America/Edmonton"],
      "778": ["America/Vancouver", "America/Edmonton"],
    },
  },
  { region: "MB", country: "CA", zones: ["America/Winnipeg"], codes: "204 431 584" },
  { region: "NB", country: "CA", zones: ["America/Moncton"], codes: "428 506" },
  // Most of Labrador keeps Atlantic time; the island and south-east Labrador keep Newfoundland time.
  { region: "NL", country: "CA", zones: ["America/St_Johns", "America/Halifax"], codes: "709 879" },
  { region: "NS", country: "CA", zones: ["America/Halifax"], codes: "782 902" },
  {
    region: "ON",
    country: "CA",
    zones: ["America/Toronto"],
    codes: "226 249 289 343 365 382 416 437 519 548 613 647 683 705 742 753 807 905 942",
    split: { "807": ["America/Toronto", "America/Winnipeg"] },
  },
  // The Magdalen Islands (418/581/367) keep Atlantic time.
  {
    region: "QC",
    country: "CA",
    zones: ["America/Toronto"],
    codes: "263 354 367 418 438 450 468 514 579 581 819 873",
    split: { "367": ["America/Toronto", "America/Halifax"], "418": ["America/Toronto", "America/Halifax"], "581": ["America/Toronto", "America/Halifax"] },
  },
  // Saskatchewan keeps Central Standard time all year; Lloydminster follows Alberta.
  { region: "SK", country: "CA", zones: ["America/Regina", "America/Edmonton"], codes: "306 474 639" },
  // Yukon, the Northwest Territories and Nunavut share 867, from Mountain Standard to Eastern time.
  { region: "NT", country: "CA", zones: ["America/Whitehorse", "America/Edmonton", "America/Winnipeg", "America/Toronto"], codes: "867" },
];

/** Every zone a NANP number in the US or Canada may be in: what an unknown area code must respect. */
export const UNKNOWN_LOCATION: Location = {
  region: null,
  country: null,
  zones: ["America/St_Johns", "America/Halifax", ET, CT, MT, "America/Phoenix", PT, "America/Anchorage", "Pacific/Honolulu"],
};

const byAreaCode = new Map<string, Location>();
for (const line of REGION_LINES) {
  for (const code of line.codes.split(" ")) {
    if (byAreaCode.has(code)) throw new Error(`Area code ${code} is listed twice`);
    byAreaCode.set(code, { region: line.region, country: line.country, zones: line.split?.[code] ?? line.zones });
  }
}

/** Every area code of the table (the quiet-hours map is computed per area code). */
export const KNOWN_AREA_CODES: readonly string[] = [...byAreaCode.keys()];

/** The area code of an E.164 NANP number ("+13055550100" → "305"), or null. */
export function areaCodeOf(e164: string): string | null {
  return /^\+1(\d{3})\d{7}$/.exec(e164)?.[1] ?? null;
}

export function locationOfAreaCode(areaCode: string | null): Location {
  return (areaCode && byAreaCode.get(areaCode)) || UNKNOWN_LOCATION;
}

export function locationOf(e164: string): Location {
  return locationOfAreaCode(areaCodeOf(e164));
}

/** Area codes of one state or province (the frequency-cap query matches numbers by them). */
export function areaCodesOfRegions(regions: readonly string[]): string[] {
  return KNOWN_AREA_CODES.filter((code) => regions.includes(byAreaCode.get(code)!.region!));
}

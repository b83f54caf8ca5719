import { VALIDATION_MESSAGES, type ValidationCode } from "./validation";

/**
 * US/Canada phone numbers. We accept what people type ("(305) 555-0100", "305.555.0100",
 * "+1 305 555 0100", "13055550100") and store E.164 (+13055550100).
 */
const NANP = /^[2-9]\d{2}[2-9]\d{6}$/;

/** The ten national digits of what was typed, if it reads as a +1 number at all (any area code). */
function nationalDigits(input: string): string | null {
  const digits = input.replace(/\D/g, "");
  const national = digits.length === 11 && digits.startsWith("1") ? digits.slice(1) : digits.length === 10 ? digits : null;
  if (!national) return null;
  const trimmed = input.trim();
  if (/[^\d\s().+-]/.test(trimmed)) return null;
  // "+" starts a country code: only +1 is ours ("+30 555 550 100" is Greek, not 305-555-0100).
  if (trimmed.startsWith("+") && !(digits.length === 11 && digits.startsWith("1"))) return null;
  if (trimmed.slice(1).includes("+")) return null;
  return national;
}

/**
 * E.164 for a number shaped like a North American one, or null. Loose on purpose: searches and
 * inbound messages (a STOP from any +1 number counts) use it. Numbers we text go through
 * `checkSmsPhone`, which also requires a US or Canadian number that can receive SMS.
 */
export function normalizeUsPhone(input: string): string | null {
  const national = nationalDigits(input);
  return national && NANP.test(national) ? `+1${national}` : null;
}

/**
 * Area codes of the 50 states, DC and Canada, geographic and in service (or announced overlays,
 * which cost nothing to accept early). Everything else with +1 is refused for texting: the
 * Caribbean countries and US territories of the plan (priced as international, the classic SMS
 * pumping targets), toll-free and premium codes, non-geographic and unassigned ones. Kept as one
 * string so the list weighs little in the browser bundles that validate forms.
 */
const US_CANADA_AREA_CODES = new Set(
  (
    "201 202 203 204 205 206 207 208 209 210 212 213 214 215 216 217 218 219 220 223 224 225 226 227 228 229 231 234 235 236 239 240 248 249 " +
    "250 251 252 253 254 256 257 260 262 263 267 269 270 272 274 276 279 281 283 289 301 302 303 304 305 306 307 308 309 310 312 313 314 315 " +
    "316 317 318 319 320 321 323 324 325 326 327 329 330 331 332 334 336 337 339 341 343 346 347 350 351 352 353 354 357 360 361 363 364 365 " +
    "367 368 369 380 382 385 386 401 402 403 404 405 406 407 408 409 410 412 413 414 415 416 417 418 419 423 424 425 428 430 431 432 434 435 " +
    "436 437 438 440 442 443 445 447 448 450 457 458 463 464 468 469 470 471 472 474 475 478 479 480 483 484 501 502 503 504 505 506 507 508 " +
    "509 510 512 513 514 515 516 517 518 519 520 530 531 534 539 540 541 548 551 557 559 561 562 563 564 567 570 571 572 573 574 575 579 580 " +
    "581 582 584 585 586 587 601 602 603 604 605 606 607 608 609 610 612 613 614 615 616 617 618 619 620 623 624 626 628 629 630 631 636 639 " +
    "640 641 645 646 647 650 651 656 657 659 660 661 662 667 669 672 678 679 680 681 682 683 686 689 701 702 703 704 705 706 707 708 709 712 " +
    "713 714 715 716 717 718 719 720 724 725 726 727 728 730 731 732 734 737 738 740 742 743 747 753 754 757 760 762 763 764 765 769 770 771 " +
    "772 773 774 775 778 779 780 781 782 785 786 801 802 803 804 805 806 807 808 810 812 813 814 815 816 817 818 819 820 821 825 826 828 830 " +
    "831 832 835 837 838 839 840 843 845 847 848 850 854 856 857 858 859 860 861 862 863 864 865 867 870 872 873 878 879 901 902 903 904 905 " +
    "906 907 908 909 910 912 913 914 915 916 917 918 919 920 924 925 928 929 930 931 934 936 937 938 940 941 942 943 945 947 948 949 951 952 " +
    "954 956 959 970 971 972 973 975 978 979 980 983 984 985 986 989"
  ).split(" "),
);
const TOLL_FREE = /^8(00|22|33|44|55|66|77|8\d)$/;
const OTHER_NANP_COUNTRIES = new Set("242 246 264 268 284 340 345 441 473 649 658 664 670 671 684 721 758 767 784 787 809 829 849 868 869 876 939".split(" "));

/** Why a +1 number cannot be texted; each has its own words in the forms (src/app/i18n). */
export const PHONE_REFUSALS = ["format", "area_code", "exchange", "toll_free", "premium", "outside_us_canada", "not_in_service"] as const;
export type PhoneRefusal = (typeof PHONE_REFUSALS)[number];
export type PhoneCheck = { ok: true; e164: string } | { ok: false; reason: PhoneRefusal };

/**
 * Can we text this number? A US or Canadian number, valid under the numbering plan: the area code
 * and the exchange (the three digits after it) do not start with 0 or 1 and are not N11 service
 * codes (211 … 911), and the area code is a geographic one in service in the US or Canada, not a
 * toll-free, premium or Caribbean one. The forms, the identity endpoints and phone-list campaigns
 * all use this rule.
 */
export function checkSmsPhone(input: string): PhoneCheck {
  const national = nationalDigits(input);
  if (!national) return { ok: false, reason: "format" };
  const area = national.slice(0, 3);
  const exchange = national.slice(3, 6);
  if (/^[01]/.test(area) || /^[2-9]11$/.test(area)) return { ok: false, reason: "area_code" };
  if (/^[01]/.test(exchange) || /^[2-9]11$/.test(exchange)) return { ok: false, reason: "exchange" };
  if (TOLL_FREE.test(area)) return { ok: false, reason: "toll_free" };
  if (area === "900") return { ok: false, reason: "premium" };
  if (OTHER_NANP_COUNTRIES.has(area)) return { ok: false, reason: "outside_us_canada" };
  if (!US_CANADA_AREA_CODES.has(area)) return { ok: false, reason: "not_in_service" };
  return { ok: true, e164: `+1${national}` };
}

/** The validation code of each refusal (src/shared/validation.ts): the Worker words it in English, the SPA in the reader's language. */
export const PHONE_REFUSAL_CODES = {
  format: "phone",
  area_code: "phoneAreaCode",
  exchange: "phoneExchange",
  toll_free: "phoneTollFree",
  premium: "phonePremium",
  outside_us_canada: "phoneOutside",
  not_in_service: "phoneNotInService",
} as const satisfies Record<PhoneRefusal, ValidationCode>;

/** The English words of each refusal (the Worker's messages). */
export const PHONE_REFUSAL_MESSAGES = Object.fromEntries(PHONE_REFUSALS.map((reason) => [reason, VALIDATION_MESSAGES[PHONE_REFUSAL_CODES[reason]]])) as Record<
  PhoneRefusal,
  string
>;

/** The phone display (docs/product.md, validation): optional leading 1 then 3+3+4 digits → "+1 (xxx) xxx-xxxx"; otherwise empty. */
export function formatUsPhone(input: string | null | undefined): string {
  const digits = (input ?? "").replace(/\D/g, "");
  const match = /^1?(\d{3})(\d{3})(\d{4})$/.exec(digits);
  return match ? `+1 (${match[1]}) ${match[2]}-${match[3]}` : "";
}

/**
 * A phone number formatted while it is typed: "305" → "+1 (305", "3055550" → "+1 (305) 555-0",
 * "13055550100" → "+1 (305) 555-0100". A leading 1 is the country code (no US/Canada area code
 * starts with 1); digits past ten are dropped; an empty input stays empty.
 */
export function formatPhoneAsTyped(input: string): string {
  const digits = input.replace(/\D/g, "");
  if (!digits) return input.trim() === "+" ? "+" : "";
  const national = (digits.startsWith("1") ? digits.slice(1) : digits).slice(0, 10);
  if (!national) return "+1";
  const area = national.slice(0, 3);
  const exchange = national.slice(3, 6);
  const line = national.slice(6);
  return `+1 (${area}${exchange ? `) ${exchange}` : ""}${line ? `-${line}` : ""}`;
}

/** The old product's numeric helper: the digits as an integer string, or empty. */
export function numericString(input: string | null | undefined): string {
  const digits = (input ?? "").replace(/\D/g, "");
  return digits ? String(BigInt(digits)) : "";
}

/** Last four digits for messages like "code sent to •••0100". */
export function maskPhone(e164: string): string {
  return `•••${e164.slice(-4)}`;
}

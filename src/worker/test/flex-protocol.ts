/**
 * Test-only: the bodies of the Flex protocol as public clients document them (docs/engine.md,
 * "The protocol"), written down as facts: every field a request carries or an answer is read for,
 * with a value of its type, and the values that are fixed. flex-platform.test.ts holds the fake
 * platform's answers and the adapter's requests against these, so neither can drift from the
 * documented protocol unseen.
 */

export const FLEX_FIXTURES = {
  registerRequest: {
    auth_data: { authorization_code: "CODE", code_verifier: "VERIFIER", code_algorithm: "SHA-256", client_id: "HEX", client_domain: "DeviceLegacy" },
    registration_data: {
      domain: "Device",
      app_name: "com.amazon.rabbit",
      app_version: "303338310",
      device_type: "A1MPSLFC7L5AFK",
      device_serial: "SERIAL",
      device_model: "MODEL",
      os_version: "OS",
      software_version: "SOFTWARE",
    },
    requested_token_type: ["bearer", "mac_dms", "website_cookies"],
    requested_extensions: ["device_info", "customer_info"],
    cookies: { domain: ".amazon.com", website_cookies: [] },
  },
  registerAnswer: {
    response: {
      success: {
        tokens: { bearer: { access_token: "Atna|…", refresh_token: "Atnr|…", expires_in: "3600" } },
        extensions: { customer_info: { name: "NAME", user_id: "amzn1.account.ID" } },
        customer_id: "amzn1.account.ID",
      },
    },
    request_id: "ID",
  },
  refreshRequest: {
    app_name: "com.amazon.rabbit",
    app_version: "303338310",
    source_token_type: "refresh_token",
    source_token: "Atnr|…",
    requested_token_type: "access_token",
  },
  refreshAnswer: { access_token: "Atna|…", token_type: "bearer", expires_in: 3600 },
  refreshRefused: { error: "invalid_grant", error_description: "The request has an invalid parameter : source_token" },
  eligibleAnswer: { serviceAreaIds: ["ID"] },
  filterOptionsAnswer: { serviceAreaPoolList: [{ serviceAreaId: "ID", serviceAreaName: "Doral (DMI4) - Amazon.com" }] },
  offersRequest: { apiVersion: "V2", filters: { serviceAreaFilter: ["ID"], timeFilter: {} }, serviceAreaIds: ["ID"] },
  offersAnswer: {
    offerExperienceVersion: "V1",
    offerList: [
      {
        offerId: "OfferId…",
        serviceAreaId: "ID",
        startTime: 1767281400,
        endTime: 1767294000,
        expirationDate: 1767281400,
        rateInfo: { priceAmount: 91.5, currency: "USD", isSurge: false, projectedTips: 0, pricingUXVersion: "V2" },
        hidden: false,
        status: "OFFERED",
        offerType: "NON_EXCLUSIVE",
        schedulingType: "BLOCK",
        serviceTypeId: "amzn1.flex.st.v1.…",
      },
    ],
    refreshInterval: 1000,
    refreshTimeout: 1800000,
  },
  acceptRequest: { __type: "AcceptOfferInput:http://internal.amazon.com/coral/com.amazon.omwbuseyservice.offers/", offerId: "OfferId…" },
  /** The entries' format is not public (assumed: the offer's fields plus an id). */
  scheduledAssignmentsAnswer: { scheduledAssignments: [{ serviceAreaId: "ID", startTime: 1767281400, endTime: 1767294000 }] },
  rateExceeded: { message: "Rate exceeded" },
  accessRefused: { message: "AuthorizationRequiredException…" },
} as const;

/** Headers every capacity call carries (lower-case names), and what their values look like. */
export const CAPACITY_HEADERS: Record<string, RegExp> = {
  "x-amz-access-token": /^Atna\|/,
  "x-amz-date": /^\d{8}T\d{6}Z$/,
  "x-flex-instance-id": /^[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}$/,
  "user-agent": /RabbitAndroid\/\d+(\.\d+)+$/,
  accept: /^application\/json$/,
  "accept-language": /^en-US$/,
};

/**
 * The places where `actual` does not have the documented shape: every documented key present with
 * a value of the same type (objects and arrays followed down; each element of an array against the
 * documented one). Extra keys are allowed (the protocol is read leniently).
 */
export function shapeMismatches(actual: unknown, documented: unknown, path = "$"): string[] {
  if (Array.isArray(documented)) {
    if (!Array.isArray(actual)) return [`${path}: an array expected`];
    const element = documented[0];
    return element === undefined ? [] : actual.flatMap((a, i) => shapeMismatches(a, element, `${path}[${i}]`));
  }
  if (documented && typeof documented === "object") {
    if (!actual || typeof actual !== "object" || Array.isArray(actual)) return [`${path}: an object expected`];
    return Object.entries(documented).flatMap(([k, v]) =>
      k in actual ? shapeMismatches((actual as Record<string, unknown>)[k], v, `${path}.${k}`) : [`${path}.${k}: missing`],
    );
  }
  return typeof actual === typeof documented ? [] : [`${path}: ${typeof documented} expected, got ${typeof actual}`];
}

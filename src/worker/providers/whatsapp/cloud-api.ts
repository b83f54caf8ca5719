import { type TemplateComponent, type TemplateRef, templateCategory, type WhatsAppTemplate } from "../../../shared/templates";
import { callProvider, providerTimeoutMs, readJson, retryAfterSeconds } from "../http-call";
import type { SendOutcome } from "../outcome";
import type { WhatsAppProvider } from "./types";

type CloudApiConfig = Pick<Env, "WHATSAPP_API_BASE" | "WHATSAPP_TOKEN" | "WHATSAPP_PHONE_NUMBER_ID" | "WHATSAPP_BUSINESS_ACCOUNT_ID" | "PROVIDER_TIMEOUT_MS">;

/**
 * Meta's error codes that say "try again later": throttling (4, 80007, 130429, 131048 spam rate,
 * 131056 pair rate) and their side being unwell (1, 2, 131000, 131016, 133004). Anything else, such
 * as 131026 (not on WhatsApp / undeliverable), 131047 (outside the 24-hour window), 132001 (no such
 * template) or 190 (bad token), will fail the same way again.
 */
const RETRYABLE_CODES = new Set([1, 2, 4, 17, 32, 613, 80007, 130429, 131000, 131016, 131048, 131056, 133004]);
/** Never follow more template pages than this: the list is small, a loop in `next` links is not. */
const MAX_TEMPLATE_PAGES = 20;

type GraphError = { error?: { code?: unknown; message?: unknown; error_data?: { details?: unknown } } };

export class CloudApiWhatsApp implements WhatsAppProvider {
  readonly name = "cloud-api";
  readonly sender: string;

  constructor(private readonly config: CloudApiConfig) {
    this.sender = `whatsapp:${config.WHATSAPP_PHONE_NUMBER_ID}`;
  }

  private get base() {
    return this.config.WHATSAPP_API_BASE.replace(/\/$/, "");
  }

  private headers(): Record<string, string> {
    return { Authorization: `Bearer ${this.config.WHATSAPP_TOKEN}`, "Content-Type": "application/json", Accept: "application/json" };
  }

  sendTemplate(to: string, template: TemplateRef, reference?: string): Promise<SendOutcome> {
    return this.send({
      to: to.replace(/^\+/, ""),
      type: "template",
      // The placeholders' values (header and body text parameters), when the template has any.
      template: {
        name: template.name,
        language: { code: template.language },
        ...(template.components && template.components.length > 0 ? { components: template.components } : {}),
      },
      ...(reference ? { biz_opaque_callback_data: reference } : {}),
    });
  }

  sendText(to: string, body: string): Promise<SendOutcome> {
    return this.send({ to: to.replace(/^\+/, ""), type: "text", text: { body } });
  }

  private async send(payload: Record<string, unknown>): Promise<SendOutcome> {
    const call = await callProvider(
      `${this.base}/${encodeURIComponent(this.config.WHATSAPP_PHONE_NUMBER_ID)}/messages`,
      { method: "POST", headers: this.headers(), body: JSON.stringify({ messaging_product: "whatsapp", recipient_type: "individual", ...payload }) },
      providerTimeoutMs(this.config),
    );
    if (!call.ok) return { ok: false, retryable: true, errorCode: call.errorCode, errorMessage: call.errorMessage };
    const { response } = call;
    const body = (await readJson(response)) as ({ messages?: { id?: unknown }[] } & GraphError) | null;
    const id = body?.messages?.[0]?.id;
    if (response.ok && typeof id === "string") return { ok: true, providerId: id };
    const code = typeof body?.error?.code === "number" ? body.error.code : undefined;
    const errorCode = code !== undefined ? String(code) : `http_${response.status}`;
    const details = typeof body?.error?.error_data?.details === "string" ? `: ${body.error.error_data.details}` : "";
    const errorMessage = typeof body?.error?.message === "string" ? `${body.error.message}${details}` : `WhatsApp answered ${response.status}`;
    if (response.status === 429 || response.status >= 500 || (code !== undefined && RETRYABLE_CODES.has(code))) {
      return { ok: false, retryable: true, errorCode, errorMessage, retryAfterSeconds: retryAfterSeconds(response.headers.get("Retry-After")) };
    }
    if (response.ok) return { ok: false, retryable: false, errorCode: "bad_response", errorMessage: "WhatsApp accepted the message without a message id" };
    return { ok: false, retryable: false, errorCode, errorMessage };
  }

  /** GET {base}/{business-account-id}/message_templates, following the paging links. */
  async fetchTemplates(): Promise<WhatsAppTemplate[]> {
    const templates: WhatsAppTemplate[] = [];
    let url: string | undefined =
      `${this.base}/${encodeURIComponent(this.config.WHATSAPP_BUSINESS_ACCOUNT_ID)}/message_templates?limit=100&fields=id,name,language,status,category,components`;
    for (let page = 0; url && page < MAX_TEMPLATE_PAGES; page++) {
      const call = await callProvider(url, { headers: this.headers() }, providerTimeoutMs(this.config));
      if (!call.ok) throw new Error(`WhatsApp template list: ${call.errorMessage}`);
      const body = (await readJson(call.response)) as ({ data?: unknown[]; paging?: { next?: unknown } } & GraphError) | null;
      if (!call.response.ok || !Array.isArray(body?.data)) {
        throw new Error(`WhatsApp template list answered ${call.response.status}${typeof body?.error?.message === "string" ? `: ${body.error.message}` : ""}`);
      }
      for (const raw of body.data) {
        const t = raw as { id?: unknown; name?: unknown; language?: unknown; status?: unknown; category?: unknown; components?: unknown };
        if (typeof t.id !== "string" || typeof t.name !== "string" || typeof t.language !== "string") continue;
        const components = Array.isArray(t.components)
          ? (t.components as Record<string, unknown>[]).map(
              (c): TemplateComponent => ({
                type: String(c.type ?? ""),
                ...(typeof c.format === "string" ? { format: c.format } : {}),
                ...(typeof c.text === "string" ? { text: c.text } : {}),
              }),
            )
          : [];
        templates.push({
          id: t.id,
          name: t.name,
          language: t.language,
          status: typeof t.status === "string" ? t.status : "UNKNOWN",
          category: templateCategory(t.category),
          components,
        });
      }
      url = typeof body.paging?.next === "string" ? this.nextPage(body.paging.next) : undefined;
    }
    return templates;
  }

  /**
   * A `paging.next` link is followed, with our token, only on the Graph API's own origin
   * (WHATSAPP_API_BASE's): any other, or one that is not a URL, fails the list, saying so.
   */
  private nextPage(link: string): string {
    const origin = new URL(this.base).origin;
    let next: URL | null = null;
    try {
      next = new URL(link);
    } catch {
      // Not a URL: refused below.
    }
    if (next?.origin !== origin) {
      throw new Error(`WhatsApp template list: the next page is not on ${origin} (${next?.origin ?? "not a URL"}); not followed`);
    }
    return next.href;
  }
}

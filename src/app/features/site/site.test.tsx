import { act, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import type { ReactNode } from "react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { CONTACT_FORM_CONSENT } from "../../../shared/consent-texts";
import { setLanguage } from "../../i18n";
import { type Call, mockApi } from "../../test/admin-harness";
import { renderRoutes } from "../../test/render";
import ContactPage from "./ContactPage";
import FaqsPage from "./FaqsPage";
import { PrivacyPage, TermsPage } from "./LegalPage";

const site = { path: "/api/status/site", reply: () => ({ body: { supportEmail: "help@example.test" } }) };

function renderPage(element: ReactNode) {
  renderRoutes([{ path: "/", element }], { path: "/" });
}

beforeEach(async () => {
  await setLanguage("en");
});
afterEach(() => vi.unstubAllGlobals());

describe("/privacy", () => {
  it("has the twelve sections, the contact address from configuration, and names the payment and SMS providers", async () => {
    mockApi([site]);
    renderPage(<PrivacyPage />);
    expect(screen.getByRole("heading", { level: 1, name: "Privacy policy" })).toBeInTheDocument();
    const sections = screen.getAllByRole("region");
    expect(sections.map((s) => within(s).getByRole("heading").textContent)).toEqual([
      "1. Information we collect",
      "2. How we use it",
      "3. How we share it",
      "4. Security",
      "5. How long we keep it",
      "6. Cookies and local storage",
      "7. Your rights",
      "8. Third-party services",
      "9. Children under 13",
      "10. International users",
      "11. Changes to this policy",
      "12. Contact",
    ]);
    expect(await screen.findByText(/write to help@example\.test/)).toBeInTheDocument();
    expect(screen.getByText(/processed by Stripe/)).toBeInTheDocument();
    expect(screen.getByText(/sent through Twilio/)).toBeInTheDocument();
    expect(screen.getByText(/not directed at children under 13/)).toBeInTheDocument();
    expect(screen.getByRole("navigation", { name: "On this page" })).toBeInTheDocument();
  });

  it("reads the same in Spanish", async () => {
    mockApi([site]);
    renderPage(<PrivacyPage />);
    await act(() => setLanguage("es"));
    expect(screen.getByRole("heading", { level: 1, name: "Política de privacidad" })).toBeInTheDocument();
    expect(screen.getAllByRole("region")).toHaveLength(12);
    expect(await screen.findByText(/escribe a help@example\.test/)).toBeInTheDocument();
  });
});

describe("/terms", () => {
  it("lists its sections with the contact address", async () => {
    mockApi([site]);
    renderPage(<TermsPage />);
    expect(screen.getByRole("heading", { level: 1, name: "Terms of service" })).toBeInTheDocument();
    expect(screen.getAllByRole("region").length).toBeGreaterThanOrEqual(10);
    expect(await screen.findByText(/write to help@example\.test/)).toBeInTheDocument();
  });
});

describe("/faqs", () => {
  it("answers support hours, web only, filters, payment and the free week, connecting, credentials and cancelling", async () => {
    const user = userEvent.setup();
    renderPage(<FaqsPage />);
    for (const question of [
      "When can I get help?",
      "Is there an app to download?",
      "How do the filters work?",
      "How does payment work?",
      "How do I earn a free week?",
      "How do I connect my delivery account?",
      "Are my credentials safe?",
      "How do I cancel?",
    ])
      expect(screen.getByText(question)).toBeInTheDocument();
    await user.click(screen.getByText("When can I get help?"));
    expect(screen.getByText(/7 am to 10 pm Eastern Time/)).toBeVisible();
    expect(screen.getByRole("link", { name: "Ask us something else" })).toHaveAttribute("href", "/contact");
  });
});

describe("/contact", () => {
  async function fill(user: ReturnType<typeof userEvent.setup>) {
    await user.type(screen.getByLabelText("Your name"), "Ana Ruiz");
    await user.type(screen.getByLabelText("Phone number"), "3055550123");
    await user.type(screen.getByLabelText("Message"), "Do you cover Doral?");
  }

  it("sends the message and confirms it, the phone formatted as typed", async () => {
    const user = userEvent.setup();
    const api = mockApi([site, { method: "POST", path: "/api/contact", reply: () => ({ status: 201, body: { received: true } }) }]);
    renderPage(<ContactPage />);
    expect(await screen.findByRole("link", { name: "help@example.test" })).toHaveAttribute("href", "mailto:help@example.test");
    await fill(user);
    expect(screen.getByLabelText("Phone number")).toHaveValue("+1 (305) 555-0123");
    await user.click(screen.getByRole("button", { name: "Send message" }));
    expect(await screen.findByText("Message received")).toBeInTheDocument();
    expect(screen.getByRole("status")).toHaveTextContent("We'll get back to you at +1 (305) 555-0123");
    const [sent] = api.to("/api/contact", "POST") as Call[];
    expect(sent!.body).toMatchObject({
      name: "Ana Ruiz",
      phoneNumber: "+13055550123",
      message: "Do you cover Doral?",
      app: "flex",
      language: "en",
      website: "",
    });
    expect(sent!.body).not.toHaveProperty("marketingConsent");
    expect(sent!.headers.get("Authorization")).toBeNull();
  });

  it("offers the messaging consent unticked with its exact wording, and sends its version only when ticked", async () => {
    const user = userEvent.setup();
    const api = mockApi([site, { method: "POST", path: "/api/contact", reply: () => ({ status: 201, body: { received: true } }) }]);
    renderPage(<ContactPage />);
    const box = screen.getByRole("checkbox", { name: CONTACT_FORM_CONSENT.en });
    expect(box).not.toBeChecked();
    await fill(user);
    await user.click(box);
    await user.click(screen.getByRole("button", { name: "Send message" }));
    expect(await screen.findByText("Message received")).toBeInTheDocument();
    const [sent] = api.to("/api/contact", "POST") as Call[];
    expect(sent!.body).toMatchObject({ marketingConsent: { version: CONTACT_FORM_CONSENT.version }, language: "en" });
    // The next message starts unticked again.
    await user.click(screen.getByRole("button", { name: "Send another message" }));
    expect(screen.getByRole("checkbox", { name: CONTACT_FORM_CONSENT.en })).not.toBeChecked();
  });

  it("shows the Spanish consent wording in Spanish", async () => {
    await setLanguage("es");
    mockApi([site]);
    renderPage(<ContactPage />);
    expect(screen.getByRole("checkbox", { name: CONTACT_FORM_CONSENT.es })).not.toBeChecked();
    expect(screen.queryByText(CONTACT_FORM_CONSENT.en)).toBeNull();
  });

  it("keeps the honeypot out of reach of people: hidden from screen readers and the tab order", () => {
    mockApi([site]);
    renderPage(<ContactPage />);
    const trap = document.getElementById("contact-website")!;
    expect(trap).toHaveAttribute("tabindex", "-1");
    expect(trap.closest("[aria-hidden='true']")).not.toBeNull();
  });

  it("says what is missing before sending anything", async () => {
    const user = userEvent.setup();
    const api = mockApi([site]);
    renderPage(<ContactPage />);
    await user.click(screen.getByRole("button", { name: "Send message" }));
    expect(screen.getByRole("alert")).toHaveTextContent("Input required fields before continuing");
    expect(api.to("/api/contact", "POST")).toHaveLength(0);
  });

  it("explains the limit when the server says too many", async () => {
    const user = userEvent.setup();
    mockApi([site, { method: "POST", path: "/api/contact", reply: () => ({ status: 429, body: { error: { code: "rate_limited", message: "Too many" } } }) }]);
    renderPage(<ContactPage />);
    await fill(user);
    await user.click(screen.getByRole("button", { name: "Send message" }));
    await waitFor(() => expect(screen.getByRole("alert")).toHaveTextContent("You've sent several messages already"));
  });
});

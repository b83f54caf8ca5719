import { screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { setLanguage } from "../../i18n";
import { ENDPOINT, installPushBrowser, KEYS, uninstallPushBrowser, VAPID_KEY } from "../../test/push-browser";
import { aDriver, renderRoutes, signedIn, stubApi } from "../../test/render";
import type { NotificationSettings } from "./api";
import ProfilePage from "./ProfilePage";

const dana = aDriver();

function settings(over: Partial<NotificationSettings> = {}): NotificationSettings {
  const devices = over.devices ?? 0;
  const fallback = devices > 0 ? "push" : "sms";
  return {
    vapidPublicKey: VAPID_KEY,
    devices,
    channels: { blockWon: null, searchStopped: null, serviceEnding: null },
    effective: { blockWon: fallback, searchStopped: fallback, serviceEnding: fallback },
    smsOptOut: false,
    ...over,
  };
}

function renderProfile() {
  const value = signedIn(dana, { setUser: vi.fn(), signOut: vi.fn(async () => {}) });
  return renderRoutes([{ path: "/profile", Component: ProfilePage }], { path: "/profile", session: value, toaster: true });
}

const section = async () => within((await screen.findByRole("heading", { name: /^(Notifications|Notificaciones)$/ })).parentElement!);

beforeEach(() => setLanguage("en"));
afterEach(() => {
  uninstallPushBrowser();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

describe("the profile's notifications", () => {
  it("shows each event's choice and the default where none is stored, in English and Spanish", async () => {
    stubApi({ "/api/driver/notifications": { body: settings({ devices: 1, channels: { blockWon: null, searchStopped: "sms", serviceEnding: "none" } }) } });
    renderProfile();
    expect(await screen.findByLabelText("A block is won")).toHaveDisplayValue("Push (default)");
    expect(screen.getByLabelText("Searching stops")).toHaveDisplayValue("SMS");
    expect(screen.getByLabelText("Service ends soon")).toHaveDisplayValue("None");
    expect(screen.getByText("1 of your devices gets push notifications.")).toBeInTheDocument();
    await setLanguage("es");
    expect(await screen.findByLabelText("Ganas un bloque")).toHaveDisplayValue("Push (predeterminado)");
    expect(screen.getByLabelText("Se detiene la búsqueda")).toHaveDisplayValue("SMS");
    expect(screen.getByLabelText("Tu servicio está por terminar")).toHaveDisplayValue("Ninguno");
    expect(screen.getByText("1 de tus dispositivos recibe notificaciones push.")).toBeInTheDocument();
  });

  it("shows SMS as the default where the driver has no device", async () => {
    stubApi({ "/api/driver/notifications": { body: settings({ devices: 0 }) } });
    renderProfile();
    for (const label of ["A block is won", "Searching stops", "Service ends soon"])
      expect(await screen.findByLabelText(label)).toHaveDisplayValue("SMS (default)");
  });

  it("saves the choices with PUT /api/driver/notifications, a cleared one as null", async () => {
    const user = userEvent.setup();
    const saved = settings({ channels: { blockWon: "both", searchStopped: null, serviceEnding: "none" } });
    const calls = stubApi({
      "/api/driver/notifications": [{ body: settings({ channels: { blockWon: null, searchStopped: "push", serviceEnding: "none" } }) }, { body: saved }],
    });
    renderProfile();
    await user.selectOptions(await screen.findByLabelText("A block is won"), "both");
    await user.selectOptions(screen.getByLabelText("Searching stops"), "SMS (default)");
    await user.click((await section()).getByRole("button", { name: "Save" }));
    expect(await screen.findByText("Notification settings saved.")).toBeInTheDocument();
    expect(calls.filter((c) => c.method === "PUT")).toEqual([
      { method: "PUT", path: "/api/driver/notifications", body: { channels: { blockWon: "both", searchStopped: null, serviceEnding: "none" } } },
    ]);
    expect(screen.getByLabelText("A block is won")).toHaveDisplayValue("Push and SMS");
  });

  it("says a failed save, in both languages, and Cancel puts back what is stored", async () => {
    const user = userEvent.setup();
    stubApi({
      "/api/driver/notifications": [
        { body: settings() },
        { status: 400, body: { error: { code: "validation_failed", message: "x" } } },
        { status: 503, body: { error: { code: "unavailable", message: "x" } } },
      ],
    });
    renderProfile();
    await user.selectOptions(await screen.findByLabelText("Service ends soon"), "push");
    const form = await section();
    await user.click(form.getByRole("button", { name: "Save" }));
    expect(await form.findByRole("alert")).toHaveTextContent("Couldn't save your notification settings. Try again.");
    await setLanguage("es");
    expect(await form.findByRole("alert")).toHaveTextContent("No se pudo guardar tu configuración de notificaciones. Inténtalo de nuevo.");
    await setLanguage("en");
    await user.click(form.getByRole("button", { name: "Save" }));
    expect(await form.findByRole("alert")).toHaveTextContent("An unexpected error occurred. Please try again later");
    await user.click(form.getByRole("button", { name: "Cancel" }));
    expect(screen.getByLabelText("Service ends soon")).toHaveDisplayValue("SMS (default)");
  });

  it("notes on an SMS choice that no text will be sent to a driver who replied STOP", async () => {
    const user = userEvent.setup();
    stubApi({
      "/api/driver/notifications": { body: settings({ smsOptOut: true, channels: { blockWon: null, searchStopped: "push", serviceEnding: "both" } }) },
    });
    renderProfile();
    const note = /You replied STOP to our texts, so no text will be sent/;
    expect(await screen.findByLabelText("A block is won")).toHaveAccessibleDescription(note);
    expect(screen.getByLabelText("Service ends soon")).toHaveAccessibleDescription(note);
    expect(screen.getByLabelText("Searching stops")).not.toHaveAccessibleDescription(note);
    await user.selectOptions(screen.getByLabelText("A block is won"), "none");
    expect(screen.getByLabelText("A block is won")).not.toHaveAccessibleDescription(note);
    await setLanguage("es");
    expect(await screen.findByLabelText("Tu servicio está por terminar")).toHaveAccessibleDescription(/Respondiste STOP a nuestros mensajes de texto/);
  });

  it("shows an error with Try again when the settings cannot be read", async () => {
    const user = userEvent.setup();
    stubApi({ "/api/driver/notifications": [{ status: 500, body: { error: { code: "internal", message: "x" } } }, { body: settings() }] });
    renderProfile();
    await user.click(await (await section()).findByRole("button", { name: "Try again" }));
    expect(await screen.findByLabelText("A block is won")).toBeInTheDocument();
  });
});

describe("notifications on this device", () => {
  it("asks the browser only on the click, subscribes with the server's key and sends the subscription", async () => {
    const user = userEvent.setup();
    const browser = installPushBrowser();
    const calls = stubApi({
      "/api/driver/notifications": [{ body: settings({ devices: 0 }) }, { body: settings({ devices: 1 }) }],
      "/api/driver/push-subscription": { body: { devices: 1 } },
    });
    renderProfile();
    const button = await screen.findByRole("button", { name: "Get notifications on this device" });
    expect(screen.getByText("This device doesn't get notifications.")).toBeInTheDocument();
    expect(screen.getByLabelText("A block is won")).toHaveDisplayValue("SMS (default)");
    expect(browser.requestPermission).not.toHaveBeenCalled();
    await user.click(button);
    expect(await screen.findByText("This device gets notifications.")).toBeInTheDocument();
    expect(browser.requestPermission).toHaveBeenCalledTimes(1);
    const [options] = browser.subscribe.mock.calls[0] as [PushSubscriptionOptionsInit];
    expect(options.userVisibleOnly).toBe(true);
    expect([...(options.applicationServerKey as Uint8Array)]).toEqual([4, ...Array.from({ length: 64 }, (_, i) => i + 1)]);
    expect(calls.filter((c) => c.path === "/api/driver/push-subscription")).toEqual([
      { method: "PUT", path: "/api/driver/push-subscription", body: { endpoint: ENDPOINT, keys: KEYS } },
    ]);
    expect(await screen.findByText("Notifications are on for this device.")).toBeInTheDocument();
    // A device now: the default follows it.
    expect(screen.getByLabelText("A block is won")).toHaveDisplayValue("Push (default)");
  });

  it("says how to allow notifications when the browser's permission is refused, and sends nothing", async () => {
    const user = userEvent.setup();
    const browser = installPushBrowser({ answer: "denied" });
    const calls = stubApi({ "/api/driver/notifications": { body: settings() } });
    renderProfile();
    await user.click(await screen.findByRole("button", { name: "Get notifications on this device" }));
    expect(await screen.findByText(/Notifications are blocked for this site\. To allow them, open the site's settings/)).toBeInTheDocument();
    expect(screen.queryByRole("button", { name: "Get notifications on this device" })).not.toBeInTheDocument();
    expect(browser.subscribe).not.toHaveBeenCalled();
    expect(calls.filter((c) => c.path === "/api/driver/push-subscription")).toEqual([]);
    await setLanguage("es");
    expect(await screen.findByText(/Las notificaciones de este sitio están bloqueadas/)).toBeInTheDocument();
  });

  it("says so at once when the permission was refused before, without asking", async () => {
    const browser = installPushBrowser({ permission: "denied" });
    stubApi({ "/api/driver/notifications": { body: settings() } });
    renderProfile();
    expect(await screen.findByText(/Notifications are blocked for this site/)).toBeInTheDocument();
    expect(browser.requestPermission).not.toHaveBeenCalled();
  });

  it("says a closed question as such, and lets the driver try again", async () => {
    const user = userEvent.setup();
    installPushBrowser({ answer: "default" });
    stubApi({ "/api/driver/notifications": { body: settings() } });
    renderProfile();
    await user.click(await screen.findByRole("button", { name: "Get notifications on this device" }));
    expect(await (await section()).findByRole("alert")).toHaveTextContent("Notifications weren't allowed. Press the button again and choose Allow.");
    expect(screen.getByRole("button", { name: "Get notifications on this device" })).toBeEnabled();
  });

  it("tells a browser without Web Push (iOS Safari outside an installed app) to add the app to the home screen", async () => {
    stubApi({ "/api/driver/notifications": { body: settings() } });
    renderProfile();
    expect(await screen.findByText(/This browser can't get notifications\. On an iPhone or iPad, add Blockpilot to your home screen/)).toBeInTheDocument();
    expect(screen.queryByRole("button", { name: "Get notifications on this device" })).not.toBeInTheDocument();
    await setLanguage("es");
    expect(await screen.findByText(/En un iPhone o iPad, primero agrega Blockpilot a tu pantalla de inicio/)).toBeInTheDocument();
  });

  it("says to reload when the service worker is not to be had, rather than blaming the browser", async () => {
    installPushBrowser({ serviceWorker: false });
    stubApi({ "/api/driver/notifications": { body: settings() } });
    renderProfile();
    expect(await screen.findByText("Notifications can't be set up in this window right now. Reload the page and try again.")).toBeInTheDocument();
    expect(screen.queryByText(/This browser can't get notifications/)).not.toBeInTheDocument();
  });

  it("ends the browser's subscription when the server refuses it, and says so", async () => {
    const user = userEvent.setup();
    const browser = installPushBrowser();
    vi.spyOn(console, "error").mockImplementation(() => {});
    stubApi({
      "/api/driver/notifications": { body: settings() },
      "/api/driver/push-subscription": { status: 400, body: { error: { code: "bad_request", message: "x" } } },
    });
    renderProfile();
    await user.click(await screen.findByRole("button", { name: "Get notifications on this device" }));
    expect(await (await section()).findByRole("alert")).toHaveTextContent("Couldn't turn on notifications on this device. Try again.");
    expect(browser.subscribe).toHaveBeenCalled();
    expect(browser.current()).toBeNull();
    expect(screen.getByText("This device doesn't get notifications.")).toBeInTheDocument();
  });

  it("shows a subscribed device, sends its subscription again, and turns it off (DELETE, then the browser's unsubscribe)", async () => {
    const user = userEvent.setup();
    const browser = installPushBrowser({ permission: "granted", subscribed: true });
    const subscription = browser.current()!;
    const calls = stubApi({
      "/api/driver/notifications": { body: settings({ devices: 1 }) },
      "/api/driver/push-subscription": [{ body: { devices: 1 } }, { body: { devices: 0 } }],
    });
    renderProfile();
    await user.click(await screen.findByRole("button", { name: "Turn off on this device" }));
    expect(await screen.findByText("This device doesn't get notifications.")).toBeInTheDocument();
    expect(calls.filter((c) => c.path === "/api/driver/push-subscription")).toEqual([
      { method: "PUT", path: "/api/driver/push-subscription", body: { endpoint: ENDPOINT, keys: KEYS } },
      { method: "DELETE", path: "/api/driver/push-subscription", body: { endpoint: ENDPOINT } },
    ]);
    expect(subscription.unsubscribe).toHaveBeenCalledTimes(1);
    expect(browser.requestPermission).not.toHaveBeenCalled();
    expect(await screen.findByText("Notifications are off for this device.")).toBeInTheDocument();
  });
});

describe("deleting the account", () => {
  it("ends this browser's push subscription before signing out", async () => {
    const user = userEvent.setup();
    const browser = installPushBrowser({ permission: "granted", subscribed: true });
    const subscription = browser.current()!;
    stubApi({
      "/api/driver/notifications": { body: settings({ devices: 1 }) },
      "/api/driver/push-subscription": { body: { devices: 1 } },
      "/api/account/delete/start": { body: { method: "password" } },
      "/api/account/delete": { body: { erased: true, alreadyErased: false } },
    });
    const signOut = vi.fn(async () => {
      expect(subscription.unsubscribe).toHaveBeenCalledTimes(1);
    });
    renderRoutes(
      [
        { path: "/", Component: () => <p>Home</p> },
        { path: "/profile", Component: ProfilePage },
      ],
      { path: "/profile", session: signedIn(dana, { signOut }) },
    );
    await screen.findByText("This device gets notifications.");
    await user.click(screen.getByRole("button", { name: "Delete my account…" }));
    await user.type(await screen.findByLabelText("Your password"), "Driver#2026!");
    await user.type(screen.getByLabelText("Type DELETE to confirm"), "DELETE");
    await user.click(screen.getByRole("button", { name: "Delete my account permanently" }));
    expect(await screen.findByText("Home")).toBeInTheDocument();
    expect(signOut).toHaveBeenCalled();
    expect(subscription.unsubscribe).toHaveBeenCalledTimes(1);
    expect(browser.current()).toBeNull();
  });
});

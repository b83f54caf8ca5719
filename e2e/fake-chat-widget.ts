/**
 * A stand-in for the support chat's server (Chatwoot's shape) for the e2e run: its SDK script, an
 * API call and the frame the real widget opens, each on this server's own origin. The script
 * records what the app hands it (window.__chatCalls), so a test can see the widget ran, and it
 * only works if the page's Content-Security-Policy lets this origin's script, call and frame in.
 */
import { createServer, type Server } from "node:http";

const SDK = `(() => {
  const origin = new URL(document.currentScript.src).origin;
  const calls = (window.__chatCalls = window.__chatCalls || []);
  window.$chatwoot = {
    setUser: (id, user) => calls.push(["setUser", id, user]),
    setCustomAttributes: (attributes) => calls.push(["setCustomAttributes", attributes]),
    setLabel: (label) => calls.push(["setLabel", label]),
    reset: () => calls.push(["reset"]),
  };
  fetch(origin + "/api/ping").then((r) => r.json()).then((b) => calls.push(["ping", b.ok]), (e) => calls.push(["ping-failed", String(e)]));
  const frame = document.createElement("iframe");
  frame.src = origin + "/widget";
  frame.title = "Support chat";
  frame.hidden = true;
  frame.onload = () => calls.push(["frame"]);
  document.body.appendChild(frame);
  window.dispatchEvent(new Event("chatwoot:ready"));
})();`;

export type FakeChatWidget = { scriptUrl: string; close: () => Promise<void> };

export async function startFakeChatWidget(port: number, host = "127.0.0.1"): Promise<FakeChatWidget> {
  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? "/", `http://${host}`).pathname;
    if (path === "/packs/js/sdk.js") {
      res.writeHead(200, { "Content-Type": "text/javascript" });
      res.end(SDK);
    } else if (path === "/api/ping") {
      res.writeHead(200, { "Content-Type": "application/json", "Access-Control-Allow-Origin": "*" });
      res.end(JSON.stringify({ ok: true }));
    } else if (path === "/widget") {
      res.writeHead(200, { "Content-Type": "text/html" });
      res.end("<!doctype html><title>Support chat</title><p>Chat</p>");
    } else {
      res.writeHead(404);
      res.end();
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, resolve);
  });
  return {
    scriptUrl: `http://${host}:${port}/packs/js/sdk.js`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

// e2e/run.ts runs it as a process of its own (its own event loop stays blocked while the tests run).
if (import.meta.url === `file://${process.argv[1]}`) {
  const portArg = process.argv.indexOf("--port");
  const widget = await startFakeChatWidget(Number(process.argv[portArg + 1]));
  console.log(`fake chat widget at ${widget.scriptUrl}`);
}

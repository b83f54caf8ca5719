/**
 * What the fake servers (test/fake-platform, test/fake-provider, test/fake-stripe) share: reading
 * a request, answering JSON, the per-test tenant prefix, and listening and closing. Plain Node
 * (type stripping only), like the servers.
 */
import type { IncomingMessage, Server, ServerResponse } from "node:http";

export async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

/** A JSON object body; null for anything else (not JSON, an array, a bare value). An empty body is {}. */
export async function readJson(req: IncomingMessage): Promise<Record<string, unknown> | null> {
  try {
    const parsed = JSON.parse((await readBody(req)) || "{}") as unknown;
    return parsed && typeof parsed === "object" && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

export function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}, onSent?: () => void) {
  res.writeHead(status, { "Content-Type": "application/json", ...headers });
  res.end(JSON.stringify(body), onSent);
}

/**
 * A path under `/t/<name>/…` belongs to that tenant (one test's own world, so tests never see each
 * other's configuration or faults); any other path to "default". `prefix` is what to put back in
 * front of URLs the fake hands out.
 */
export function tenantPath(pathname: string): { tenant: string; path: string; prefix: string } {
  const prefixed = /^\/t\/([\w-]+)(\/.*)$/.exec(pathname);
  return prefixed ? { tenant: prefixed[1]!, path: prefixed[2]!, prefix: `/t/${prefixed[1]}` } : { tenant: "default", path: pathname, prefix: "" };
}

/**
 * Listens (port 0: any free one) and answers the URL and port, and `close`, which ends `held`
 * answers (requests a fault left hanging) and kept-alive connections so the process can exit.
 */
export async function listen(server: Server, port: number, host: string, held: Iterable<ServerResponse> = []) {
  await new Promise<void>((resolve) => server.listen(port, host, resolve));
  const address = server.address();
  const actualPort = typeof address === "object" && address ? address.port : port;
  return {
    url: `http://${host}:${actualPort}`,
    port: actualPort,
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of held) res.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

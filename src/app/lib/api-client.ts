/**
 * The one way the SPA calls the API. It returns data or throws ApiClientError carrying the
 * envelope's code and message; it never shows toasts or redirects (the screens decide).
 * The session module registers how to get a fresh ID token (refreshing first when expired).
 */
export class ApiClientError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = "ApiClientError";
  }
}

type TokenSource = () => Promise<string | null>;
let tokenSource: TokenSource = async () => null;

/** Called by the session module; every request asks it for a current ID token. */
export function setTokenSource(source: TokenSource) {
  tokenSource = source;
}

export type Query = Record<string, string | number | boolean | null | undefined | (string | number)[]>;

export function toSearchParams(query: Query = {}): URLSearchParams {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === null || value === "") continue;
    if (Array.isArray(value)) for (const v of value) params.append(key, String(v));
    else params.set(key, String(value));
  }
  return params;
}

export type RequestOptions = { query?: Query; body?: unknown; signal?: AbortSignal; auth?: boolean; headers?: Record<string, string> };

export async function apiRequest<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
  const headers: Record<string, string> = { Accept: "application/json", ...options.headers };
  if (options.body !== undefined) headers["Content-Type"] = "application/json";
  if (options.auth !== false) {
    const token = await tokenSource();
    if (token) headers.Authorization = `Bearer ${token}`;
  }
  const qs = toSearchParams(options.query).toString();
  let res: Response;
  try {
    res = await fetch(`${path}${qs ? `?${qs}` : ""}`, {
      method,
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      signal: options.signal,
    });
  } catch (err) {
    if (err instanceof DOMException && err.name === "AbortError") throw err;
    throw new ApiClientError(0, "network_error", "Network error: check your connection");
  }
  const text = await res.text();
  let data: unknown;
  if (text) {
    try {
      data = JSON.parse(text);
    } catch {
      data = text;
    }
  }
  if (!res.ok) {
    const envelope = (data as { error?: { code?: string; message?: string; details?: unknown } } | undefined)?.error;
    throw new ApiClientError(res.status, envelope?.code ?? "http_error", envelope?.message ?? `Request failed (${res.status})`, envelope?.details);
  }
  return data as T;
}

export const api = {
  get: <T>(path: string, options?: Omit<RequestOptions, "body">) => apiRequest<T>("GET", path, options),
  post: <T>(path: string, body?: unknown, options?: RequestOptions) => apiRequest<T>("POST", path, { ...options, body }),
  patch: <T>(path: string, body?: unknown, options?: RequestOptions) => apiRequest<T>("PATCH", path, { ...options, body }),
  put: <T>(path: string, body?: unknown, options?: RequestOptions) => apiRequest<T>("PUT", path, { ...options, body }),
  delete: <T>(path: string, options?: RequestOptions) => apiRequest<T>("DELETE", path, options),
};

/** SWR's fetcher: the key is a path or [path, query]. */
export function swrFetcher<T>(key: string | [string, Query]): Promise<T> {
  return Array.isArray(key) ? api.get<T>(key[0], { query: key[1] }) : api.get<T>(key);
}

/** A file the API answers (a CSV export), fetched with the session like any call; errors as for apiRequest. */
export async function apiDownload(path: string, query: Query = {}): Promise<{ blob: Blob; filename: string }> {
  const token = await tokenSource();
  const qs = toSearchParams(query).toString();
  let res: Response;
  try {
    res = await fetch(`${path}${qs ? `?${qs}` : ""}`, { headers: token ? { Authorization: `Bearer ${token}` } : {} });
  } catch {
    throw new ApiClientError(0, "network_error", "Network error: check your connection");
  }
  if (!res.ok) {
    const envelope = ((await res.json().catch(() => null)) as { error?: { code?: string; message?: string } } | null)?.error;
    throw new ApiClientError(res.status, envelope?.code ?? "http_error", envelope?.message ?? `Request failed (${res.status})`);
  }
  const filename = /filename="([^"]+)"/.exec(res.headers.get("Content-Disposition") ?? "")?.[1] ?? "export.csv";
  return { blob: await res.blob(), filename };
}

/** Hands a downloaded file to the browser as a download. */
export function saveFile({ blob, filename }: { blob: Blob; filename: string }) {
  const url = URL.createObjectURL(blob);
  const a = document.createElement("a");
  a.href = url;
  a.download = filename;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

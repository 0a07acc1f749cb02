// The one API client: every request goes through apiGet, which adds the token and turns the
// server's error JSON ({"detail","code","errors"}) into an ApiError with a readable message.
import type { components } from "./schema.gen";
import { getToken } from "../lib/token";

export type Schemas = components["schemas"];

export type QueryValue = string | number | boolean | null | undefined | readonly string[];
export type Query = Record<string, QueryValue>;

export class ApiError extends Error {
  readonly status: number;
  readonly code: string | null;
  readonly fields: { field: string; message: string }[];

  constructor(status: number, message: string, code: string | null = null, fields: { field: string; message: string }[] = []) {
    super(message);
    this.name = "ApiError";
    this.status = status;
    this.code = code;
    this.fields = fields;
  }

  get needsToken(): boolean {
    return this.status === 401 || this.status === 403;
  }
}

export const API_BASE = "/api/v1";

/** A query string in the API's own names; arrays become repeated parameters, empty values vanish. */
export function toSearch(query: Query): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === null || value === "") continue;
    if (Array.isArray(value)) {
      for (const item of value as readonly string[]) if (item !== "") params.append(key, item);
    } else {
      params.append(key, String(value));
    }
  }
  const text = params.toString();
  return text ? `?${text}` : "";
}

export function apiUrl(path: string, query: Query = {}): string {
  return `${API_BASE}${path}${toSearch(query)}`;
}

function authHeaders(): Record<string, string> {
  const token = getToken();
  return token ? { Authorization: `Bearer ${token}` } : {};
}

async function errorFrom(response: Response): Promise<ApiError> {
  let body: unknown = null;
  try {
    body = await response.json();
  } catch {
    // not JSON: a proxy's HTML page, say
  }
  if (body && typeof body === "object") {
    const b = body as { detail?: unknown; code?: unknown; errors?: unknown };
    const fields = Array.isArray(b.errors)
      ? (b.errors as { field?: unknown; message?: unknown }[]).map((e) => ({ field: String(e.field ?? ""), message: String(e.message ?? "") }))
      : [];
    const detail = typeof b.detail === "string" ? b.detail : `${response.status} ${response.statusText}`;
    return new ApiError(response.status, detail, typeof b.code === "string" ? b.code : null, fields);
  }
  return new ApiError(response.status, `The server answered ${response.status} ${response.statusText}`.trim());
}

/** The body of a response, or the ApiError it stands for. */
export async function readResponse<T>(response: Response): Promise<T> {
  if (!response.ok) throw await errorFrom(response);
  return (await response.json()) as T;
}

export async function apiGet<T>(path: string, query: Query = {}, signal?: AbortSignal): Promise<T> {
  let response: Response;
  try {
    response = await fetch(apiUrl(path, query), { headers: { Accept: "application/json", ...authHeaders() }, signal });
  } catch (exc) {
    if (exc instanceof DOMException && exc.name === "AbortError") throw exc;
    throw new ApiError(0, "The PerfAtlas server does not answer. Is `perfatlas serve` (or `make up`) running?");
  }
  if (!response.ok) throw await errorFrom(response);
  return (await response.json()) as T;
}

/** A write (POST, PUT, PATCH, DELETE) with a JSON body; resolves to the answer's body, or null for 204. */
export async function apiSend<T>(method: "POST" | "PUT" | "PATCH" | "DELETE", path: string, body?: unknown): Promise<T> {
  let response: Response;
  try {
    response = await fetch(apiUrl(path), {
      method,
      headers: { Accept: "application/json", ...(body === undefined ? {} : { "Content-Type": "application/json" }), ...authHeaders() },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new ApiError(0, "The PerfAtlas server does not answer. Is `perfatlas serve` (or `make up`) running?");
  }
  if (!response.ok) throw await errorFrom(response);
  if (response.status === 204) return null as T;
  return (await response.json()) as T;
}

/** Download a CSV export with the token (a plain link could not send the Authorization header). */
export async function downloadCsv(path: string, query: Query, filename: string): Promise<void> {
  return downloadFile(apiUrl(path, query), filename);
}

/** Save what an API address (as the server gives it, /api/v1/...) answers, fetched with the token. */
export async function downloadFile(url: string, filename: string): Promise<void> {
  const response = await fetch(url, { headers: authHeaders() });
  if (!response.ok) throw await errorFrom(response);
  const blob = await response.blob();
  const href = URL.createObjectURL(blob);
  const a = document.createElement("a");
  a.href = href;
  a.download = filename;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(href), 1000);
}

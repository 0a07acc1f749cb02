// The one API client, typed by the OpenAPI document (schema.gen.ts, `make typegen`): a request
// names its route as the document does ("/alerts/{alert_id}"), and its path parameters, query,
// body and answer take their types from there. Every request adds the token and turns the
// server's error JSON ({"detail","code","errors"}) into an ApiError with a readable message.
import type { components, paths } from "./schema.gen";
import { getToken } from "../lib/token";

export type Schemas = components["schemas"];

export const API_BASE = "/api/v1";

/** The routes under API_BASE, by their path after it ("/alerts/{alert_id}"). */
type Routes = { [P in keyof paths as P extends `${typeof API_BASE}${infer R}` ? R : never]: paths[P] };
export type ApiPath = keyof Routes;
type Method = "get" | "post" | "put" | "patch" | "delete";
export type WriteMethod = "POST" | "PUT" | "PATCH" | "DELETE";

/** The routes that answer `method`. */
export type PathsFor<M extends Method> = { [P in ApiPath]: Routes[P][M] extends { responses: unknown } ? P : never }[ApiPath];
type Operation<P extends ApiPath, M extends Method> = Routes[P][M];

type ParamsOf<O> = O extends { parameters: infer X } ? X : never;
type PathParams<O> = ParamsOf<O> extends { path: infer X } ? X : never;
/** A request's query parameters, in the API's names and types. */
export type QueryOf<O> = NonNullable<ParamsOf<O> extends { query?: infer Q } ? Q : never>;
type JsonBody<O> = O extends { requestBody?: { content: { "application/json": infer B } } } ? B : never;
type Nullable<T> = { [K in keyof T]-?: null extends T[K] ? K : never }[keyof T];
/** A body as a request may send it: a field the server lets be null (its default) may be left out. */
export type RequestBody<B> = B extends object ? Omit<B, Nullable<B>> & Partial<Pick<B, Nullable<B>>> : B;
/** What an operation answers on success; null for 204 No Content. */
type Answer<O> = O extends { responses: infer R }
  ? {
      [S in keyof R]: S extends 200 | 201 | 202 ? (R[S] extends { content: { "application/json": infer J } } ? J : null) : S extends 204 ? null : never;
    }[keyof R]
  : never;

/** An operation's request, answer and parts, for code that names them (`ApiQuery<"/runs">`). */
export type ApiQuery<P extends PathsFor<"get">> = QueryOf<Operation<P, "get">>;
export type ApiBody<P extends ApiPath, M extends Lowercase<WriteMethod>> = RequestBody<JsonBody<Operation<P, M>>>;
export type ApiAnswer<P extends ApiPath, M extends Method = "get"> = Answer<Operation<P, M>>;

type IsNever<T> = [T] extends [never] ? true : false;
type PathPart<O> = IsNever<PathParams<O>> extends true ? { path?: undefined } : { path: PathParams<O> };
type QueryPart<O> = IsNever<QueryOf<O>> extends true ? { query?: undefined } : object extends QueryOf<O> ? { query?: QueryOf<O> } : { query: QueryOf<O> };
type BodyPart<O> =
  IsNever<JsonBody<O>> extends true
    ? { body?: undefined }
    : O extends { requestBody: unknown }
      ? { body: RequestBody<JsonBody<O>> }
      : { body?: RequestBody<JsonBody<O>> };
/** What a request of `O` sends: path parameters, query and body, each when the operation has one. */
export type RequestOf<O> = PathPart<O> & QueryPart<O> & BodyPart<O> & { signal?: AbortSignal };
/** The options are left out when nothing in them is required. */
type Args<O> = object extends RequestOf<O> ? [request?: RequestOf<O>] : [request: RequestOf<O>];

export type QueryValue = string | number | boolean | null | undefined | readonly (string | number | boolean)[];
export type Query = { readonly [key: string]: QueryValue };

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

/** A query string in the API's own names; arrays become repeated parameters, empty values vanish. */
export function toSearch(query: Query): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === null || value === "") continue;
    if (Array.isArray(value)) {
      for (const item of value as readonly (string | number | boolean)[]) if (item !== "") params.append(key, String(item));
    } else {
      params.append(key, String(value));
    }
  }
  const text = params.toString();
  return text ? `?${text}` : "";
}

/** "/runs/{run_uuid}" with its parameters filled in (each URL-encoded). */
function fillPath(path: string, params: object | undefined): string {
  const values = (params ?? {}) as Record<string, string | number>;
  return path.replace(/\{(\w+)\}/g, (_, name: string) => {
    if (!(name in values)) throw new Error(`${path}: no value for {${name}}`);
    return encodeURIComponent(String(values[name]));
  });
}

/** The address of a GET: API_BASE, the route with its path parameters, the query string. */
export function apiUrl<P extends PathsFor<"get">>(path: P, ...[request]: Args<Operation<P, "get">>): string {
  const r = request as { path?: object; query?: Query } | undefined;
  return `${API_BASE}${fillPath(path, r?.path)}${toSearch(r?.query ?? {})}`;
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

const NO_SERVER = "The PerfAtlas server does not answer. Is `perfatlas serve` (or `make up`) running?";

/** A GET of `path` ("/series/{series_id}/points"): its answer, or the ApiError it stands for. */
export async function apiGet<P extends PathsFor<"get">>(path: P, ...args: Args<Operation<P, "get">>): Promise<ApiAnswer<P>> {
  const signal = (args[0] as { signal?: AbortSignal } | undefined)?.signal;
  let response: Response;
  try {
    response = await fetch(apiUrl(path, ...args), { headers: { Accept: "application/json", ...authHeaders() }, signal });
  } catch (exc) {
    if (exc instanceof DOMException && exc.name === "AbortError") throw exc;
    throw new ApiError(0, NO_SERVER);
  }
  if (!response.ok) throw await errorFrom(response);
  return (await response.json()) as ApiAnswer<P>;
}

/** A write (POST, PUT, PATCH, DELETE) with its JSON body, if any; resolves to the answer's body,
 * or null for 204. */
export async function apiSend<M extends WriteMethod, P extends PathsFor<Lowercase<M>>>(
  method: M,
  path: P,
  ...[request]: Args<Operation<P, Lowercase<M>>>
): Promise<Answer<Operation<P, Lowercase<M>>>> {
  const r = request as { path?: object; query?: Query; body?: unknown; signal?: AbortSignal } | undefined;
  const body = r?.body;
  let response: Response;
  try {
    response = await fetch(`${API_BASE}${fillPath(path, r?.path)}${toSearch(r?.query ?? {})}`, {
      method,
      headers: { Accept: "application/json", ...(body === undefined ? {} : { "Content-Type": "application/json" }), ...authHeaders() },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: r?.signal,
    });
  } catch (exc) {
    if (exc instanceof DOMException && exc.name === "AbortError") throw exc;
    throw new ApiError(0, NO_SERVER);
  }
  if (!response.ok) throw await errorFrom(response);
  if (response.status === 204) return null as Answer<Operation<P, Lowercase<M>>>;
  return (await response.json()) as Answer<Operation<P, Lowercase<M>>>;
}

/** Save what an API address (as the server gives it, /api/v1/..., or as apiUrl builds it) answers,
 * fetched with the token: a plain link could not send the Authorization header. */
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

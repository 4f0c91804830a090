/**
 * Local validation (A1, A3, A9, B1–B4, D2, H1): pure checks that throw a typed error BEFORE anything
 * is sent. None of them ever puts the token into a message (A4).
 */
import type { OperationMeta } from "../generated/operations";
import {
  InsecureTransportError,
  InvalidArgumentError,
  InvalidOptionsError,
  InvalidTokenError,
  LiveOnlyError,
} from "./errors";

const TOKEN_RE = /^rsl_(test|live)_([A-Za-z0-9]{24})\.([A-Za-z0-9_-]{64})$/;
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const LOOPBACK_HOSTS = new Set(["127.0.0.1", "localhost", "::1", "[::1]"]);
/** Every operation path in the spec is relative to this base path. */
const API_BASE_PATH = "/api/reseller/v1";

export interface ParsedToken {
  environment: "test" | "live";
  /** The 24-character public key id — safe to log and journal (never the secret). */
  publicKeyId: string;
  /** The secret part; used only to redact it anywhere it might echo back. */
  secret: string;
}

/** A3: `rsl_(test|live)_{24 alnum}.{64 base64url}`. */
export function parseToken(token: unknown): ParsedToken {
  if (typeof token !== "string" || token.length === 0) {
    throw new InvalidTokenError("A reseller API token is required (A3: a reseller key, rsl_test_… or rsl_live_…).");
  }
  const m = TOKEN_RE.exec(token);
  if (!m) {
    // A4: describe the expected shape only; never echo the value or its length.
    throw new InvalidTokenError(
      "The token is not a reseller API key (A3: the key format): expected rsl_test_|rsl_live_ + 24 letters/digits + '.' + 64 base64url characters. A dashboard key is not a reseller key.",
    );
  }
  return { environment: m[1] as "test" | "live", publicKeyId: m[2], secret: m[3] };
}

/**
 * A1/A4: HTTPS, except loopback hosts or an explicit opt-in; and the path must end with the API base
 * path, or every call would reach a route the server does not have (a bare 404) — refused, not
 * guessed, because a gateway may mount the API under a prefix of its own.
 */
export function checkBaseUrl(baseUrl: unknown, allowInsecureHttp: boolean): URL {
  const example = `e.g. https://reseller.example.kz${API_BASE_PATH}`;
  // A missing or unparsable baseUrl is a configuration mistake (often an unset environment
  // variable), not a transport choice: InvalidOptionsError names the option.
  if (typeof baseUrl !== "string" || baseUrl.trim() === "") {
    throw new InvalidOptionsError(
      `baseUrl is required: the API's https:// origin followed by ${API_BASE_PATH}, ${example} (got ${baseUrl === "" ? "an empty string" : typeof baseUrl}).`,
      "baseUrl",
    );
  }
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new InvalidOptionsError(
      `baseUrl is not an absolute URL: give the scheme and host too, an https:// URL ending in ${API_BASE_PATH}, ${example}.`,
      "baseUrl",
    );
  }
  if (!(
    url.protocol === "https:" ||
    (url.protocol === "http:" && (LOOPBACK_HOSTS.has(url.hostname) || allowInsecureHttp))
  )) {
    throw new InsecureTransportError(
      `baseUrl must use https:// (A1: the API is HTTPS only): the token would travel in clear text to ${url.host}. Only loopback hosts may use http:// unless allowInsecureHttp is set.`,
    );
  }
  const path = url.pathname.replace(/\/+$/, "");
  // H2/A4: credentials never travel in a URL (a proxy, a log or an error would print them). The
  // message names what to remove and echoes nothing of the userinfo, the query or the fragment.
  if (url.username !== "" || url.password !== "") {
    throw new InvalidOptionsError(
      `baseUrl must not carry a user name or password (user:secret@): the API authenticates with the token only. Use ${url.protocol}//${url.host}${path}.`,
      "baseUrl",
    );
  }
  if (url.search !== "" || url.hash !== "" || /[?#]/.test(baseUrl)) {
    throw new InvalidOptionsError(
      `baseUrl must not have a query string or a fragment (nothing after "?" or "#" is sent or kept; a token there would leak into logs): use ${suggestedBase(url.origin, path)}.`,
      "baseUrl",
    );
  }
  if (!path.endsWith(API_BASE_PATH)) {
    throw new InvalidOptionsError(
      `baseUrl must end with the API base path ${API_BASE_PATH} (got "${url.pathname}"), or every call reaches a route the server does not have: use ${suggestedBase(url.origin, path)}.`,
      "baseUrl",
    );
  }
  return url;
}

/**
 * The base URL the message suggests: the path up to where the API base path starts or was cut short
 * (`/api`, `/api/reseller`, another version), then the base path; a gateway's own prefix is kept.
 */
function suggestedBase(origin: string, path: string): string {
  if (path.endsWith(API_BASE_PATH)) return origin + path;
  const segments = API_BASE_PATH.split("/").filter(Boolean); // api, reseller, v1
  const family = `/${segments.slice(0, -1).join("/")}/`; // "/api/reseller/": another version after it
  const at = path.indexOf(family);
  if (at >= 0) return origin + path.slice(0, at) + API_BASE_PATH;
  const root = `/${segments[0]}/`; // "/api/": another API or version after it (…/api/v2)
  const r = path.lastIndexOf(root);
  if (r >= 0) return origin + path.slice(0, r) + API_BASE_PATH;
  for (let n = segments.length - 1; n > 0; n--) {
    const cut = `/${segments.slice(0, n).join("/")}`;
    if (path.endsWith(cut)) return origin + path.slice(0, -cut.length) + API_BASE_PATH;
  }
  return origin + path + API_BASE_PATH;
}

/** D2: trimmed, 1..160 characters. Returns the trimmed key. */
export function validateIdempotencyKey(key: unknown): string {
  if (typeof key !== "string")
    throw new InvalidArgumentError(
      "idempotencyKey must be a string (D2: your own id of the command).",
      "idempotencyKey",
    );
  const trimmed = key.trim();
  if (trimmed.length < 1 || trimmed.length > 160) {
    throw new InvalidArgumentError(
      `idempotencyKey must be 1..160 characters after trimming (D2: the Idempotency-Key format); got ${trimmed.length}.`,
      "idempotencyKey",
    );
  }
  // D2: it travels as an HTTP header value — printable ASCII only (no line break, no Cyrillic). The
  // key itself is not echoed: it may carry an order's data.
  const bad = /[^\x20-\x7e]/.exec(trimmed);
  if (bad) {
    const code = bad[0].charCodeAt(0);
    const what =
      code < 0x20 || code === 0x7f
        ? `a control character (U+${code.toString(16).padStart(4, "0").toUpperCase()})`
        : "a non-ASCII character";
    throw new InvalidArgumentError(
      `idempotencyKey has ${what} at position ${bad.index + 1}: it is sent as the Idempotency-Key header, so it must be printable ASCII (D2) — use a UUID or your own id of letters, digits and - _ . :`,
      "idempotencyKey",
    );
  }
  return trimmed;
}

/** A9: every path parameter is a UUID exactly as the API returned it. */
export function validatePathParams(op: OperationMeta, path: Record<string, unknown> | undefined): void {
  for (const name of op.pathParams) {
    const value = path?.[name];
    if (typeof value !== "string" || !UUID_RE.test(value)) {
      throw new InvalidArgumentError(
        `${name} must be a UUID exactly as the API returned it (A9: ids are UUIDs); ${op.operationId} would answer ${
          op.malformedUuidStatus ?? 422
        } to a malformed one.`,
        name,
        op.malformedUuidStatus ?? undefined,
      );
    }
  }
}

/** H1: per_page is an integer 1..100 when given. */
export function validateQuery(op: OperationMeta, query: Record<string, unknown> | undefined): void {
  if (!query) return;
  const perPage = query.per_page;
  if (perPage !== undefined && perPage !== null) {
    const n = typeof perPage === "string" && /^\d+$/.test(perPage) ? Number(perPage) : perPage;
    if (typeof n !== "number" || !Number.isInteger(n) || n < 1 || n > 100) {
      throw new InvalidArgumentError("per_page must be an integer 1..100 (H1: pagination limits).", "per_page");
    }
  }
  if (query.cursor !== undefined && query.cursor !== null && typeof query.cursor !== "string") {
    throw new InvalidArgumentError(
      "cursor must be the opaque string from meta.next_cursor (H1: cursor pagination).",
      "cursor",
    );
  }
  for (const name of Object.keys(query)) {
    if (!op.queryParams.includes(name)) {
      throw new InvalidArgumentError(`${op.operationId} has no query parameter ${name}.`, name);
    }
  }
}

/** B1–B4: a test key never reaches a live-only handler unless explicitly overridden. */
export function checkLiveOnly(op: OperationMeta, environment: "test" | "live", override: boolean): void {
  if (op.liveOnly && environment === "test" && !override) throw new LiveOnlyError(op.operationId);
}

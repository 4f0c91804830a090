/**
 * Redaction (A4, D9, H2): the token, `signing_secret`, `auth_code` and every `x-sensitive-fields`
 * value become "[REDACTED]" before anything reaches an event, an error, a snippet or the journal.
 * Pure; the caller's own Outcome data is NOT redacted (they asked for the secret).
 */
import { operationList } from "../generated/operations";

const REDACTED = "[REDACTED]";

/** Field names that are secrets wherever they appear (union of every op's x-sensitive-fields). */
const SENSITIVE_KEYS: ReadonlySet<string> = new Set([
  "authorization",
  "token",
  "signing_secret",
  "auth_code",
  ...operationList.flatMap((op) => op.sensitiveFields.map((f) => f.toLowerCase())),
]);

const TOKEN_RE = /rsl_(?:test|live)_[A-Za-z0-9]{24}\.[A-Za-z0-9_-]{1,64}/g;
const WHSEC_RE = /whsec_[A-Za-z0-9_-]+/g;
const BEARER_RE = /Bearer\s+[^\s"',;]+/gi;
/** A URL inside free text (an error message quoting its request): redacted like every URL (redactUrl). */
const URL_IN_TEXT_RE = /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>]+/gi;

function sensitiveKeyPattern(): RegExp {
  const names = [...SENSITIVE_KEYS].map((k) => k.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|");
  // `"auth_code": "…"` — also a truncated value with no closing quote (E5 truncated bodies).
  return new RegExp(`("(?:${names})"\\s*:\\s*)"(?:[^"\\\\]|\\\\.)*"?`, "gi");
}
const KEY_VALUE_RE = sensitiveKeyPattern();

/** Nesting below this depth is replaced, never walked (no API body nests anywhere near it). */
const MAX_DEPTH = 64;

export interface Redactor {
  /** Redacts secrets inside free text (snippets, messages). */
  text(input: string): string;
  /** Deep copy of `input` with sensitive fields and secret substrings redacted. */
  value<T>(input: T): T;
}

/**
 * @param secrets literal strings that must never appear (the token and its secret part).
 * @param extraKeys extra sensitive field names (an op's x-sensitive-fields).
 */
export function createRedactor(secrets: readonly string[] = [], extraKeys: readonly string[] = []): Redactor {
  const literals = secrets.filter((s) => s.length >= 8);
  const keys = new Set([...SENSITIVE_KEYS, ...extraKeys.map((k) => k.toLowerCase())]);

  const text = (input: string): string => {
    let out = input;
    for (const s of literals) if (out.includes(s)) out = out.split(s).join(REDACTED);
    return out
      .replace(TOKEN_RE, REDACTED)
      .replace(WHSEC_RE, REDACTED)
      .replace(BEARER_RE, `Bearer ${REDACTED}`)
      .replace(KEY_VALUE_RE, `$1"${REDACTED}"`)
      .replace(URL_IN_TEXT_RE, (url) => (/[@?#]/.test(url) ? redactUrl(url) : url));
  };

  const walk = (input: unknown, seen: WeakSet<object>, depth: number): unknown => {
    if (typeof input === "string") return text(input);
    if (input === null || typeof input !== "object") return input;
    if (seen.has(input)) return "[Circular]";
    // A hostile body nested thousands deep must not overflow the stack (a RangeError mid-purchase).
    if (depth >= MAX_DEPTH) return "[Too deep]";
    seen.add(input);
    if (input instanceof Uint8Array) return `[${input.byteLength} bytes]`;
    if (input instanceof Error) {
      return { name: input.name, message: text(input.message) };
    }
    if (Array.isArray(input)) return input.map((v) => walk(v, seen, depth + 1));
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(input)) {
      out[k] = keys.has(k.toLowerCase()) && v !== null && v !== undefined ? REDACTED : walk(v, seen, depth + 1);
    }
    return out;
  };

  return { text, value: <T>(input: T) => walk(input, new WeakSet(), 0) as T };
}

/** The bounded diagnostic snippet (E5): at most `maxBytes` UTF-8 bytes of redacted text. */
export function snippetOf(bytes: Uint8Array, redactor: Redactor, maxBytes = 2048): string {
  const head = new TextDecoder("utf-8", { fatal: false }).decode(bytes.subarray(0, maxBytes), { stream: true });
  let out = redactor.text(head);
  const enc = new TextEncoder();
  while (enc.encode(out).byteLength > maxBytes) out = out.slice(0, Math.max(0, out.length - 16));
  return out;
}

/** Words that make a query parameter's value a secret (H2, A4): `password`, `api_key`, `X-Amz-Signature`… */
const SECRET_WORDS: ReadonlySet<string> = new Set([
  "password",
  "passwd",
  "pass",
  "pwd",
  "token",
  "secret",
  "key",
  "apikey",
  "sig",
  "signature",
  "auth",
  "authorization",
  "credential",
  "credentials",
  "session",
  "sessionid",
  "code",
  "otp",
  "accesstoken",
  "sslkey",
  "sslpassword",
  "sslcert",
  "jwt",
  "bearer",
  "hmac",
  "hash",
]);

/** True when a query parameter's name says its value is a secret: one of its words is one of SECRET_WORDS. */
function isSecretParam(name: string): boolean {
  const lower = name.toLowerCase();
  if (SECRET_WORDS.has(lower.replace(/[^a-z0-9]/g, ""))) return true;
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z0-9]+/);
  return words.some((w) => SECRET_WORDS.has(w));
}

/**
 * An `@` after the authority (in the path, the query or the fragment): the parser split a user name
 * or password holding an unencoded `@`, `/`, `:`, `#` or `?`, so part of it reads as the host, the
 * port or the path (H2) — redactUrl shows nothing of such a URL, and a body holding one is a secret.
 */
function atAfterAuthority(url: URL): boolean {
  return (url.pathname + url.search + url.hash).includes("@");
}

/**
 * H2: does `text` hold a URL that redactUrl would hide something of — a user name or password (also
 * one with an unencoded `@`, `/`, `#` or `?` the parser splits), or a query parameter named like a
 * secret (`?token=`, `?api_key=`)? A request body with one is dropped
 * from the journal once its command is settled, as a body with a marked sensitive field is.
 */
export function containsUrlSecret(text: string): boolean {
  for (const [candidate] of text.matchAll(URL_IN_TEXT_RE)) {
    if (!/[@?]/.test(candidate)) continue;
    let url: URL;
    try {
      url = new URL(candidate);
    } catch {
      // A password holding an unencoded `/`, `#` or `?` breaks the parse (redactUrl keeps only the scheme).
      if (candidate.includes("@")) return true;
      continue;
    }
    if (url.username !== "" || url.password !== "") return true;
    if (atAfterAuthority(url)) return true;
    for (const pair of url.search.slice(1).split("&")) {
      const eq = pair.indexOf("=");
      if (eq < 0) continue;
      let name = pair.slice(0, eq);
      try {
        name = decodeURIComponent(name.replace(/\+/g, " "));
      } catch {
        // a malformed escape: judge the raw name
      }
      if (isSecretParam(name)) return true;
    }
  }
  return false;
}

/**
 * The one redaction of a URL for anything the package prints or throws (H2, A4): the userinfo
 * (`user:secret@`) loses its password and the user name is kept; every query parameter whose name
 * looks like a secret keeps its name with its value replaced; a fragment is dropped. Text that does
 * not parse as a URL is never echoed: only its scheme, if any, is kept. Nor is a URL with an `@`
 * after its authority (in the path, the query or the fragment): a user name or password holding an
 * unencoded `@`, `/`, `:`, `#` or `?` is split by the parser, so part of the password would be read as
 * the host, the port or the path (`postgres://ops:Xy@z:9/Secret@db/j`) — only its scheme is kept.
 */
export function redactUrl(input: string): string {
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(input)?.[1];
    return scheme ? `${scheme.toLowerCase()}://(unparseable URL)` : "(unparseable URL)";
  }
  if (atAfterAuthority(url)) return `${url.protocol}//${REDACTED}`;
  // A lone user name may itself be a token (`https://<token>@host`); next to a password it is kept.
  if (url.password) url.password = REDACTED;
  else if (url.username) url.username = REDACTED;
  url.hash = "";
  if (url.search) {
    // Rebuilt by hand: URLSearchParams would re-encode "[REDACTED]" and reorder nothing else.
    const parts = url.search
      .slice(1)
      .split("&")
      .map((pair) => {
        const eq = pair.indexOf("=");
        const rawName = eq < 0 ? pair : pair.slice(0, eq);
        let name = rawName;
        try {
          name = decodeURIComponent(rawName.replace(/\+/g, " "));
        } catch {
          // a malformed escape: judge the raw name
        }
        return eq >= 0 && isSecretParam(name) ? `${rawName}=${REDACTED}` : pair;
      });
    url.search = "?" + parts.join("&");
  }
  return url.toString().replace(/%5BREDACTED%5D/gi, REDACTED);
}

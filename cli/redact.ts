/**
 * A4: the one place every byte the CLI prints passes through. `main.ts` wraps stdout and stderr
 * before any command runs; whatever a command writes — a result row quoting an input line, a JSON
 * event, a support note, an error message — has the session's token, its 64-character secret part,
 * anything shaped like a reseller token (`rsl_test_…`, `rsl_live_…`) and webhook signing secrets
 * (`whsec_…`) replaced by "[REDACTED]", the marker the package uses everywhere else.
 */
import type { Writable } from "node:stream";
import { redactUrl } from "../src/index";

const REDACTED = "[REDACTED]";

/** A reseller token, or the start of one (a truncated or mistyped token is still a secret). */
const TOKEN_SHAPED = /rsl_(?:test|live)_[A-Za-z0-9]{8,}(?:\.[A-Za-z0-9_-]*)?/gi;
/** A webhook signing secret. */
const WEBHOOK_SECRET = /whsec_[A-Za-z0-9_+/=-]{8,}/g;

/** `Bearer <value>` (a pasted Authorization header). */
const BEARER = /\bBearer\s+(?!\[REDACTED\])[^\s"'\\,;]+/gi;
/**
 * Field names whose value is a secret wherever they appear (the SDK redacts the same ones: the token,
 * `signing_secret`, `auth_code`, passwords, keys).
 */
const SECRET_KEY_NAMES =
  "authorization|token|access_token|refresh_token|api_key|apikey|secret|client_secret|signing_secret|auth_code|authcode|epp_code|password|passwd|pwd|private_key";
const SECRET_KEY = new RegExp(`^(?:${SECRET_KEY_NAMES})$`, "i");
/** `"auth_code": "…"` in JSON text — also JSON inside a JSON string (`\"auth_code\":\"…\"`). */
const SECRET_KEY_VALUE = new RegExp(
  `((\\\\?)"(?:${SECRET_KEY_NAMES})\\2"\\s*:\\s*)\\2"(?:[^"\\\\]|\\\\(?!")|\\\\")*?\\2"`,
  "gi",
);
/**
 * A URL inside printed text: redacted as the SDK redacts every URL (redactUrl: the password of its
 * userinfo, secret-looking query values, the fragment). It stops at a quote or a backslash, so a
 * URL inside a JSON string (or JSON inside a JSON string) is redacted without breaking the JSON.
 */
const URL_IN_TEXT = /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>\\`]+/gi;

/** Token-shaped strings and webhook signing secrets inside free text (a ticket a person wrote). */
export function redactSecretShapes(text: string): string {
  return text
    .replace(TOKEN_SHAPED, REDACTED)
    .replace(WEBHOOK_SECRET, REDACTED)
    .replace(BEARER, `Bearer ${REDACTED}`)
    .replace(SECRET_KEY_VALUE, `$1$2"${REDACTED}$2"`)
    .replace(URL_IN_TEXT, (url) => (/[@?#]/.test(url) ? redactUrl(url) : url));
}

/**
 * A parsed JSON value (a journalled request body) with every secret field's value replaced and every
 * string passed through redactSecretShapes (URLs with a password, `?token=…`, tokens, `whsec_…`).
 */
export function redactValue(value: unknown, depth = 0): unknown {
  if (typeof value === "string") return redactSecretShapes(value);
  if (value === null || typeof value !== "object") return value;
  if (depth > 32) return "[Too deep]";
  if (Array.isArray(value)) return value.map((v) => redactValue(v, depth + 1));
  return Object.fromEntries(
    Object.entries(value as Record<string, unknown>).map(([k, v]) => [
      k,
      SECRET_KEY.test(k) && v !== null && v !== undefined ? REDACTED : redactValue(v, depth + 1),
    ]),
  );
}

/** The secret strings of this process (the token and its secret part), and the text filter. */
export class OutputRedactor {
  private readonly literals = new Set<string>();

  /** Never print `token` (nor its secret part after the dot). */
  addToken(token: string | undefined): void {
    const t = token?.trim();
    if (!t) return;
    this.addLiteral(t);
    const dot = t.lastIndexOf(".");
    if (dot >= 0) this.addLiteral(t.slice(dot + 1));
  }

  private addLiteral(secret: string): void {
    // Short strings would redact ordinary words; a token's parts are far longer.
    if (secret.length >= 16) this.literals.add(secret);
  }

  text(input: string): string {
    let out = input;
    for (const s of this.literals) if (out.includes(s)) out = out.split(s).join(REDACTED);
    return redactSecretShapes(out);
  }

  /**
   * `stream` with every write filtered (strings and buffers alike); everything else — isTTY,
   * columns, drain events, writableNeedDrain — is the stream's own.
   */
  wrap<S extends Writable>(stream: S): S {
    const text = (chunk: unknown): unknown => {
      if (typeof chunk === "string") return this.text(chunk);
      if (chunk instanceof Uint8Array) {
        const s = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength).toString("utf8");
        const r = this.text(s);
        return r === s ? chunk : Buffer.from(r, "utf8");
      }
      return chunk;
    };
    const write = (chunk: unknown, ...rest: unknown[]) =>
      (stream.write as (c: unknown, ...r: unknown[]) => boolean)(text(chunk), ...rest);
    return new Proxy(stream, {
      get(target, prop) {
        if (prop === "write") return write;
        const value: unknown = Reflect.get(target, prop, target);
        return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
  }
}

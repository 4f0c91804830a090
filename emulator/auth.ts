// A2–A7: bearer parsing, key lookup and the general access checks. These run before the rate
// limiter, so a rejection here spends no hit (C6).
import { ApiError } from "./errors";
import type { Translate } from "./i18n";
import type { ApiKey, Reseller, State } from "./state";

/** A3: rsl_{test|live}_{24 letters/digits}.{64 base64url}. */
const TOKEN_RE = /^rsl_(test|live)_([A-Za-z0-9]{24})\.([A-Za-z0-9_-]{64})$/;

export function parseToken(
  token: string,
): { environment: "test" | "live"; publicKeyId: string; secret: string } | null {
  const m = TOKEN_RE.exec(token);
  if (!m) return null;
  return { environment: m[1] as "test" | "live", publicKeyId: m[2], secret: m[3] };
}

export function formatToken(key: ApiKey): string {
  return `rsl_${key.environment}_${key.publicKeyId}.${key.secret}`;
}

/** Constant-time-ish compare; the emulator is a test tool but should not model a timing leak. */
function sameSecret(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

/** A2–A4: a malformed, unknown, revoked or expired token → 401 (never says which). */
export function authenticate(state: State, headers: Headers, tr: Translate): { key: ApiKey; reseller: Reseller } {
  const header = headers.get("authorization") ?? "";
  const m = /^Bearer[ ]+(\S+)\s*$/i.exec(header);
  const parsed = m ? parseToken(m[1]) : null;
  const key = parsed ? state.keys.get(parsed.publicKeyId) : undefined;
  const reseller = key ? state.resellers.get(key.resellerUuid) : undefined;
  if (
    !parsed ||
    !key ||
    !reseller ||
    key.revoked ||
    key.environment !== parsed.environment ||
    !sameSecret(key.secret, parsed.secret) ||
    (key.expiresAt !== null && key.expiresAt <= state.now())
  ) {
    throw new ApiError(401, "unauthenticated", tr("unauthenticated"));
  }
  return { key, reseller };
}

/**
 * A7: API disabled for the reseller (404 everywhere, seed 000: "возможно отключение API"), IP
 * allowlist, API mode, tariff and reseller status. Restricted resellers and read-only keys keep the
 * safe methods only.
 */
export function checkAccess(
  key: ApiKey,
  reseller: Reseller,
  method: string,
  operationId: string,
  remoteAddress: string,
  tr: Translate,
): void {
  if (!reseller.apiEnabled) throw new ApiError(404, "resource_not_found", tr("not_found"));
  if (key.ipAllowlist.length > 0 && !key.ipAllowlist.some((entry) => ipMatches(entry, remoteAddress))) {
    throw new ApiError(403, "forbidden", tr("ip_forbidden"));
  }
  const safe = method === "GET" || method === "HEAD";
  if (key.apiMode === "read_only" && !safe) throw new ApiError(403, "forbidden", tr("api_mode_forbidden"));
  if (key.tariff?.excluded.has(operationId)) throw new ApiError(403, "forbidden", tr("tariff_forbidden"));
  if (reseller.status === "restricted" && !safe) {
    throw new ApiError(403, "forbidden", tr("reseller_restricted"));
  }
}

function normaliseIp(address: string): string {
  const a = address.trim().toLowerCase();
  return a.startsWith("::ffff:") && a.includes(".") ? a.slice(7) : a;
}

function ipv4ToInt(ip: string): number | null {
  const parts = ip.split(".");
  if (parts.length !== 4) return null;
  let n = 0;
  for (const p of parts) {
    if (!/^\d{1,3}$/.test(p) || Number(p) > 255) return null;
    n = n * 256 + Number(p);
  }
  return n;
}

/** Exact address, or an IPv4 CIDR such as 10.0.0.0/8. */
function ipMatches(entry: string, address: string): boolean {
  const ip = normaliseIp(address);
  const [net, bitsText] = entry.trim().toLowerCase().split("/");
  if (bitsText === undefined) return normaliseIp(net) === ip;
  const a = ipv4ToInt(ip);
  const b = ipv4ToInt(net);
  const bits = Number(bitsText);
  if (a === null || b === null || !Number.isInteger(bits) || bits < 0 || bits > 32) return false;
  if (bits === 0) return true;
  const mask = (0xffffffff << (32 - bits)) >>> 0;
  return (a & mask) >>> 0 === (b & mask) >>> 0;
}

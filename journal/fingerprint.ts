/**
 * D4: the request fingerprint the server keeps per Idempotency-Key — SHA-256 over the method, the
 * path with its query (percent-encoding HTTP-normalised) and the exact body bytes. The journal
 * keeps it with every command and compares it, not the body, on a repeat: it survives `prune()`.
 */

const UNRESERVED = /[A-Za-z0-9\-._~]/;

/** RFC 3986 §6.2.2 normalisation: upper-case hex, unreserved characters decoded. */
function normalisePercentEncoding(text: string): string {
  return text.replace(/%([0-9a-fA-F]{2})/g, (_, hex: string) => {
    const ch = String.fromCharCode(parseInt(hex, 16));
    return UNRESERVED.test(ch) ? ch : `%${hex.toUpperCase()}`;
  });
}

/**
 * The bytes the fingerprint hashes: `METHOD \n path+query \n body`. No body and an empty body hash
 * the same, as on the server (the server sees no bytes either way).
 */
export function fingerprintInput(method: string, path: string, query: string, body: Uint8Array | null): Uint8Array {
  const head = new TextEncoder().encode(`${method.toUpperCase()}\n${normalisePercentEncoding(path + query)}\n`);
  const out = new Uint8Array(head.byteLength + (body?.byteLength ?? 0));
  out.set(head, 0);
  if (body) out.set(body, head.byteLength);
  return out;
}

/** Lowercase hex of a digest. */
function toHex(digest: ArrayBuffer | Uint8Array): string {
  const bytes = digest instanceof Uint8Array ? digest : new Uint8Array(digest);
  let out = "";
  for (const b of bytes) out += b.toString(16).padStart(2, "0");
  return out;
}

/**
 * D4: lowercase hex SHA-256 of method + path + query + exact body bytes (WebCrypto, so it runs on
 * every runtime). `path` is the journal's path (relative to the base path), `query` "" or "?…".
 */
export async function commandFingerprint(
  method: string,
  path: string,
  query: string,
  body: Uint8Array | null,
): Promise<string> {
  const input = fingerprintInput(method, path, query, body);
  return toHex(await crypto.subtle.digest("SHA-256", input as Uint8Array<ArrayBuffer>));
}

/** A fingerprint as the journal stores it: 64 lowercase hex digits. */
export function isFingerprint(value: unknown): value is string {
  return typeof value === "string" && /^[0-9a-f]{64}$/.test(value);
}

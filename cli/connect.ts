/**
 * Before the first request of a command: can the API's host be reached at all? One DNS lookup and
 * one TCP (and TLS) handshake with a short connect timeout, separate from the per-request response
 * timeout — so a wrong base URL fails in seconds, named (refused, DNS, TLS, timeout) with the exact
 * host and the fix, instead of a long silent wait for a request nobody receives. Nothing is sent
 * over the probe connection: it is closed as soon as the handshake completes.
 */
import { lookup } from "node:dns/promises";
import { connect as tcpConnect, type Socket } from "node:net";
import { connect as tlsConnect } from "node:tls";
import { ConnectionError, type ConnectionFailure } from "./errors";

const TLS_CODE = /^(?:ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|HOSTNAME_MISMATCH|EPROTO$)/;

/** A TLS handshake answered by a server that speaks no TLS (plain HTTP on that port). */
const PLAIN_HTTP_CODE = /^(?:ERR_SSL_WRONG_VERSION_NUMBER|ERR_SSL_PACKET_LENGTH_TOO_LONG|ERR_SSL_HTTP_REQUEST)$/;

/** The failure kind for a transport error code (Node's `code`, or undici's cause code). */
export function failureOf(code: string | undefined): ConnectionFailure {
  if (!code) return "network";
  if (code === "ECONNREFUSED") return "refused";
  if (code === "ENOTFOUND" || code === "EAI_AGAIN" || code === "EAI_NONAME" || code === "EAI_FAIL") return "dns";
  if (code === "ETIMEDOUT" || code === "UND_ERR_CONNECT_TIMEOUT") return "timeout";
  if (TLS_CODE.test(code)) return "tls";
  return "network";
}

/** What went wrong and what to do, in words (the host is host:port, nothing else of the URL). */
export function connectionMessage(failure: ConnectionFailure, host: string, detail: string, timeoutMs: number): string {
  const fix = "Check RESELLER_API_BASE_URL / --base-url";
  switch (failure) {
    case "refused":
      return `Cannot connect to ${host}: connection refused (nothing listens there). ${fix} (host and port), or start the server; nothing was sent.`;
    case "dns":
      return `Cannot connect to ${host}: the host name does not resolve (DNS ${detail}). ${fix} for a typo, or check this machine's DNS; nothing was sent.`;
    case "tls":
      if (PLAIN_HTTP_CODE.test(detail))
        return `Cannot connect to ${host}: it answered the TLS handshake with plain HTTP — that port serves http://, not https:// (${detail}). ${fix}: the https:// port of the API (usually 443), or http:// only for a server on this machine (a local emulator); nothing was sent.`;
      return `Cannot connect to ${host}: the TLS handshake failed (${detail}). The certificate is not trusted for this name: ${fix}, or give a private CA with NODE_EXTRA_CA_CERTS=ca.pem; nothing was sent.`;
    case "timeout":
      return `Cannot connect to ${host}: no answer to the connection within ${timeoutMs} ms (a firewall, a wrong port, or no route). ${fix}, or raise --connect-timeout; nothing was sent.`;
    default:
      return `Cannot connect to ${host}: ${detail}. ${fix} and this machine's network; nothing was sent.`;
  }
}

function hostOf(url: URL): { hostname: string; port: number; label: string; tls: boolean } {
  const tls = url.protocol === "https:";
  const port = url.port ? Number(url.port) : tls ? 443 : 80;
  const hostname = url.hostname.replace(/^\[|\]$/g, "");
  return { hostname, port, tls, label: `${url.hostname}:${port}` };
}

/**
 * Resolves when `baseUrl`'s host accepts a connection (and, for https, completes a TLS handshake
 * for its name) within `timeoutMs`; else throws ConnectionError naming the cause and the fix.
 */
export async function probeConnection(baseUrl: string, timeoutMs: number): Promise<void> {
  const url = new URL(baseUrl);
  const { hostname, port, tls, label } = hostOf(url);
  const started = Date.now();
  const fail = (failure: ConnectionFailure, detail: string): never => {
    throw new ConnectionError(connectionMessage(failure, label, detail, timeoutMs), failure, label);
  };
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new ConnectionError(connectionMessage("timeout", label, "", timeoutMs), "timeout", label)),
      timeoutMs,
    );
  });
  let socket: Socket | undefined;
  try {
    let address: string;
    try {
      address = (await Promise.race([lookup(hostname), deadline])).address;
    } catch (error) {
      if (error instanceof ConnectionError) throw error;
      const code = (error as NodeJS.ErrnoException).code;
      return fail(failureOf(code) === "network" ? "dns" : failureOf(code), code ?? "lookup failed");
    }
    const left = Math.max(1, timeoutMs - (Date.now() - started));
    await Promise.race([
      deadline,
      new Promise<void>((resolve, reject) => {
        const s = tls
          ? tlsConnect(
              { host: address, port, servername: isIp(hostname) ? undefined : hostname, timeout: left },
              resolve,
            )
          : tcpConnect({ host: address, port, timeout: left }, resolve);
        socket = s;
        s.once("error", (error: NodeJS.ErrnoException) => {
          const code = error.code;
          const failure = failureOf(code);
          reject(
            new ConnectionError(connectionMessage(failure, label, code ?? error.message, timeoutMs), failure, label),
          );
        });
        s.once("timeout", () =>
          reject(new ConnectionError(connectionMessage("timeout", label, "", timeoutMs), "timeout", label)),
        );
      }),
    ]);
  } finally {
    clearTimeout(timer);
    deadline.catch(() => undefined);
    socket?.destroy();
  }
}

function isIp(host: string): boolean {
  return /^[\d.]+$/.test(host) || host.includes(":");
}

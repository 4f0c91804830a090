/**
 * Where the CLI finds its credentials (A4): the token from RESELLER_API_TOKEN or --token-file, never
 * from argv; the base URL from RESELLER_API_BASE_URL or --base-url. With --emulator neither is read.
 */
import { readFileSync, statSync } from "node:fs";
import { TOKEN_ADVICE } from "./args";
import { UsageError } from "./errors";

export interface CredentialSources {
  tokenFile?: string;
  baseUrl?: string;
  env: NodeJS.ProcessEnv;
}

export interface Credentials {
  token: string;
  baseUrl: string;
  /** Where the token came from, for messages (never the token). */
  tokenSource: string;
  /** A warning to print once, e.g. a token file others can read. */
  warning?: string;
}

export function resolveCredentials(sources: CredentialSources): Credentials {
  const baseUrl = (sources.baseUrl ?? sources.env.RESELLER_API_BASE_URL ?? "").trim();
  if (!baseUrl) {
    throw new UsageError(
      "No API base URL: set RESELLER_API_BASE_URL (e.g. https://<your provider>/api/reseller/v1) or pass --base-url; or try everything with --emulator.",
    );
  }
  checkCliBaseUrl(baseUrl, sources.baseUrl !== undefined ? "--base-url" : "RESELLER_API_BASE_URL");
  let token: string;
  let tokenSource: string;
  const warning: string | undefined = undefined;
  if (sources.tokenFile !== undefined) {
    let mode: number;
    try {
      const stat = statSync(sources.tokenFile);
      if (stat.isDirectory())
        throw new UsageError(
          `--token-file: ${sources.tokenFile} is a directory, not a file: give the file that holds the token (one line, \`chmod 600\`), or set RESELLER_API_TOKEN instead.`,
        );
      mode = stat.mode;
      // Like ssh with a private key: a token file others can read is refused before it is read.
      if ((mode & 0o077) === 0) token = readFileSync(sources.tokenFile, "utf8").trim();
      else token = "";
    } catch (error) {
      if (error instanceof UsageError) throw error;
      const code = (error as NodeJS.ErrnoException).code ?? String(error);
      throw new UsageError(`--token-file: cannot read ${sources.tokenFile} (${code}). ${TOKEN_ADVICE}`);
    }
    if ((mode & 0o077) !== 0)
      throw new UsageError(
        `--token-file: ${sources.tokenFile} can be read by ${
          mode & 0o007 ? "every user" : "the file's group"
        } (mode ${(mode & 0o777).toString(8)}): run \`chmod 600 ${sources.tokenFile}\`, then revoke the token if others may have read it.`,
      );
    if (!token)
      throw new UsageError(
        `--token-file: ${sources.tokenFile} is empty: put the token in it (one line, \`chmod 600\`), or set RESELLER_API_TOKEN instead.`,
      );
    tokenSource = `--token-file ${sources.tokenFile}`;
  } else {
    token = (sources.env.RESELLER_API_TOKEN ?? "").trim();
    tokenSource = "RESELLER_API_TOKEN";
  }
  if (!token) throw new UsageError(`No API token. ${TOKEN_ADVICE} Or try everything with --emulator.`);
  return { token, baseUrl, tokenSource, warning };
}

/**
 * A4: the token in --token-file, read only so that output can redact it (and its secret part) in
 * every command — also those that never use it (`check --dry-run`, the `commands` commands) and
 * before it is checked. Best effort: a regular file of at most 64 KiB, else undefined (the command
 * itself then reports the file, if it reads it at all). Whether the file may be used is decided
 * by resolveCredentials, not here.
 */
export function tokenForRedaction(tokenFile: string | undefined): string | undefined {
  if (tokenFile === undefined) return undefined;
  try {
    const st = statSync(tokenFile);
    if (!st.isFile() || st.size > 65_536) return undefined;
    return readFileSync(tokenFile, "utf8").trim() || undefined;
  } catch {
    return undefined;
  }
}

const API_BASE_PATH = "/api/reseller/v1";
const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]", "::1"]);

/**
 * The base URL mistakes the SDK refuses, said in the CLI's own words (its flags, not the SDK's
 * options): plain http:// to a host that is not this machine, a path that does not end in
 * /api/reseller/v1. Anything else (userinfo, a query) is left to the SDK's own check.
 */
function checkCliBaseUrl(baseUrl: string, source: string): void {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    return; // the SDK's message names what is missing
  }
  if (url.username || url.password || url.search || url.hash) return;
  if (url.protocol === "http:" && !LOOPBACK.has(url.hostname))
    throw new UsageError(
      `${source}: http://${url.host} is plain HTTP: the token would travel in clear text, so the CLI sends nothing there. The API is HTTPS only: use https://${url.host}${url.pathname.replace(/\/+$/, "")}. Plain http:// is for a server on this machine only (localhost, 127.0.0.1, ::1 — a local emulator), or try everything with --emulator.`,
    );
  const path = url.pathname.replace(/\/+$/, "");
  if ((url.protocol === "https:" || url.protocol === "http:") && !path.endsWith(API_BASE_PATH))
    throw new UsageError(
      `${source}: the path must end with ${API_BASE_PATH} (got "${url.pathname}"): the usual base URL is ${url.origin}${API_BASE_PATH}${
        path
          ? ` — or, only if a gateway mounts the API under a prefix of its own, that prefix followed by ${API_BASE_PATH}`
          : ""
      }. Nothing was sent.`,
    );
}

/**
 * Which JavaScript runtime this is, from the globals each one documents (`Bun.version`,
 * `Deno.version.deno`, `navigator.userAgent === "Cloudflare-Workers"`, `process.versions.node`).
 * Used to pick what the runtime has (e.g. its SQLite module) and to say the fix when it lacks something.
 */
type RuntimeName = "node" | "bun" | "deno" | "workerd" | "unknown";

export interface RuntimeInfo {
  name: RuntimeName;
  /** The runtime's own version ("22.23.5", "1.4.4", "2.9.6"), or "" when it states none. */
  version: string;
}

interface RuntimeGlobals {
  Bun?: { version?: string };
  Deno?: { version?: { deno?: string } };
  navigator?: { userAgent?: string };
  process?: { versions?: { node?: string } };
}

export function detectRuntime(globals: RuntimeGlobals = globalThis): RuntimeInfo {
  // Bun and Deno also set process.versions.node (Node compatibility), so they are asked first.
  if (typeof globals.Bun?.version === "string") return { name: "bun", version: globals.Bun.version };
  if (typeof globals.Deno?.version?.deno === "string") return { name: "deno", version: globals.Deno.version.deno };
  if (globals.navigator?.userAgent === "Cloudflare-Workers") return { name: "workerd", version: "" };
  const node = globals.process?.versions?.node;
  if (typeof node === "string") return { name: "node", version: node };
  return { name: "unknown", version: "" };
}

/** Whether `version` ("22.5.1") is at least `major.minor`. */
export function atLeast(version: string, major: number, minor: number): boolean {
  const [a = 0, b = 0] = version.split(".").map(Number);
  return a > major || (a === major && b >= minor);
}

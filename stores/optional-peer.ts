/**
 * Loads an optional peer dependency (better-sqlite3, pg, ioredis) when a store is created rather than
 * when its module is imported, so a missing driver becomes a MissingDependencyError that names the
 * package to install instead of a bare ERR_MODULE_NOT_FOUND. The three drivers are CommonJS, so
 * `require` loads them from both the ESM and the CJS build.
 */
import { createRequire } from "node:module";
import { MissingDependencyError } from "../core";

const requireHere = createRequire(import.meta.url);

/** The module's exports; the caller states their type, as it would for `require`. */
export function loadPeer(
  packageName: string,
  feature: string,
  ifMissing: MissingDependencyError = new MissingDependencyError(packageName, feature),
): unknown {
  try {
    return requireHere(packageName);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    const message = error instanceof Error ? error.message : "";
    // Only the package itself missing, not a module it fails to load (a broken native build must keep its own message).
    if (code === "MODULE_NOT_FOUND" && message.includes(`'${packageName}'`)) {
      throw ifMissing;
    }
    throw error;
  }
}

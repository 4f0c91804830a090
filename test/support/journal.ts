/**
 * A NewCommand with its D4 fingerprint filled in (the value `commandFingerprint()` gives), for tests
 * that write to a journal directly.
 */
import type { NewCommand } from "../../journal";
import { fingerprintSync } from "../../stores/sqlite-backfill";

export function fingerprinted(c: Omit<NewCommand, "fingerprint"> & { fingerprint?: string }): NewCommand {
  // A deliberately malformed body (tests of the store's checks) gets a placeholder the store accepts.
  const bytes = c.body === null || c.body instanceof Uint8Array;
  return {
    ...c,
    fingerprint: c.fingerprint ?? (bytes ? fingerprintSync(c.method, c.path, c.query, c.body) : "0".repeat(64)),
  };
}

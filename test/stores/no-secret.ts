/** expectNoSecret(): the store-error tests' check that nothing an app prints of an error shows a secret. */
import { Writable } from "node:stream";
import { inspect } from "node:util";
import pino from "pino";
import { expect } from "vitest";

/** Every way an app may print an error (or an event holding one): none may show `secret`. */
export function expectNoSecret(value: unknown, secret: string): void {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk));
      done();
    },
  });
  const log = pino({}, sink);
  log.error({ event: value, error: value, err: value }, "store event");
  const seen = [JSON.stringify(value), inspect(value, { depth: Infinity }), String(value), lines.join("")];
  let e: unknown = value;
  for (let depth = 0; e !== null && typeof e === "object" && depth < 8; depth++) {
    const err = e as { stack?: unknown; message?: unknown; cause?: unknown; error?: unknown };
    seen.push(String(err.stack), String(err.message), inspect(e, { depth: Infinity, showHidden: true }));
    e = err.error ?? err.cause;
  }
  for (const text of seen) expect(text).not.toContain(secret);
  expect(seen.join("\n")).not.toMatch(/"args"\s*:/);
}

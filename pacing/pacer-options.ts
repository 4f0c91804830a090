// createPacer()'s options, checked once: a bad value is an InvalidOptionsError that names the fix
// (one error family), never a pacer that silently misbehaves or a late TypeError.
import { InvalidOptionsError } from "../core";
import type { PacerOptions } from "./pacer-types";

const bad = (option: string, fix: string, got: unknown) =>
  new InvalidOptionsError(
    `createPacer: ${option} ${fix}, got ${typeof got === "function" ? "a function" : String(got)}.`,
    option,
  );

export function screenPacerOptions(o: PacerOptions): void {
  if (o === null || typeof o !== "object") throw bad("options", "must be an object", o);
  const num = (name: keyof PacerOptions, ok: (v: number) => boolean, fix: string) => {
    const v = o[name];
    if (v !== undefined && (typeof v !== "number" || !ok(v))) throw bad(name, fix, v);
  };
  num("windowMs", (v) => Number.isFinite(v) && v > 0, "must be the server window in ms, > 0");
  num(
    "initialLimit",
    (v) => Number.isInteger(v) && v >= 1 && v <= 10_000,
    "must be a whole number of requests per window from 1 to 10000 (C1: the server's range)",
  );
  num("maxConcurrency", (v) => Number.isInteger(v) && v >= 1, "must be a whole number ≥ 1");
  num("burst", (v) => Number.isInteger(v) && v >= 1, "must be a whole number ≥ 1");
  num("guardMs", (v) => Number.isFinite(v) && v >= 0, "must be a finite number of ms ≥ 0");
  for (const k of ["baseMs", "capMs", "floorMs", "jitterMs", "jitterRatio"] as const) {
    const v = (o.pause as Record<string, unknown> | undefined)?.[k];
    if (v !== undefined && !(typeof v === "number" && Number.isFinite(v) && v >= 0))
      throw bad(`pause.${k}`, "must be a finite number ≥ 0", v);
  }
  const store = o.store as unknown as Record<string, unknown> | undefined;
  if (store !== undefined && (store === null || typeof store.reserve !== "function"))
    throw bad("store", "must be a WindowStore (createMemoryWindowStore() or createRedisWindowStore(…))", store);
  const clock = o.clock as unknown as Record<string, unknown> | undefined;
  if (clock !== undefined && (clock === null || typeof clock.now !== "function" || typeof clock.sleep !== "function"))
    throw bad("clock", "must have now() and sleep(ms, signal)", clock);
  for (const k of ["random", "onEvent"] as const)
    if (o[k] !== undefined && typeof o[k] !== "function") throw bad(k, "must be a function", o[k]);
}

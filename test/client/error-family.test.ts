/**
 * One error family: everything the package throws extends ResellerClientError, carries a stable
 * `code`, and has an isX guard that also recognises an error from a second copy of the package.
 */
import { describe, expect, it, vi } from "vitest";
import * as api from "../../src/index";

const classes = Object.entries(api).filter(
  ([name, value]) => typeof value === "function" && /^[A-Z]\w*Error$/.test(name),
) as [string, new (...args: never[]) => Error][];

function instance(name: string, Cls: new (...args: never[]) => Error): Error {
  const args: Record<string, unknown[]> = {
    DomainLockedError: ["domain:x", "cmd-1"],
    InvalidTransitionError: ["recorded", "completed"],
    DuplicateCommandError: ["key", "k", "cmd-1"],
    UnknownCommandError: ["cmd-1"],
    LeaseLostError: ["cmd-1", "worker-a", "worker-b"],
    SensitiveDataError: ["body"],
    LiveOnlyError: ["tickets.list"],
    RequestAbortedError: ["domains.renew"],
    PaginationError: [{ kind: "unknown", operationId: "domains.list" }, 0],
    TimeoutError: [1000],
    DeadlineExceededError: [Date.UTC(2026, 9, 5, 10), "pause"],
    ResponseTooLargeError: [200, 4096],
  };
  return new (Cls as unknown as new (...a: unknown[]) => Error)(...(args[name] ?? ["message", "field"]));
}

describe("error family", () => {
  it("exports the classes it checks", () => {
    expect(classes.length).toBeGreaterThanOrEqual(15);
  });

  it.each(classes)("%s extends ResellerClientError, has a stable code and an isX guard", (name, Cls) => {
    const error = instance(name, Cls);
    expect(error).toBeInstanceOf(api.ResellerClientError);
    expect(error.name).toBe(name);
    const code = (error as api.ResellerClientError).code;
    expect(code).toMatch(/^[a-z_]+$/);
    if (name === "ResellerClientError") return;
    const guard = (api as unknown as Record<string, (v: unknown) => boolean>)[`is${name}`];
    expect(typeof guard).toBe("function");
    expect(guard(error)).toBe(true);
    expect(guard(new Error(error.message))).toBe(false);
    expect(api.isResellerClientError(error)).toBe(true);
  });

  it("codes are unique per class", () => {
    const codes = classes.map(([name, Cls]) => (instance(name, Cls) as api.ResellerClientError).code);
    expect(new Set(codes).size).toBe(codes.length);
  });

  it("guards recognise an error thrown by a duplicate copy of the package, where instanceof fails", async () => {
    vi.resetModules();
    const path = "../../src/index?copy"; // a query makes vite load a second, separate module instance
    const copy = (await import(path)) as typeof api;
    const foreign = new copy.DomainLockedError("domain:x", "cmd-1");
    expect(foreign).not.toBeInstanceOf(api.DomainLockedError);
    expect(api.isDomainLockedError(foreign)).toBe(true);
    expect(api.isResellerClientError(foreign)).toBe(true);
    expect(api.isTimeoutError(foreign)).toBe(false);
  });
});

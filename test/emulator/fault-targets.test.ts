// A fault matches a request by method and spec path template, compared as strings: a path that is not
// a template, or a method the template does not have, would make a fault that never fires and a test
// that passes with nothing injected. addFault refuses both, in process and over /_emulator/faults,
// and names the template that was meant.
import { describe, expect, it } from "vitest";
import { isEmulatorControlError } from "../../emulator/index";
import { CONTROL, firstDomain, call, json, setup } from "./helpers";

const RENEW = "/domains/{domainUuid}/renew";

function refusal(add: () => unknown): { status: number; message: string } {
  try {
    add();
  } catch (error) {
    expect(isEmulatorControlError(error)).toBe(true);
    const e = error as { status: number; message: string };
    return { status: e.status, message: e.message };
  }
  throw new Error("addFault accepted the fault");
}

describe("addFault: the target must be a template and method of the spec", () => {
  it.each([
    ["/domains/{id}/renew", RENEW],
    ["/api/reseller/v1/domains/{domainUuid}/renew", RENEW],
    ["/domains/{domainUuid}/renew/", RENEW],
    ["/domains/5f0c1111-1111-4111-8111-111111111111/renew", RENEW],
    ["/domain/{id}", "/domains/{domainUuid}"],
    ["/domians/check", "/domains/check"],
  ])(
    "addFault refuses %s (not a spec template, so it would never fire), naming %s; nothing is stored",
    (path, meant) => {
      const { emu } = setup();
      const { status, message } = refusal(() =>
        emu.control.addFault({ method: "POST", path, kind: "error_500_after" }),
      );
      expect(status).toBe(422);
      expect(message).toContain(`did you mean ${meant}?`);
      expect(message).toContain(JSON.stringify(path));
      expect(emu.control.faults()).toEqual([]);
    },
  );

  it("addFault refuses a method the template has no operation for, naming the ones it has", () => {
    const { emu } = setup();
    expect(refusal(() => emu.control.addFault({ method: "GET", path: RENEW, kind: "timeout_before" })).message).toMatch(
      /method GET is not an operation of \/domains\/\{domainUuid\}\/renew.*use POST or "\*"/,
    );
    expect(
      refusal(() => emu.control.addFault({ method: "HEAD", path: "/context", kind: "timeout_before" })).message,
    ).toMatch(/HEAD request matches a GET fault: use GET/);
    expect(refusal(() => emu.control.addFault({ method: "FETCH", path: "*", kind: "timeout_before" })).message).toMatch(
      /method FETCH .*use GET, POST/,
    );
    expect(emu.control.faults()).toEqual([]);
  });

  it('accepts every spec template with each of its methods, "*" for either, and a lower-case method', () => {
    const { emu } = setup();
    emu.control.addFault({ method: "post", path: RENEW, kind: "error_500_after" });
    emu.control.addFault({ method: "*", path: "/domains/{domainUuid}", kind: "timeout_before" });
    emu.control.addFault({ method: "DELETE", path: "*", kind: "timeout_before" });
    emu.control.addFault({ method: "*", path: "*", kind: "empty_body" });
    expect(emu.control.faults().map((f) => `${f.method} ${f.path}`)).toEqual([
      "POST /domains/{domainUuid}/renew",
      "* /domains/{domainUuid}",
      "DELETE *",
      "* *",
    ]);
  });

  it("the template the refusal names is the one that fires on the request", async () => {
    const { emu, live } = setup();
    const domain = await firstDomain(emu, live.token);
    const { message } = refusal(() =>
      emu.control.addFault({ method: "POST", path: `/domains/${domain}/renew`, kind: "error_500_after" }),
    );
    const meant = /did you mean (\S+)\?/.exec(message)![1];
    emu.control.addFault({ method: "POST", path: meant, kind: "error_500_after" });
    const res = await call(emu, live.token, `/domains/${domain}/renew`, { body: { period: 1 } });
    expect(res.status).toBe(500);
    expect(emu.control.requests().at(-1)!.fault).toBe("error_500_after");
  });

  it("POST /_emulator/faults answers 422 with the same message, and stores nothing", async () => {
    const { emu } = setup();
    const res = await emu.fetch(CONTROL + "/faults", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ method: "POST", path: "/domains/{id}/renew", kind: "error_500_after" }),
    });
    expect(res.status).toBe(422);
    const body = await json(res);
    expect(body.error.code).toBe("validation_failed");
    expect(body.error.message).toContain(`did you mean ${RENEW}?`);
    const wrongMethod = await emu.fetch(CONTROL + "/faults", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ method: "PUT", path: RENEW, kind: "error_500_after" }),
    });
    expect(wrongMethod.status).toBe(422);
    expect((await json(wrongMethod)).error.message).toMatch(/method PUT is not an operation/);
    expect(emu.control.faults()).toEqual([]);
  });
});

/**
 * H2/A4: the one URL redaction (core/redact.ts) every printed or thrown URL goes through, as a table,
 * and the baseUrl refusal (core/validate.ts) that echoes nothing after "?" and no userinfo.
 */
import { describe, expect, it } from "vitest";
import { createRedactor, redactUrl } from "../../core";
import { InvalidOptionsError, createResellerClient } from "../../src/index";

const TOKEN = `rsl_test_${"A".repeat(24)}.${"b".repeat(64)}`;

describe("H2: URL redaction table", () => {
  const table: [string, string][] = [
    ["postgres://ops:QueryPw999@db:5432/j", "postgres://ops:[REDACTED]@db:5432/j"],
    ["postgres://db/j?password=QueryPw999&sslmode=require", "postgres://db/j?password=[REDACTED]&sslmode=require"],
    [
      "postgres://db/j?sslpassword=p1&sslkey=/k.pem&application_name=cli",
      "postgres://db/j?sslpassword=[REDACTED]&sslkey=[REDACTED]&application_name=cli",
    ],
    ["https://x.kz/api/reseller/v1?api_key=rsl_live_zz", "https://x.kz/api/reseller/v1?api_key=[REDACTED]"],
    ["https://x.kz/p?access_token=t&page=2", "https://x.kz/p?access_token=[REDACTED]&page=2"],
    [
      "https://s3.example/o?X-Amz-Signature=abc&X-Amz-Credential=c&X-Amz-Date=1",
      "https://s3.example/o?X-Amz-Signature=[REDACTED]&X-Amz-Credential=[REDACTED]&X-Amz-Date=1",
    ],
    [
      "https://x/cb?sig=abc&client_secret=s&authToken=t",
      "https://x/cb?sig=[REDACTED]&client_secret=[REDACTED]&authToken=[REDACTED]",
    ],
    ["https://x/p?keyword=renew&monkey=1&per_page=100", "https://x/p?keyword=renew&monkey=1&per_page=100"],
    ["https://ghp_abcdef0123456789@github.example/r", "https://[REDACTED]@github.example/r"],
    ["https://x/p#access_token=t", "https://x/p"],
    ["not a url with a secret", "(unparseable URL)"],
    ["postgres://[::1:bad/j?password=x", "postgres://(unparseable URL)"],
    // The last "@" of the authority ends the userinfo: an "@" inside a password is the parser's own.
    ["postgres://ops@corp:Pa@ss99@db:5432/j", "postgres://ops%40corp:[REDACTED]@db:5432/j"],
    // An "@" after the authority: a password with an unencoded "@", "/", ":", "#" or "?" split by the
    // parser into host, port and path — nothing after the scheme is printed.
    ["postgres://ops2:Xy@z:9/Secr%t@127.0.0.1:55433/reseller", "postgres://[REDACTED]"],
    ["postgres://ops:12/SecretTail@db:5432/j", "postgres://[REDACTED]"],
    ["postgres://ops:12?SecretTail@db:5432/j", "postgres://[REDACTED]"],
    ["postgres://ops:12#SecretTail@db:5432/j", "postgres://[REDACTED]"],
    ["postgresql://db:5432/j?application_name=Secret@Tail", "postgresql://[REDACTED]"],
    ["https://ops:Xy@api.example:8443/v1/SecretTail@host/r", "https://[REDACTED]"],
  ];
  for (const [input, expected] of table) {
    it(`${input} → ${expected}`, () => {
      expect(redactUrl(input)).toBe(expected);
    });
  }

  it("URLs inside free text (error messages) are redacted by the same rule", () => {
    const r = createRedactor();
    expect(r.text("connect failed: postgres://u:pw12345@h/db?password=QueryPw999 (ECONNREFUSED)")).toBe(
      "connect failed: postgres://u:[REDACTED]@h/db?password=[REDACTED] (ECONNREFUSED)",
    );
    expect(r.text("connect failed: postgres://ops2:Xy@z:9/Secr%t@127.0.0.1:55433/reseller (timeout)")).toBe(
      "connect failed: postgres://[REDACTED] (timeout)",
    );
  });

  it("H2: a URL whose password holds an unencoded @, /, :, # or ? prints no part of its userinfo or password", () => {
    for (const [user, password] of [
      ["ops2", "Xy@z:9/Secr%t"],
      ["ops2", "12/Xy@Secret"],
      ["ops2", "12?Xy@Secret"],
      ["ops2", "12#Xy@Secret"],
      ["ops2", "Xy:12/Secret"],
    ]) {
      for (const url of [
        `postgres://${user}:${password}@127.0.0.1:55433/reseller`,
        `https://${user}:${password}@h/x`,
      ]) {
        const printed = redactUrl(url);
        expect(printed).not.toContain(user);
        for (const part of password.split(/[@/:?#]/).filter((p) => p.length >= 2))
          expect(printed, `${url} → ${printed}`).not.toContain(part);
      }
    }
  });
});

describe("H2: baseUrl with userinfo, a query or a fragment is refused up front", () => {
  for (const [url, fix] of [
    ["https://api.example.kz/api/reseller/v1?api_key=SecretValue1", "https://api.example.kz/api/reseller/v1"],
    ["https://ops:SecretValue1@api.example.kz/api/reseller/v1", "https://api.example.kz/api/reseller/v1"],
    ["https://api.example.kz/api/reseller/v1#SecretValue1", "https://api.example.kz/api/reseller/v1"],
    ["https://api.example.kz/api/reseller/v1?", "https://api.example.kz/api/reseller/v1"],
  ]) {
    it(`${url.replace("SecretValue1", "…")}: InvalidOptionsError naming the fix, echoing nothing of the secret`, () => {
      let error: unknown;
      try {
        createResellerClient({ baseUrl: url, token: TOKEN });
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(InvalidOptionsError);
      const message = (error as Error).message;
      expect(message).toContain(`Use ${fix}`.replace("Use", "")); // names the URL to use
      expect(message).not.toContain("SecretValue1");
      expect(message).not.toContain("ops:");
    });
  }
});

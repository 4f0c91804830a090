// A hostile network for property tests and the fuzz run (bench/fuzz.ts): a `fetch` that, step by step,
// answers with random statuses, content types, bodies (empty, wrongly shaped JSON, truncated, huge,
// invalid UTF-8, deeply nested, a stream that errors mid-read or never ends) and headers (Retry-After
// of a day, HTTP-dates, junk), rejects with non-Error values, resolves with something that is not a
// Response, or never settles and ignores its signal. A step may first FORWARD the request to the real
// emulator — the write executes — and then spoil the answer, which is what makes "≤ 1 execution" a
// real property. When the steps run out every request goes to the emulator untouched.
import fc from "fast-check";
import type { Outcome, WaitResult } from "../../src/index";
import { createMemoryJournal } from "../../stores/memory-journal";
import { setup } from "../client/harness";

type BodySpec =
  | { kind: "text"; text: string }
  | { kind: "bytes"; bytes: number[] }
  | { kind: "huge"; bytes: number }
  | { kind: "deep"; depth: number }
  | { kind: "stream-error"; head: string }
  | { kind: "endless" };

export type Step =
  | { mode: "pass" }
  | {
      mode: "respond";
      forward: boolean;
      status: number;
      contentType?: string;
      body: BodySpec;
      headers: Record<string, string>;
    }
  | { mode: "reject"; forward: boolean; value: "string" | "null" | "undefined" | "number" | "object" | "getter" }
  | { mode: "not-response"; forward: boolean; value: "undefined" | "object" | "number" | "string" }
  | { mode: "hang"; forward: boolean };

// Weighted towards the statuses that steer the client (2xx without a usable body, 429, 5xx).
const status = fc.oneof(
  { weight: 1, arbitrary: fc.integer({ min: 100, max: 999 }) },
  { weight: 6, arbitrary: fc.constantFrom(200, 201, 202, 204, 205, 429, 500, 503) },
  { weight: 2, arbitrary: fc.constantFrom(301, 400, 404, 405, 408, 409, 422, 499, 502) },
);
const contentType = fc.constantFrom(
  undefined,
  "application/json",
  "application/json",
  "application/json; charset=utf-8",
  "text/html",
  "application/problem+json",
  "APPLICATION/JSON",
  "application/octet-stream",
);
const WRONG_SHAPES = [
  "null",
  "[]",
  "[1,2]",
  "42",
  '"a string"',
  "true",
  "{}",
  '{"data":null}',
  '{"data":[]}',
  '{"data":5}',
  '{"data":"x"}',
  '{"data":{}}',
  '{"data":[null,1,"x",{"external_id":5}]}',
  '{"data":{"uuid":42,"status":null}}',
  '{"data":{"uuid":"5b1e2f4a-0c3d-4e5f-8a9b-0c1d2e3f4a5b","status":"completed"}}',
  '{"data":{"uuid":"5b1e2f4a-0c3d-4e5f-8a9b-0c1d2e3f4a5b","status":"uncertain","next_check_at":7}}',
  '{"data":{"credential":{"rate_limit_per_minute":"lots"}}}',
  '{"data":[],"meta":{"next_cursor":5}}',
  '{"error":null}',
  '{"error":{"code":"conflict","message":"x","details":[],"request_id":null}}',
  '{"error":{"code":"rate_limit_exceeded","message":"x","details":{"retry_after":"soon"},"request_id":"r"}}',
  '{"error":{"code":"brand_new_code","message":"x","details":{"a":1},"request_id":"r"}}',
  '{"error":{"code":"constructor","message":"x","details":[],"request_id":null}}',
  '{"message":"The POST method is not supported"}',
  '{"signing_secret":"whsec_leak","auth_code":"AUTH-LEAK',
  "<html><body>502 Bad Gateway</body></html>",
];
const text = fc.oneof(
  { weight: 2, arbitrary: fc.constant("") },
  { weight: 1, arbitrary: fc.string({ maxLength: 64 }) },
  { weight: 1, arbitrary: fc.json({ maxDepth: 3 }) },
  { weight: 1, arbitrary: fc.json({ maxDepth: 3 }).map((j) => j.slice(0, Math.floor(j.length / 2))) },
  { weight: 5, arbitrary: fc.constantFrom(...WRONG_SHAPES) },
);
const body: fc.Arbitrary<BodySpec> = fc.oneof(
  { weight: 8, arbitrary: text.map((t) => ({ kind: "text" as const, text: t })) },
  {
    weight: 1,
    arbitrary: fc
      .array(fc.integer({ min: 0, max: 255 }), { maxLength: 32 })
      .map((b) => ({ kind: "bytes" as const, bytes: [0x7b, 0x22, 0xc3, 0x28, 0xff, ...b] })),
  },
  { weight: 1, arbitrary: fc.constantFrom(200_000, 5_000_000).map((n) => ({ kind: "huge" as const, bytes: n })) },
  { weight: 1, arbitrary: fc.constantFrom(1_000, 100_000).map((d) => ({ kind: "deep" as const, depth: d })) },
  { weight: 1, arbitrary: text.map((t) => ({ kind: "stream-error" as const, head: t.slice(0, 16) })) },
  { weight: 1, arbitrary: fc.constant({ kind: "endless" as const }) },
);
const headerValue = fc.constantFrom(
  "0",
  "-1",
  "1.5",
  "abc",
  "2",
  "86400",
  "99999999999",
  "Wed, 21 Oct 2015 07:28:00 GMT",
  "Fri, 01 Jan 2100 00:00:00 GMT",
  "true",
  "TRUE",
);
const headers = fc
  .record(
    {
      "retry-after": headerValue,
      "x-ratelimit-limit": headerValue,
      "x-ratelimit-remaining": headerValue,
      "idempotency-replayed": headerValue,
      "content-length": fc.constantFrom("0", "5", "999999999"),
    },
    { requiredKeys: [] },
  )
  .map((h) => h as Record<string, string>);

export const stepArbitrary: fc.Arbitrary<Step> = fc.oneof(
  { weight: 2, arbitrary: fc.constant({ mode: "pass" as const }) },
  {
    weight: 10,
    arbitrary: fc.record({
      mode: fc.constant("respond" as const),
      forward: fc.boolean(),
      status,
      contentType,
      body,
      headers,
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      mode: fc.constant("reject" as const),
      forward: fc.boolean(),
      value: fc.constantFrom("string", "null", "undefined", "number", "object", "getter"),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      mode: fc.constant("not-response" as const),
      forward: fc.boolean(),
      value: fc.constantFrom("undefined", "object", "number", "string"),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ mode: fc.constant("hang" as const), forward: fc.boolean() }),
  },
);

function bodyInit(spec: BodySpec): BodyInit | null {
  switch (spec.kind) {
    case "text":
      return spec.text;
    case "bytes":
      return new Uint8Array(spec.bytes);
    case "deep":
      return `{"data":${"[".repeat(spec.depth)}${"]".repeat(spec.depth)}}`;
    case "huge": {
      let left = spec.bytes;
      const chunk = new TextEncoder().encode(`{"data":[${'"xxxxxxxxxxxxxxxx",'.repeat(3000)}`);
      return new ReadableStream<Uint8Array>({
        pull(controller) {
          if (left <= 0) {
            controller.close();
            return;
          }
          controller.enqueue(chunk.slice(0, Math.min(chunk.byteLength, left)));
          left -= chunk.byteLength;
        },
      });
    }
    case "stream-error": {
      const head = new TextEncoder().encode(spec.head);
      return new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(head);
          controller.error(new TypeError("terminated: other side closed"));
        },
      });
    }
    case "endless":
      return new ReadableStream<Uint8Array>({ start: () => undefined }); // never enqueues, never closes
  }
}

function rejection(value: Extract<Step, { mode: "reject" }>["value"]): unknown {
  switch (value) {
    case "string":
      return "socket hang up";
    case "null":
      return null;
    case "undefined":
      return undefined;
    case "number":
      return 42;
    case "object":
      return { code: 7, message: { nested: true } };
    case "getter":
      return Object.defineProperty({}, "cause", {
        get() {
          throw new Error("a getter that throws");
        },
      });
  }
}

function notResponse(value: Extract<Step, { mode: "not-response" }>["value"]): unknown {
  return { undefined: undefined, object: { status: "200", headers: null }, number: 200, string: "OK" }[value];
}

const NULL_BODY = new Set([101, 103, 204, 205, 304]);

/** The paths a run can reach, by the request that reached them (see pathOf). */
type HostilePath = "write" | "resend" | "reconcile" | "poll" | "page" | "context" | "recover" | "other";

/** Requests that reached each path, and how many of them got a hostile answer (not passed through). */
export type PathHits = Partial<Record<HostilePath, { requests: number; hostile: number }>>;

/** What the hostile fetch did, for the property's bookkeeping. */
interface HostileLog {
  steps: number;
  hangs: number;
  /** Set while recover() runs: its requests count as "recover" whatever they are. */
  recovering: boolean;
  writes: number;
  paths: PathHits;
}

/** Which path of the run a request belongs to: the write, its resend, the lookup, a poll, a page… */
function pathOf(request: Request, log: HostileLog): HostilePath {
  if (log.recovering) return "recover";
  const url = new URL(request.url);
  const path = url.pathname;
  if (request.method === "POST" && (path.endsWith("/orders") || path.endsWith("/renew")))
    return log.writes++ === 0 ? "write" : "resend";
  if (request.method !== "GET") return "other";
  if (path.endsWith("/orders") && url.searchParams.has("external_id")) return "reconcile";
  if (path.includes("/operations/")) return "poll";
  if (path.endsWith("/domains")) return "page";
  if (path.endsWith("/context")) return "context";
  return "other";
}

/** Adds `b`'s hits to `a`. */
export function addHits(a: PathHits, b: PathHits): PathHits {
  for (const [path, hit] of Object.entries(b) as [HostilePath, { requests: number; hostile: number }][]) {
    const into = (a[path] ??= { requests: 0, hostile: 0 });
    into.requests += hit.requests;
    into.hostile += hit.hostile;
  }
  return a;
}

/** A fetch that plays `steps` in order (one per request), then forwards everything to `real`. */
function hostileFetch(steps: readonly Step[], real: (request: Request) => Promise<Response>, log?: HostileLog) {
  let i = 0;
  return async (request: Request): Promise<Response> => {
    const step = steps[i++] ?? { mode: "pass" as const };
    if (log) {
      log.steps += 1;
      const hit = (log.paths[pathOf(request, log)] ??= { requests: 0, hostile: 0 });
      hit.requests += 1;
      if (step.mode !== "pass") hit.hostile += 1;
    }
    if (step.mode === "pass") return real(request);
    if (step.forward)
      await real(request.clone()).then(
        (r) => r.arrayBuffer(),
        () => undefined,
      );
    switch (step.mode) {
      case "reject":
        throw rejection(step.value);
      case "not-response":
        return notResponse(step.value) as Response;
      case "hang":
        if (log) log.hangs += 1;
        return new Promise<Response>(() => undefined); // ignores its signal too
      case "respond": {
        const h = new Headers(step.headers);
        if (step.contentType) h.set("content-type", step.contentType);
        return new Response(NULL_BODY.has(step.status) ? null : bodyInit(step.body), {
          status: step.status,
          headers: h,
        });
      }
    }
  };
}

export const OUTCOME_KINDS = ["succeeded", "accepted", "rejected", "conflict", "unknown"] as const;

/** UTF-8 byte length of every `snippet` in an outcome (E5: ≤ 2 KiB each). */
export function snippetBytes(outcome: unknown): number {
  const snippet = (outcome as { snippet?: unknown } | null)?.snippet;
  return typeof snippet === "string" ? new TextEncoder().encode(snippet).byteLength : 0;
}

/** Resolves to the promise's result, or to "hang" when it has not settled after `realMs` of real time. */
async function settleWithin<T>(
  promise: Promise<T>,
  realMs: number,
): Promise<{ value?: T; error?: unknown; hang?: true }> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const hang = new Promise<{ hang: true }>((resolve) => (timer = setTimeout(() => resolve({ hang: true }), realMs)));
  try {
    return await Promise.race([
      promise.then(
        (value) => ({ value }),
        (error: unknown) => ({ error }),
      ),
      hang,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

export type HostileOperation = "orders.create" | "domains.renew" | "domains.list" | "context.get";

/** The operations a hostile run drives, writes weighted twice (the purchase path is what must hold). */
export const HOSTILE_OPERATIONS: readonly HostileOperation[] = [
  "orders.create",
  "domains.renew",
  "orders.create",
  "domains.renew",
  "domains.list",
  "context.get",
];

interface HostileRunResult {
  settled: { value?: unknown; error?: unknown; hang?: true };
  /** Every Outcome the run produced (the call, each page); recover()'s resends are in its summary. */
  outcomes: Outcome[];
  waits: WaitResult[];
  /** Business executions on the emulator for the write (order.create / domain.renew effects). */
  executions: number;
  /** Responses the hostile fetch served (spoiled or passed through). */
  responses: number;
  hangs: number;
  /** Requests per path of the run, and how many got a hostile answer. */
  paths: PathHits;
  /** Journalled commands recover() examined (0 when the call settled them all). */
  recovered: number;
}

/**
 * One hostile run: the operation (orders.create → reconcile by external_id, then resend; renew →
 * resend, then operations.wait; a list → every page; context → limit learning), then recover() over
 * the journal — all through `steps`. Bounded in REAL time by `realMs`, so a hang is reported, not waited.
 */
export async function hostileRun(
  steps: readonly Step[],
  operationId: HostileOperation,
  realMs = 20_000,
): Promise<HostileRunResult> {
  const h = setup({ environment: "live" });
  const journal = createMemoryJournal();
  const log: HostileLog = { steps: 0, hangs: 0, recovering: false, writes: 0, paths: {} };
  const client = h.makeClient({
    journal,
    fetch: hostileFetch(steps, h.fetch, log),
    maxResponseBytes: 64 * 1024,
    timeoutMs: 5_000,
    retry: { maxAttempts: 3, maxRateLimitRetries: 2 },
  });
  const outcomes: Outcome[] = [];
  const waits: WaitResult[] = [];
  const run = async () => {
    if (operationId === "domains.list") {
      for await (const page of client.domains.list({ query: { per_page: 2 } }).pages()) outcomes.push(page);
    } else if (operationId === "context.get") {
      outcomes.push(await client.context.get());
    } else {
      const out =
        operationId === "orders.create"
          ? await client.orders.create({
              body: { external_id: "crm-7", action: "register", domain: "fz.kz", period: 1 },
            })
          : await client.domains.renew({ domainUuid: h.domainUuid, body: { period: 1 } });
      outcomes.push(out);
      if (out.kind === "accepted") {
        waits.push(
          await client.operations.wait(out.operationUuid, {
            commandId: out.commandId,
            deadline: h.clock.now() + 600_000,
          }),
        );
      }
    }
    log.recovering = true;
    const summary = await client.recover();
    recovered = summary.examined;
    return summary;
  };
  let recovered = 0;
  const settled = await settleWithin(run(), realMs);
  const effect = operationId === "orders.create" ? "order.create" : "domain.renew";
  const executions = h.emulator.control.effects().filter((e) => e.kind === effect).length;
  await h.emulator.close();
  return {
    settled,
    outcomes,
    waits,
    executions,
    responses: log.steps,
    hangs: log.hangs,
    paths: log.paths,
    recovered,
  };
}

// Routes on the generated operations table (never a hand-written list) and reproduces the router's
// own answers: 405 with a message-only body, unknown route → 404 envelope (E5).
import { operationList, type OperationMeta } from "../generated/operations";
import { BASE_PATH } from "./state";

export interface RouteMatch {
  kind: "match";
  op: OperationMeta;
  params: Record<string, string>;
}
export interface MethodNotAllowed {
  kind: "method_not_allowed";
  allowed: string[];
  /** The request path without the leading slash, as the router prints it. */
  route: string;
}
export interface NotFound {
  kind: "not_found";
}

interface Compiled {
  op: OperationMeta;
  segments: string[];
  staticCount: number;
}

const compiled: Compiled[] = operationList.map((op) => {
  const segments = op.path.split("/").filter(Boolean);
  return { op, segments, staticCount: segments.filter((s) => !s.startsWith("{")).length };
});

function matchSegments(template: string[], actual: string[]): Record<string, string> | null {
  if (template.length !== actual.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < template.length; i++) {
    const t = template[i];
    if (t.startsWith("{") && t.endsWith("}")) {
      let value: string;
      try {
        value = decodeURIComponent(actual[i]);
      } catch {
        value = actual[i];
      }
      params[t.slice(1, -1)] = value;
    } else if (t !== actual[i]) {
      return null;
    }
  }
  return params;
}

/** True when `pathname` is under the API base path. */
function isApiPath(pathname: string): boolean {
  return pathname === BASE_PATH || pathname.startsWith(BASE_PATH + "/");
}

export function route(method: string, pathname: string): RouteMatch | MethodNotAllowed | NotFound {
  if (!isApiPath(pathname)) return { kind: "not_found" };
  const rest = pathname.slice(BASE_PATH.length).replace(/\/+$/, "");
  const actual = rest.split("/").filter(Boolean);
  // HEAD is served by the GET routes whose path declares it in the spec (`head` in the table, A7/D1).
  const effective = method === "HEAD" ? "GET" : method;
  const candidates = compiled
    .map((c) => ({ c, params: matchSegments(c.segments, actual) }))
    .filter((x): x is { c: Compiled; params: Record<string, string> } => x.params !== null);
  if (candidates.length === 0) return { kind: "not_found" };
  const same = candidates
    .filter((x) => x.c.op.method === effective && (method !== "HEAD" || x.c.op.head))
    .sort((a, b) => b.c.staticCount - a.c.staticCount);
  if (same.length > 0) return { kind: "match", op: same[0].c.op, params: same[0].params };
  const allowed = new Set<string>();
  for (const x of candidates) {
    allowed.add(x.c.op.method);
    if (x.c.op.head) allowed.add("HEAD");
  }
  return { kind: "method_not_allowed", allowed: [...allowed], route: pathname.replace(/^\/+/, "").replace(/\/+$/, "") };
}

/** E5: the router's 405 — message-only JSON, no envelope, no X-Request-ID, not counted. */
export function methodNotAllowedBody(method: string, m: MethodNotAllowed): string {
  return JSON.stringify({
    message: `The ${method} method is not supported for route ${m.route}. Supported methods: ${m.allowed.join(", ")}.`,
  });
}

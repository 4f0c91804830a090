// Redocly plugin: contract rules a configurable `rule/*` cannot express, because they compare two
// places of the document (a response's status with the codes its schema allows, a header's pattern
// with the values the contract says it carries). Local `$ref`s are resolved by hand.

const METHODS = ["get", "head", "put", "post", "delete", "patch"];

function pointerGet(root, ref) {
  if (typeof ref !== "string" || !ref.startsWith("#/")) return undefined;
  return ref
    .slice(2)
    .split("/")
    .map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"))
    .reduce((node, key) => (node && typeof node === "object" ? node[key] : undefined), root);
}

function deref(root, node) {
  let current = node;
  for (let i = 0; i < 20 && current && typeof current === "object" && typeof current.$ref === "string"; i++)
    current = pointerGet(root, current.$ref);
  return current;
}

/** The error members (schemas with `code: const`) an `error` schema allows. */
function membersOfError(root, schema) {
  const s = deref(root, schema);
  if (!s || typeof s !== "object") return [];
  const list = s.oneOf ?? s.anyOf;
  if (Array.isArray(list)) return list.flatMap((m) => membersOfError(root, m));
  const code = deref(root, s.properties?.code)?.const;
  return typeof code === "string" ? [{ code, schema: s }] : [];
}

/**
 * The error members a response body schema allows: null when it does not constrain `error` beyond
 * the whole union (the generic ErrorEnvelope), [] when it is not an envelope at all.
 */
function membersOfBody(root, schema, inAllOf = false) {
  const s = deref(root, schema);
  if (!s || typeof s !== "object") return inAllOf ? null : [];
  if (Array.isArray(s.allOf)) {
    let result = null;
    for (const part of s.allOf) {
      const members = membersOfBody(root, part, true);
      if (members === null) continue;
      result = result === null ? members : result.filter((m) => members.some((n) => n.code === m.code));
    }
    const own = s.properties?.error ? membersOfError(root, s.properties.error) : null;
    if (own !== null) result = result === null ? own : result.filter((m) => own.some((n) => n.code === m.code));
    return result;
  }
  const list = s.oneOf ?? s.anyOf;
  if (Array.isArray(list)) {
    const parts = list.map((m) => membersOfBody(root, m, false));
    return parts.includes(null) ? null : parts.flat();
  }
  if (!s.properties?.error) return inAllOf ? null : [];
  const error = deref(root, s.properties.error);
  // The whole ApiError union is "no codes named": a 401 could then carry `conflict`.
  const members = membersOfError(root, s.properties.error);
  const union = Array.isArray(error?.oneOf ?? error?.anyOf);
  return union && inAllOf ? null : union ? null : members;
}

function* operations(root) {
  for (const [path, item] of Object.entries(root.paths ?? {}))
    for (const method of METHODS) if (item?.[method]) yield { path, method, op: item[method] };
}

function statusMatches(listed, status) {
  return (listed ?? []).some((s) => String(s) === status || (/^[45]XX$/.test(String(s)) && String(s)[0] === status[0]));
}

/** E1/E4: every 4xx/5xx JSON body names the codes it may carry, and each code lists that status. */
function ErrorStatusCodes() {
  return {
    Root: {
      enter(root, ctx) {
        for (const { path, method, op } of operations(root)) {
          for (const [status, raw] of Object.entries(op.responses ?? {})) {
            if (!/^[45]\d\d$/.test(status)) continue;
            const schema = deref(root, raw)?.content?.["application/json"]?.schema;
            if (schema === undefined) continue;
            const where = ctx.location.child(["paths", path, method, "responses", status]);
            const members = membersOfBody(root, schema);
            if (members === null) {
              ctx.report({
                message: `E4: the ${status} body must name the codes it may carry (a per-status envelope such as '#/components/schemas/UnauthenticatedEnvelope'), not the whole ApiError union.`,
                location: where,
              });
              continue;
            }
            for (const m of members)
              if (!statusMatches(m.schema["x-error-statuses"], status))
                ctx.report({
                  message: `E4: a ${status} may not carry \`${m.code}\`: its schema's x-error-statuses are ${JSON.stringify(m.schema["x-error-statuses"] ?? [])}.`,
                  location: where,
                });
          }
        }
      },
    },
  };
}

const HTTP_DATE = "Mon, 05 Oct 2026 09:00:42 GMT";

/** C12: every 429 also allows a proxy's shape — a non-JSON body and a Retry-After that is seconds or an HTTP-date. */
function ProxyRateLimit() {
  return {
    Root: {
      enter(root, ctx) {
        for (const { path, method, op } of operations(root)) {
          const raw = op.responses?.["429"];
          if (raw === undefined) continue;
          const response = deref(root, raw);
          const where = ctx.location.child(["paths", path, method, "responses", "429"]);
          if (method !== "head" && !Object.keys(response?.content ?? {}).some((type) => !/json/.test(type)))
            ctx.report({
              message: "C12: a 429 must also allow a proxy's non-JSON body (e.g. text/html).",
              location: where,
            });
          const header = deref(root, response?.headers?.["Retry-After"]);
          const schema = deref(root, header?.schema);
          const pattern = typeof schema?.pattern === "string" ? new RegExp(schema.pattern, "u") : null;
          const ok = schema?.type === "string" && (!pattern || (pattern.test("42") && pattern.test(HTTP_DATE)));
          if (!ok)
            ctx.report({
              message: `C12: the 429's Retry-After must be a string that accepts both delay-seconds ("42") and an HTTP-date ("${HTTP_DATE}").`,
              location: where,
            });
        }
      },
    },
  };
}

export default function resellerPlugin() {
  return {
    id: "reseller",
    rules: {
      oas3: {
        "error-status-codes": ErrorStatusCodes,
        "proxy-rate-limit": ProxyRateLimit,
      },
    },
  };
}

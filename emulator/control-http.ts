// The control API over HTTP under /_emulator (outside the API base path). JSON in, JSON out.
// The server adapter (server.ts) restricts these routes to loopback callers.
import { EmulatorControlError as ControlError } from "./control-error";
import { CONTROL_PATH } from "./state";
import type { EmulatorControl } from "./types";

export function isControlPath(pathname: string): boolean {
  return pathname === CONTROL_PATH || pathname.startsWith(CONTROL_PATH + "/");
}

function json(status: number, value: unknown): Response {
  if (status === 204) return new Response(null, { status });
  return new Response(JSON.stringify(value), { status, headers: { "content-type": "application/json" } });
}

function problem(status: number, message: string): Response {
  const code =
    status === 404
      ? "resource_not_found"
      : status === 409
        ? "conflict"
        : status === 405 || status === 415
          ? "request_failed"
          : "validation_failed";
  return json(status, { error: { code, message, details: [], request_id: null } });
}

async function readJson(request: Request): Promise<Record<string, unknown>> {
  const text = await request.text();
  if (text.trim() === "") return {};
  const value = JSON.parse(text) as unknown;
  if (value === null || typeof value !== "object" || Array.isArray(value))
    throw new ControlError(422, "Body must be a JSON object.");
  return value as Record<string, unknown>;
}

function bearer(request: Request): string {
  const m = /^Bearer\s+(\S+)$/i.exec(request.headers.get("authorization") ?? "");
  if (!m) throw new ControlError(422, "Send the key's token as Authorization: Bearer.");
  return m[1];
}

/** Routes one /_emulator request to the control object. */
export async function handleControl(control: EmulatorControl, request: Request): Promise<Response> {
  const url = new URL(request.url);
  const method = request.method.toUpperCase();
  const parts = url.pathname.slice(CONTROL_PATH.length).split("/").filter(Boolean).map(decodeURIComponent);
  // keys, resellers and operations take an id as their second segment.
  const withId = ["keys", "resellers", "operations"].includes(parts[0] ?? "");
  const route = `${method} /${parts.map((p, i) => (withId && i === 1 ? ":" : p)).join("/")}`;
  try {
    let body: Record<string, unknown> = {};
    // A cross-origin form can send text/plain or form-urlencoded without a preflight: only JSON is read.
    const type = request.headers.get("content-type");
    if (type !== null && type.split(";")[0].trim().toLowerCase() !== "application/json")
      return problem(415, "The control API accepts only application/json bodies.");
    if (method !== "GET" && method !== "HEAD" && method !== "DELETE") {
      try {
        body = await readJson(request);
      } catch (error) {
        if (error instanceof ControlError) throw error;
        throw new ControlError(400, "Malformed JSON body.");
      }
    }
    const [, id] = parts;
    switch (route) {
      case "GET /keys":
        return json(200, { data: control.keys() });
      case "POST /keys":
        return json(201, { data: control.createKey(body as never) });
      case "PATCH /keys/:":
        return json(200, { data: control.updateKey(id, body) });
      case "POST /keys/:/revoke":
        control.revokeKey(id);
        return json(204, null);
      case "POST /keys/:/deposit":
        control.deposit(id, Number(body.amount_minor));
        return json(204, null);
      case "POST /keys/:/rotate":
        return json(200, { data: control.rotateKey(id) });
      case "POST /resellers/:/status":
        control.setResellerStatus(id, body.status as never);
        return json(204, null);
      case "POST /resellers/:/api":
        control.setResellerApi(id, body as never);
        return json(204, null);
      case "GET /domains":
        return json(200, { data: control.domains(bearer(request)) });
      case "POST /domains":
        return json(201, { data: control.createDomain(body as never) });
      case "POST /domains/bulk": {
        const { created, names } = control.seedDomains(body);
        return json(201, { data: { created, first: names[0] ?? null, last: names.at(-1) ?? null } });
      }
      case "GET /faults":
        return json(200, { data: control.faults() });
      case "POST /faults":
        return json(201, { data: control.addFault(body as never) });
      case "DELETE /faults":
        control.clearFaults();
        return json(204, null);
      case "GET /effects":
        return json(200, { data: control.effects() });
      case "GET /requests":
        return json(200, { data: control.requests() });
      case "GET /counters":
        return json(200, { data: control.counters() });
      case "POST /operations/:":
        control.setOperationStatus(id, body.status as string);
        return json(204, null);
      case "POST /clock/advance":
        return json(200, { data: control.advanceClock(Number(body.ms)) });
      case "POST /reset":
        control.reset();
        return json(204, null);
      default:
        return problem(404, `No control route ${method} ${url.pathname}.`);
    }
  } catch (error) {
    if (error instanceof ControlError) return problem(error.status, error.message);
    return problem(422, (error as Error).message ?? String(error));
  }
}

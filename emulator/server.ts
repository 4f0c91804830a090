// The emulator over a real TCP port: node:http (through @hono/node-server) in front of the in-process handler.
// Socket faults become real network failures here (E4: timeout / dropped connection = unknown outcome).
import { createServer, type Server } from "node:http";
import { getRequestListener, RequestError, type HttpBindings } from "@hono/node-server";
import { isIPv4, isIPv6, type AddressInfo, type Socket } from "node:net";
import { createEmulator } from "./index";
import { EmulatorControlError } from "./control-error";
import { BASE_PATH, CONTROL_PATH } from "./state";
import type { Emulator, EmulatorOptions, SocketFault } from "./types";

export interface EmulatorServerOptions extends EmulatorOptions {
  /** Interface to bind; loopback by default (the control API must never leave the machine). */
  host?: string | undefined;
  /** TCP port; 0 picks an ephemeral one. */
  port?: number | undefined;
}

export interface EmulatorServer {
  /** e.g. http://127.0.0.1:PORT/api/reseller/v1 */
  baseUrl: string;
  /** e.g. http://127.0.0.1:PORT/_emulator */
  controlUrl: string;
  port: number;
  emulator: Emulator;
  close(): Promise<void>;
}

/** The part of an Emulator the server needs; lets tests serve a stand-in handler. */
export type EmulatorHandler = Pick<Emulator, "handle">;

export interface ServedHandler {
  baseUrl: string;
  controlUrl: string;
  port: number;
  host: string;
  /** Stops accepting, destroys every open socket (hung ones included) and resolves when closed. */
  close(): Promise<void>;
}

/**
 * Starts a fresh emulator behind a node:http server on 127.0.0.1 and an ephemeral port. Like the
 * `reseller-emulator` CLI it has one test and one live key unless a `seed` is given or
 * `withDefaultKeys: false`; `server.emulator.control.keys()` lists them.
 */
export async function startEmulatorServer(options: EmulatorServerOptions = {}): Promise<EmulatorServer> {
  const { host, port, ...emulatorOptions } = options;
  const emulator = createEmulator({
    ...emulatorOptions,
    withDefaultKeys: emulatorOptions.withDefaultKeys ?? emulatorOptions.seed === undefined,
  });
  let served: ServedHandler;
  try {
    served = await serveEmulator(emulator, { host, port });
  } catch (error) {
    await emulator.close();
    throw error;
  }
  return {
    baseUrl: served.baseUrl,
    controlUrl: served.controlUrl,
    port: served.port,
    emulator,
    async close() {
      await served.close();
      await emulator.close();
    },
  };
}

/**
 * True for 127.0.0.0/8, ::1 and IPv4-mapped loopback (::ffff:127.x.y.z / ::ffff:7f00:1).
 * The control API (/_emulator/*) rewrites keys, clocks and faults, so only this machine may call it.
 */
export function isLoopbackAddress(address: string | undefined | null): boolean {
  if (!address) return false;
  let addr = address.trim().toLowerCase();
  const zone = addr.indexOf("%");
  if (zone >= 0) addr = addr.slice(0, zone);
  if (addr.startsWith("[") && addr.endsWith("]")) addr = addr.slice(1, -1);
  if (isIPv4(addr)) return addr.split(".")[0] === "127";
  if (!isIPv6(addr)) return false;
  const groups = expandIPv6(addr);
  if (!groups) return false;
  if (groups.slice(0, 7).every((g) => g === 0) && groups[7] === 1) return true; // ::1
  // ::ffff:a.b.c.d — IPv4-mapped; loopback when the first IPv4 octet is 127.
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) return groups[6] >> 8 === 127;
  return false;
}

function expandIPv6(addr: string): number[] | null {
  let text = addr;
  const tail: number[] = [];
  const lastColon = text.lastIndexOf(":");
  const dotted = text.slice(lastColon + 1);
  if (isIPv4(dotted)) {
    // Trailing dotted quad (::ffff:127.0.0.1): two groups, and the text before it keeps its "::".
    const [a, b, c, d] = dotted.split(".").map(Number);
    tail.push((a << 8) | b, (c << 8) | d);
    text = text.slice(0, lastColon);
    if (text.endsWith(":")) text += ":";
  }
  const parse = (part: string) => (part === "" ? [] : part.split(":").map((g) => parseInt(g, 16)));
  const want = 8 - tail.length;
  let groups: number[];
  const gap = text.indexOf("::");
  if (gap >= 0) {
    const head = parse(text.slice(0, gap));
    const rest = parse(text.slice(gap + 2));
    const fill = want - head.length - rest.length;
    if (fill < 0) return null;
    groups = [...head, ...new Array<number>(fill).fill(0), ...rest];
  } else {
    groups = parse(text);
  }
  groups = [...groups, ...tail];
  if (groups.length !== 8 || groups.some((g) => !Number.isInteger(g) || g < 0 || g > 0xffff)) return null;
  return groups;
}

/** Why listen() failed, and the fix that fits the cause: the address, the port, or the name. */
function listenErrorMessage(host: string, port: number, error: NodeJS.ErrnoException): string {
  const where = `Cannot listen on ${host}:${port} (${error.code ?? error.message})`;
  switch (error.code) {
    case "EADDRNOTAVAIL":
      return `${where}: ${host} is not an address of this machine: use 127.0.0.1 (the default), or an address one of its interfaces has.`;
    case "ENOTFOUND":
    case "EAI_AGAIN":
    case "EAI_NONAME":
      return `${where}: the host name ${host} does not resolve: use 127.0.0.1 (the default), or an address of this machine.`;
    case "EADDRINUSE":
      return `${where}: port ${port} is taken: pass another port, or 0 for a free one.`;
    case "EACCES":
      return `${where}: not allowed to bind port ${port}: pass a port above 1023, or 0 for a free one.`;
    default:
      return `${where}: pass another port, or 0 for a free one.`;
  }
}

export interface ServeOptions {
  host?: string | undefined;
  port?: number | undefined;
  /** Who may call /_emulator/*; loopback only by default. Tests pass a stricter predicate. */
  controlAllowed?: ((remoteAddress: string | undefined) => boolean) | undefined;
}

/** Serves any handler with the emulator's `handle` signature on a loopback port. */
export async function serveEmulator(handler: EmulatorHandler, options: ServeOptions = {}): Promise<ServedHandler> {
  const controlAllowed = options.controlAllowed ?? isLoopbackAddress;
  const host = options.host ?? "127.0.0.1";
  if (!isLoopbackAddress(host) && host !== "localhost")
    // The control API still answers loopback callers only, but the API port is reachable from outside.
    process.stderr.write(`reseller-emulator: warning: binding ${host}, not a loopback address\n`);
  const sockets = new Set<Socket>();
  let closing = false;
  let port = -1; // set once listening; requests only arrive after that

  // @hono/node-server converts node:http ↔ Fetch Request/Response; this file keeps only what the adapter
  // cannot do: the loopback gate on the control API and the socket faults (reset, hang).
  const listener = getRequestListener(
    async (request, bindings) => {
      const { incoming } = bindings as HttpBindings;
      const remoteAddress = incoming.socket.remoteAddress;
      // Gate on the path the emulator will route (dot segments resolved, percent-escapes decoded), so
      // "/x/../_emulator/keys" or "/%5Femulator/keys" cannot slip past the loopback check.
      if (isControlPath(new URL(request.url).pathname)) {
        if (!controlAllowed(remoteAddress))
          return jsonResponse(403, "forbidden", "The emulator control API is available only from loopback addresses.");
        // A DNS-rebinding page reaches 127.0.0.1 under its own name (Host: evil.example), and any page
        // can send a cross-origin POST (it carries Origin): neither may drive the control API.
        if (!isLoopbackHost(request.headers.get("host"), port))
          return jsonResponse(
            403,
            "forbidden",
            "The emulator control API answers only Host 127.0.0.1, [::1] or localhost (with its port).",
          );
        const origin = request.headers.get("origin");
        if (origin !== null && !isLoopbackOrigin(origin, port))
          return jsonResponse(403, "forbidden", "The emulator control API refuses cross-origin requests.");
      }
      const result = await handler.handle(request, { remoteAddress });
      return isSocketFault(result) ? applyFault(result, incoming.socket) : result;
    },
    {
      // Keep the platform's Request/Response: the emulator and its callers share one process.
      overrideGlobalObjects: false,
      errorHandler: (error) => {
        if (error instanceof RequestError)
          return jsonResponse(400, "request_failed", "The request could not be parsed.");
        process.stderr.write(`reseller-emulator: request failed: ${describe(error)}\n`);
        return jsonResponse(500, "internal_error", "The emulator failed to handle the request.");
      },
    },
  );
  const server: Server = createServer((req, res) => void listener(req, res));
  // A hung request must stay open until the client gives up (timeout_* faults), never be reaped by node.
  server.requestTimeout = 0;
  server.keepAliveTimeout = 5_000;
  server.on("connection", (socket: Socket) => {
    if (closing) {
      socket.destroy();
      return;
    }
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  server.on("clientError", (_error, socket) => {
    if (socket.writable) socket.end("HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Length: 0\r\n\r\n");
    else socket.destroy();
  });

  const wanted = options.port ?? 0;
  if (!Number.isInteger(wanted) || wanted < 0 || wanted > 65535)
    throw new EmulatorControlError(
      422,
      `port must be an integer 0..65535 (0 picks a free one), got ${String(wanted)}.`,
    );
  await new Promise<void>((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) =>
      reject(new EmulatorControlError(500, listenErrorMessage(host, wanted, error)));
    server.once("error", onError);
    server.listen(wanted, host, () => {
      server.off("error", onError);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  port = address.port;
  const origin = `http://${isIPv6(host) ? `[${host}]` : host}:${address.port}`;

  let closed: Promise<void> | undefined;
  return {
    baseUrl: origin + BASE_PATH,
    controlUrl: origin + CONTROL_PATH,
    port: address.port,
    host,
    close() {
      closed ??= new Promise<void>((resolve) => {
        closing = true;
        server.close(() => resolve());
        server.closeAllConnections();
        for (const socket of sockets) socket.destroy();
        sockets.clear();
      });
      return closed;
    },
  };
}

/** True for /_emulator and everything under it, however the path is spelled. */
const LOOPBACK_NAMES = new Set(["127.0.0.1", "[::1]", "localhost"]);

/** `127.0.0.1`, `[::1]` or `localhost`, optionally with this server's port (a Host header). */
function isLoopbackHost(host: string | null, port: number): boolean {
  if (host === null) return false;
  const m = /^(\[[^\]]*\]|[^:]+)(?::(\d+))?$/.exec(host.trim().toLowerCase());
  return !!m && LOOPBACK_NAMES.has(m[1]) && (m[2] === undefined || Number(m[2]) === port);
}

function isLoopbackOrigin(origin: string, port: number): boolean {
  try {
    const url = new URL(origin);
    return url.protocol === "http:" && isLoopbackHost(url.host, port);
  } catch {
    return false;
  }
}

export function isControlPath(pathname: string): boolean {
  let path = pathname;
  try {
    path = decodeURIComponent(pathname);
  } catch {
    // keep the raw path: a malformed escape is not a control route the emulator could match either
  }
  path = path.toLowerCase().replace(/\/+/g, "/");
  return path === CONTROL_PATH || path.startsWith(CONTROL_PATH + "/");
}

function isSocketFault(value: Response | SocketFault): value is SocketFault {
  return !(value instanceof Response) && typeof value.kind === "string";
}

/** Turns a socket fault into a real network failure; resolves (with a response nobody reads) once the socket is gone. */
function applyFault(fault: SocketFault, socket: Socket): Promise<Response> {
  const gone = new Promise<Response>((resolve) => {
    if (socket.destroyed) resolve(new Response(null));
    else socket.once("close", () => resolve(new Response(null)));
  });
  if (fault.kind === "reset") {
    // E4: a dropped connection. RST when the platform supports it, so the client sees ECONNRESET.
    const s = socket as Socket & { resetAndDestroy?: () => Socket };
    if (typeof s.resetAndDestroy === "function") s.resetAndDestroy();
    else s.destroy();
  }
  // "hang": answer nothing. The socket stays open until the client aborts or close() destroys it.
  return gone;
}

function envelope(code: string, message: string) {
  return { error: { code, message, details: [] as unknown[], request_id: null } };
}

function jsonResponse(status: number, code: string, message: string): Response {
  return Response.json(envelope(code, message), { status });
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

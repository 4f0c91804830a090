// A loopback relay between Prism and the emulator for one known Prism 5.14 defect: its proxy parses any
// upstream answer with a JSON Content-Type as JSON unless the status is 204 — a HEAD answer too, whose
// body is empty by definition (RFC 9110 §9.3.2) — and turns it into its own 500 FetchError. The emulator
// sends the GET's Content-Type on HEAD, as the API does, so the relay drops that one header on HEAD
// answers (the spec's HEAD responses declare no content, so Prism never validates it) and records every
// drop; everything else passes byte for byte.
import { createServer, request, type IncomingHttpHeaders, type Server } from "node:http";

export interface HeadRelay {
  readonly url: string;
  /** One entry per HEAD answer whose Content-Type was dropped. */
  readonly dropped: { path: string; status: number; contentType: string }[];
  close(): Promise<void>;
}

/** `origin`: the emulator's origin; Prism is pointed at the relay's url plus the base path. */
export async function startHeadRelay(origin: string): Promise<HeadRelay> {
  const target = new URL(origin);
  const dropped: HeadRelay["dropped"] = [];
  const server: Server = createServer((req, res) => {
    const out = request(
      {
        host: target.hostname,
        port: target.port,
        method: req.method,
        path: req.url,
        headers: req.headers,
      },
      (answer) => {
        const headers: IncomingHttpHeaders = { ...answer.headers };
        if (req.method === "HEAD" && headers["content-type"] !== undefined) {
          dropped.push({ path: req.url ?? "", status: answer.statusCode ?? 0, contentType: headers["content-type"] });
          delete headers["content-type"];
        }
        res.writeHead(answer.statusCode ?? 502, headers);
        answer.pipe(res);
      },
    );
    out.on("error", () => res.destroy());
    req.pipe(out);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    dropped,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

// SHA-256 computed inline instead of on libuv's thread pool. The client fingerprints every request
// body with crypto.subtle.digest (D5); on the thread pool that answer arrives as I/O, and a
// VirtualClock that auto-advances "when the event loop is idle" jumps to its next timer while the
// hash is still being computed — how far depends on the machine's load. Inline, a test's virtual
// time depends only on what the code does. Same bytes in, same digest out.
import { createHash } from "node:crypto";

export function inlineSha256(): () => void {
  const subtle = globalThis.crypto.subtle;
  const original = subtle.digest.bind(subtle);
  const digest = (algorithm: AlgorithmIdentifier, data: BufferSource): Promise<ArrayBuffer> => {
    const name = typeof algorithm === "string" ? algorithm : algorithm.name;
    if (name.toUpperCase() !== "SHA-256") return original(algorithm, data);
    const bytes = ArrayBuffer.isView(data)
      ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength)
      : new Uint8Array(data);
    const out = createHash("sha256").update(bytes).digest();
    return Promise.resolve(out.buffer.slice(out.byteOffset, out.byteOffset + out.byteLength));
  };
  Object.defineProperty(subtle, "digest", { value: digest, configurable: true, writable: true });
  return () => Object.defineProperty(subtle, "digest", { value: original, configurable: true, writable: true });
}

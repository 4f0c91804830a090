/**
 * Bytes to text on every runtime: Node's Buffer where the platform has one (its native UTF-8 decode
 * is the fast path the client's hot path relies on), the standard TextDecoder elsewhere (a browser,
 * a Worker without nodejs_compat). Invalid UTF-8 becomes U+FFFD either way, never a throw.
 */
interface BufferLike {
  from(buffer: ArrayBufferLike, byteOffset: number, length: number): { toString(encoding: string): string };
}
const NodeBuffer = (globalThis as { Buffer?: BufferLike }).Buffer;
const utf8 = new TextDecoder();
const latin1 = new TextDecoder("latin1");

export const utf8Text: (bytes: Uint8Array) => string = NodeBuffer
  ? (bytes) => NodeBuffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8")
  : (bytes) => utf8.decode(bytes);

/** One character per byte (for scanning bodies for ASCII secrets and markers). */
export const latin1Text: (bytes: Uint8Array) => string = NodeBuffer
  ? (bytes) => NodeBuffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("latin1")
  : (bytes) => latin1.decode(bytes);

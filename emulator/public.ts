// Entry of `reseller-api/emulator`: the in-process emulator plus the loopback server the CLI uses.
// (server.ts imports index.ts, so the re-export lives here rather than in index.ts.)
export * from "./index";
export { startEmulatorServer, serveEmulator, isLoopbackAddress } from "./server";
export type { EmulatorServer, EmulatorServerOptions, ServeOptions, ServedHandler, EmulatorHandler } from "./server";
export { VirtualClock, systemClock } from "../runtime/clock";
export type { Clock } from "../runtime/clock";

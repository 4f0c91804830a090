// vitest setupFiles entry: every test file's VirtualClock sees only the code's own timers (inline-digest.ts).
import { inlineSha256 } from "./inline-digest";

inlineSha256();

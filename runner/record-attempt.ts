/**
 * What one attempt's result says, recorded on the command (E4, E5, G2, I5): the attempt's info
 * (status, X-Request-ID, the wait before it, a body or transport error), its classification, the
 * `attempt` / `replay` events, and the journal's copy, written with the next move.
 */
import { classify, type Classified } from "./classify";
import type { AttemptErrorKind, AttemptInfo } from "../core";
import type { Command } from "./command";
import { attemptEvent, replayEvent } from "./finalize";
import type { PacedAttemptResult } from "./paced-attempt";
import type { AttemptResult } from "./retry-policy";

/** Classifications that say the response's BODY was unusable (recorded as the attempt's error). */
const BODY_ERRORS: ReadonlySet<string> = new Set(["malformed_response", "response_too_large"]);

export interface RecordedAttempt {
  info: AttemptInfo;
  /** What retry-policy.ts decides on. */
  result: AttemptResult;
  /** The response's classification; undefined when the attempt got no HTTP answer. */
  classified?: Classified;
}

export function recordAttempt(command: Command, attempt: PacedAttemptResult): RecordedAttempt {
  const { deps, ctx } = command;
  const { transport, requestId, waitedMs } = attempt;
  const info: AttemptInfo = { delayMs: command.waitBefore + waitedMs, requestId };
  command.waitBefore = 0;
  let result: AttemptResult;
  let classified: Classified | undefined;
  if (transport.ok) {
    command.lastRaw = transport.raw;
    classified = classify(ctx.op, transport.raw, deps.redactor);
    result = classified;
    info.status = transport.raw.status;
    info.requestId = transport.raw.headers.get("x-request-id") ?? requestId;
    if (classified.kind === "success" && classified.replayed) info.replayed = true;
    if (classified.kind === "unknown" && BODY_ERRORS.has(classified.reason)) {
      info.error = classified.reason as AttemptErrorKind;
    }
  } else {
    info.error = transport.error;
    result = { kind: "transport", error: transport.error === "timeout" ? "timeout" : "network" };
  }
  command.attempts.push(info);
  command.lastClassified = classified;
  command.lastCause = transport.ok || transport.error === "aborted" ? undefined : transport.cause;
  if (classified?.kind !== "rate_limited") command.counted += 1;
  if (deps.events.enabled) deps.events.emit(attemptEvent(ctx, info, command.attempts.length));
  command.record.noteAttempt(info, classified, deps.clock.now()); // written with the next move
  if (info.replayed) deps.events.emit(replayEvent(ctx, info));
  return { info, result, classified };
}

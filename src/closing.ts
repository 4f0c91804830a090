/**
 * client.close(): new work is refused (ClientClosedError, nothing recorded or sent), the calls,
 * waits and recover() runs already started finish — the fleet's heartbeat keeps their leases
 * meanwhile (G6: a survivor never takes a command its owner is still working on) — and only then
 * does the background work stop.
 */
import { ClientClosedError } from "../core";

export interface ClientGate {
  /**
   * Starts `work` unless the client is closed (then a rejection with ClientClosedError, nothing
   * started); its promise counts as in flight until it settles.
   */
  run<T>(what: string, work: () => Promise<T>): Promise<T>;
  /**
   * Refuses new work, then waits for `stopBackground` and for the work in flight, then calls `last`
   * (the heartbeat's stop). Idempotent: a second close() waits for the first.
   */
  close(stopBackground: () => Promise<unknown>, last: () => void): Promise<void>;
}

export function createClientGate(): ClientGate {
  let inFlight = 0;
  let closing: Promise<void> | undefined;
  let drained: (() => void) | undefined;
  const leave = () => {
    inFlight -= 1;
    if (inFlight === 0) drained?.();
  };
  return {
    run(what, work) {
      if (closing) return Promise.reject(new ClientClosedError(what));
      inFlight += 1;
      let result: ReturnType<typeof work>;
      try {
        result = work();
      } catch (error) {
        leave();
        throw error; // a set-up mistake thrown before anything started (recover() without a journal)
      }
      result.then(leave, leave);
      return result;
    },
    close(stopBackground, last) {
      closing ??= (async () => {
        const idle = inFlight === 0 ? undefined : new Promise<void>((resolve) => (drained = resolve));
        await Promise.all([stopBackground(), idle]);
        last();
      })();
      return closing;
    },
  };
}

/**
 * The client's middleware, in order, registered with openapi-fetch as ONE middleware: openapi-fetch
 * builds an argument object and awaits every middleware's onRequest (a microtask hop each, even for a
 * synchronous `undefined`); one registration costs that once per call instead of once per middleware.
 * Each step sees what openapi-fetch would have shown it: a Request a step returns replaces the request
 * for the next ones, and a Response ends the chain.
 */
import type { Middleware } from "openapi-fetch";
import { carryCallContext } from "../runner";

type OnRequest = NonNullable<Middleware["onRequest"]>;

export function chainMiddleware(...chain: Middleware[]): Middleware {
  const steps: OnRequest[] = [];
  for (const m of chain) if (m.onRequest) steps.push(m.onRequest.bind(m));
  return {
    async onRequest(options) {
      let request = options.request;
      const arg = { ...options };
      for (const step of steps) {
        const returned = step(arg);
        // Only a step that is asynchronous (a journal write) costs an await.
        const result =
          returned !== undefined && typeof (returned as Promise<unknown>).then === "function"
            ? await returned
            : returned;
        if (!result) continue;
        if (result instanceof Response) return result;
        if (!(result instanceof Request)) {
          throw new Error("onRequest: must return new Request() or Response() when modifying the request");
        }
        carryCallContext(request, result); // the call's context follows the Request it belongs to
        arg.request = request = result;
      }
      return request === options.request ? undefined : request;
    },
  };
}

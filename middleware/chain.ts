/**
 * The client's middleware, in order, registered with openapi-fetch as ONE middleware: openapi-fetch
 * builds an argument object and awaits every middleware's onRequest (a microtask hop each, even for a
 * synchronous `undefined`); one registration costs that once per call instead of once per middleware.
 * Each step sees what openapi-fetch would have shown it, plus the call's context (`callContext`): a
 * Request a step returns replaces the request for the next ones, and a Response ends the chain.
 */
import type { Middleware, MiddlewareCallbackParams } from "openapi-fetch";
import { callContextFor, type CallContext } from "../runner";

/** A step's parameters: openapi-fetch's, plus the call's context (undefined: an undocumented route). */
export type StepParams = MiddlewareCallbackParams & { callContext: CallContext | undefined };

/** One step of the chain: an openapi-fetch `onRequest` that also reads the call's context. */
export interface ChainStep {
  onRequest(params: StepParams): ReturnType<NonNullable<Middleware["onRequest"]>>;
}

type OnRequest = NonNullable<Middleware["onRequest"]>;
type OnRequestParams = Parameters<OnRequest>[0];

export interface Chain {
  /** For `client.http` (registered with `use`): a direct call's context comes from its route. */
  onRequest: OnRequest;
  /** Runs the chain for a facade call, whose context the call step built (src/call.ts). */
  run(params: OnRequestParams, callContext: CallContext): ReturnType<OnRequest>;
}

export function chainMiddleware(...chain: ChainStep[]): Chain {
  const steps: ChainStep["onRequest"][] = [];
  for (const m of chain) steps.push(m.onRequest.bind(m));
  async function run(params: OnRequestParams, callContext: CallContext | undefined) {
    let request = params.request;
    const arg: StepParams = { ...params, callContext };
    for (const step of steps) {
      const returned = step(arg);
      // Only a step that is asynchronous (a journal write) costs an await.
      const result =
        returned !== undefined && typeof (returned as Promise<unknown>).then === "function" ? await returned : returned;
      if (!result) continue;
      if (result instanceof Response) return result;
      if (!(result instanceof Request)) {
        throw new Error("onRequest: must return new Request() or Response() when modifying the request");
      }
      arg.request = request = result;
    }
    return request === params.request ? undefined : request;
  }
  return {
    run,
    onRequest: (params) => run(params, callContextFor(params.request.method, params.schemaPath)),
  };
}

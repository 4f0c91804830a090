// Type sample (checked by tsc in status-narrowing.test.ts and by `npm run typecheck`): a user's
// `switch (outcome.status)` over a rejected outcome gets exactly the codes the spec ties to that
// status (E4), with a code from a newer server still kept (`unknownCode: true`).
import type { Outcome } from "../../../src";
import type { ApiError } from "../../../generated/errors";

export function guidance(outcome: Outcome): string {
  if (outcome.kind !== "rejected") return "";
  const error = outcome.error;
  switch (outcome.status) {
    case 401: {
      if (outcome.error === undefined) return "no envelope";
      if (outcome.error.unknownCode) {
        const kept: string = outcome.error.code;
        return kept;
      }
      const code: "unauthenticated" = outcome.error.code;
      // @ts-expect-error a 401 never carries `conflict` (E4)
      const wrong: "conflict" = outcome.error.code;
      return `${code}${wrong}`;
    }
    case 403: {
      if (!outcome.error || outcome.error.unknownCode) return "";
      const code: "forbidden" = outcome.error.code;
      return code;
    }
    case 422: {
      if (!outcome.error || outcome.error.unknownCode) return "";
      const fields: Record<string, string[]> | [] = outcome.error.details;
      return Object.keys(fields).join(",");
    }
    case 429: {
      if (!outcome.error || outcome.error.unknownCode) return "";
      const seconds: number = outcome.error.details.retry_after;
      return String(seconds);
    }
    case 410: {
      // A status the spec does not declare (a proxy's): any code may come.
      const any: ApiError | undefined = outcome.error;
      return any?.code ?? "";
    }
    // @ts-expect-error 409 is a conflict outcome, never a rejected one
    case 409:
      return "";
    default: {
      const status: number = outcome.status;
      return String(status) + String(error?.code);
    }
  }
}

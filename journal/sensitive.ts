/**
 * H2: request fields a resend needs but the journal must not keep once a command is settled — what
 * the spec marks `x-sensitive-fields` on an operation's request body (ticket text with personal
 * data, auth codes). Stores drop such a body when the command settles.
 */
import { operationTable } from "../generated/operations";

const NONE: readonly string[] = [];

/** The request body fields of `operationId` that the spec marks sensitive ([] for none or unknown). */
export function requestSensitiveFields(operationId: string): readonly string[] {
  const op = (operationTable as Record<string, { requestSensitiveFields?: readonly string[] } | undefined>)[
    operationId
  ];
  return op?.requestSensitiveFields ?? NONE;
}

/**
 * Exit codes a script can branch on, most severe first. They are part of the CLI's interface:
 * `reseller --help` prints EXIT_CODE_HELP, and docs/guides/cli.md repeats it.
 */
export const EXIT = {
  /** Every row is done (or was already done by an earlier run). */
  ok: 0,
  /** Some rows were rejected (bad input line, or the API said no): nothing happened for them. */
  rejected: 1,
  /** Usage error: bad flags, a token on the command line, missing credentials. Nothing was sent. */
  usage: 2,
  /** Some outcomes are unknown, need a manual check, or are still pending: re-run or check them. */
  unsettled: 3,
  /** The job could not start or stopped on an unexpected error (journal, network, context). */
  failure: 4,
  /** Interrupted by Ctrl-C before every row was started; re-run the same command to resume. */
  interrupted: 130,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

export const EXIT_CODE_HELP = `Exit codes:
  0    all done (including rows an earlier run already finished)
  1    some rows rejected (bad input line or API rejection); nothing happened for them
  2    usage error (bad flags, token on the command line, no credentials); nothing sent
  3    some outcomes unknown, waiting for a manual check, or still pending: re-run, then \`reseller commands notes\`
  4    could not start or stopped on an unexpected error (journal, network)
  130  interrupted by Ctrl-C, SIGTERM or a closed stdout: re-run the same command to resume`;

/** Outcome kinds of one row, as printed in results and the summary table. */
export type ResultKind =
  "done" | "already_done" | "accepted" | "dry_run" | "rejected" | "invalid" | "unknown" | "manual" | "pending";

const UNSETTLED: ReadonlySet<ResultKind> = new Set(["unknown", "manual", "pending"]);
const REJECTED: ReadonlySet<ResultKind> = new Set(["rejected", "invalid"]);

/** The exit code for a finished (or interrupted) job from its per-kind counts. */
export function exitCodeFor(counts: Partial<Record<ResultKind, number>>, interrupted: boolean): ExitCode {
  if (interrupted) return EXIT.interrupted;
  const has = (set: ReadonlySet<ResultKind>) => [...set].some((k) => (counts[k] ?? 0) > 0);
  if (has(UNSETTLED)) return EXIT.unsettled;
  if (has(REJECTED)) return EXIT.rejected;
  return EXIT.ok;
}

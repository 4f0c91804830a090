// One size of the year-of-history bench (scale.ts): every figure of the near-empty baseline journal and
// of the journal with history, taken in rounds that alternate between the two (and which goes first),
// each figure the median of its rounds. On 2 shared cores the load moves by 10× within minutes, and a
// spawned CLI's wall time moves by ±20 % from one run to the next: a ratio history ÷ baseline of
// figures taken once each would carry that noise into the 1M fit, which doubles it.
import type { Journal } from "../src/index";
import { median, percentile } from "./lib/stats";
import { cliRenew, cliShowMs, type CliFigures } from "./scale-cli";
import { commandTimesUs, recoverThousand } from "./scale-history";

export interface ScaleRow {
  store: string;
  size: string;
  /** History rows actually in the journal (the fill may stop at its time budget). */
  commands: number;
  measured: boolean;
  journalUs: number;
  journalP95Us: number;
  recoverMs: number;
  cli?: CliFigures;
  /** A baseline row: the history row measured in turn with it. */
  pairedWith?: string;
  /** A history row: each round's figure ÷ its baseline's in the same round (how far one round moves). */
  roundRatios?: Partial<Record<RatioFigure, number[]>>;
}

export type RatioFigure = "journal" | "recover" | "renew" | "firstRow" | "show";

/** Rounds per figure and side, even so that each side goes first as often; the journal's rounds pool their samples (COMMANDS_PER_ROUND each). */
export const ROUNDS = { journal: 6, recover: 4, renew: 4, show: 6 } as const;
const COMMANDS_PER_ROUND = 100;

export interface PairSide {
  journal: Journal;
  /** The CLI's --journal value (none for memory). */
  cliJournal?: string;
  /** The Idempotency-Key `commands show` looks up in this journal. */
  showKey?: string;
  /** The row's store, size label and history rows. */
  store: string;
  size: string;
  commands: number;
}

/** Runs `take(side)` for both sides, `rounds` times, the first side first in even rounds. */
async function alternate<T>(sides: readonly PairSide[], rounds: number, take: (s: PairSide) => Promise<T>) {
  const out: T[][] = sides.map(() => []);
  for (let r = 0; r < rounds; r++) {
    const order = r % 2 === 0 ? [0, 1] : [1, 0];
    for (const i of order) out[i].push(await take(sides[i]));
  }
  return out;
}

/** The baseline's row and the history's row, every figure taken in alternating rounds. */
export async function measurePair(
  base: PairSide,
  big: PairSide,
  o: { apiKeyId: string; bin: string; account: { namesFile: string; env: Record<string, string> } },
): Promise<[ScaleRow, ScaleRow]> {
  const sides = [base, big];
  const journal = await alternate(sides, ROUNDS.journal, (s) =>
    commandTimesUs(s.journal, o.apiKeyId, COMMANDS_PER_ROUND, 10),
  );
  const recover = await alternate(sides, ROUNDS.recover, async (s) => {
    const rec = await recoverThousand(s.journal);
    if (rec.resolved !== 1000) throw new Error(`${s.store}: recover() settled ${rec.resolved} of 1000`);
    return rec.ms;
  });
  const withCli = sides.every((s) => s.cliJournal !== undefined);
  const renew = withCli ? await alternate(sides, ROUNDS.renew, (s) => cliRenew(o.bin, o.account, s.cliJournal!)) : [];
  const show = withCli
    ? await alternate(sides, ROUNDS.show, (s) => cliShowMs(o.bin, o.account, s.cliJournal!, s.showKey!))
    : [];
  const rows = sides.map((s, i): ScaleRow => {
    const times = journal[i].flat();
    return {
      store: s.store,
      size: s.size,
      commands: s.commands,
      measured: true,
      journalUs: median(times),
      journalP95Us: percentile(times, 95),
      recoverMs: median(recover[i]),
      cli: withCli
        ? {
            renewMs: median(renew[i].map((r) => r.renewMs)),
            firstRowMs: median(renew[i].map((r) => r.firstRowMs)),
            peakRssMb: Math.max(...renew[i].map((r) => r.peakRssMb)),
            showMs: median(show[i]),
          }
        : undefined,
    };
  });
  const perRound = (pick: (side: number) => number[]) => pick(0).map((b, k) => pick(1)[k] / b);
  rows[1].roundRatios = {
    journal: perRound((i) => journal[i].map(median)),
    recover: perRound((i) => recover[i]),
    ...(withCli && {
      renew: perRound((i) => renew[i].map((r) => r.renewMs)),
      firstRow: perRound((i) => renew[i].map((r) => r.firstRowMs)),
      show: perRound((i) => show[i]),
    }),
  };
  for (const row of rows) process.stderr.write(`scale: ${row.store} at ${row.size}: ${JSON.stringify(row)}\n`);
  return [{ ...rows[0], pairedWith: big.size }, rows[1]];
}

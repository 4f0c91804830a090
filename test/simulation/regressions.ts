/**
 * The shortest runs (fast-check shrunk) in which the simulation found defects on the code
 * before the fixes. Kept as scenarios, not only as seed + path, so they replay even after the
 * scenario generator changes. Each must now run with no violation at all.
 */
import type { Scenario } from "./scenario";

export interface Regression {
  name: string;
  /** The invariant the defect broke. */
  invariant: string;
  scenario: Scenario;
}

export const REGRESSIONS: Regression[] = [
  {
    // w0 orders cmd-0; w1's job re-runs it 46 s later, past the 45 s replay TTL: the same-key call on a
    // settled command went out with no journal write → a second order.
    // Found as: npm run simulate -- --seed 20 --path 19:0:3:6:8:1:2:2:1:3:2:3:3:3:3:7:5:5:5:5
    name: "D6, G1: a same-key call of a settled command past the replay TTL is answered from the journal, not bought again",
    invariant: "at most one effect per business command",
    scenario: {
      seed: 0,
      journal: "memory",
      workers: 2,
      continuous: [false],
      commands: ["order"],
      scripts: [
        [
          { op: "cmd", cmd: 0, wait: false },
          { op: "pause", ms: 1000 },
        ],
        [
          { op: "pause", ms: 46000 },
          { op: "cmd", cmd: 0, wait: false },
        ],
      ],
      events: [],
      schedule: [],
    },
  },
  {
    // w0 orders cmd-0: the server commits it and the answer is lost, the lookup by external_id fails, so
    // the command is journalled `unknown`; time passes the 45 s replay TTL while the application waits to
    // retry, and its same-key retry resumed the command by resending it without a lookup → a second order.
    // Diagnosed from: npm run simulate -- --seed 7 --path 172:0:0:0:0:0:0:0:1:0:1:2:2:2:5:7:13:19:17
    name: "D7, F5: a same-key retry of an unknown order past the replay TTL looks the order up first, not bought again",
    invariant: "at most one effect per business command",
    scenario: {
      seed: 0,
      journal: "memory",
      workers: 1,
      continuous: [false],
      commands: ["order"],
      scripts: [[{ op: "cmd", cmd: 0, wait: false }]],
      events: [
        { step: 0, kind: "fault", fault: "timeout_after", path: "orders", times: 1 },
        { step: 0, kind: "fault", fault: "error_503_before", path: "any", times: 1 },
        { step: 5, kind: "jump", to: "ttl" },
      ],
      schedule: [],
    },
  },
  {
    // Two workers order cmd-0; the owner crashes and its restart (a new id) re-runs the job past the
    // replay TTL: the same-key call on a settled command went out unjournalled → a second order.
    name: "D6, G1: a restarted worker re-running a settled order past the replay TTL does not buy it again",
    invariant: "at most one effect per business command",
    scenario: {
      seed: 0,
      journal: "memory",
      workers: 2,
      continuous: [true],
      commands: ["order"],
      scripts: [[{ op: "cmd", cmd: 0, wait: false }]],
      events: [{ step: 87, kind: "crash", worker: 0, restart: true }],
      schedule: [],
    },
  },
  {
    // One worker, no faults: its continuous recovery claims the command its own call just recorded and
    // moves it to unknown; the call's answer then fails the transition and threw after the 201.
    // Found as: npm run simulate -- --seed 20 --path 11:0:3:4:6:6:2:5:5:5:5:5:5:9:19:2:2:2:0:4:4
    name: "G4: a worker's own recovery never takes the command its call is sending; the call never throws after the send",
    invariant: "no throw after a send",
    scenario: {
      seed: 0,
      journal: "memory",
      workers: 1,
      continuous: [true],
      commands: ["order"],
      scripts: [[{ op: "cmd", cmd: 0, wait: false }]],
      events: [],
      schedule: [0, 3],
    },
  },
  {
    // w0 (no background recovery) waits on its renewal longer than the 30 s lease; the lease lapsed
    // during operations.wait and w1's recovery claimed the live command.
    // Found as: npm run simulate -- --seed 20 --path 12:0:3:2:4:5:5
    name: "F1, G6: operations.wait holds the command's lease for its whole duration; no survivor claims it",
    invariant: "no command in two workers' hands",
    scenario: {
      seed: 0,
      journal: "memory",
      workers: 2,
      continuous: [false, true],
      commands: ["renew", "order"],
      scripts: [[{ op: "cmd", cmd: 0, wait: true }]],
      events: [],
      schedule: [],
    },
  },
  {
    // Two workers renew cmd-0 and wait: the second caller's request went out unfenced and its wait
    // wrote `completed` over the owner's live lease.
    name: "G1, G6: a same-key call on a command another worker holds never writes over that worker's lease",
    invariant: "no journal write by a non-owner",
    scenario: {
      seed: 0,
      journal: "memory",
      workers: 2,
      continuous: [true],
      commands: ["renew"],
      scripts: [
        [
          { op: "cmd", cmd: 0, wait: true },
          { op: "cmd", cmd: 0, wait: false },
        ],
      ],
      events: [],
      schedule: [],
    },
  },
  {
    // Orders whose first attempts are reset before the server; the shared window store goes down while
    // a retry waits for its pacer slot: the reserve's error was thrown at the application after the send.
    // Found as: npm run simulate -- --seed 20 --path 152 (the --runs 100000 run, before the fix)
    name: "E4, G4: a window store outage before a retry of a sent write ends as an Outcome (store_unavailable), never a throw",
    invariant: "no throw after a send",
    scenario: {
      seed: 567817771,
      journal: "memory",
      workers: 3,
      continuous: [true, false],
      commands: ["renew", "order", "order", "order"],
      scripts: [
        [
          { op: "cmd", cmd: 2, wait: false },
          { op: "cmd", cmd: 2, wait: false },
          { op: "cmd", cmd: 4, wait: false },
          { op: "pause", ms: 31000 },
        ],
        [{ op: "cmd", cmd: 2, wait: true }, { op: "recover" }, { op: "cmd", cmd: 4, wait: false }],
      ],
      events: [
        { step: 23, kind: "store-outage", worker: "all", steps: 17 },
        { step: 152, kind: "journal-outage", worker: 0, steps: 26 },
        { step: 8, kind: "fault", fault: "reset_before", path: "orders", times: 3 },
        { step: 87, kind: "crash", worker: 3, restart: true },
      ],
      schedule: [0, 12, 5, 3, 1, 8, 2, 6, 11],
    },
  },
  {
    // w1 records cmd-0, then its window store and journal stall past the lease (its heartbeat's renewal
    // unanswered); w0 claims it and sends. The lease was checked before the pacer's slot, not after:
    // w1 sent the same key as w0, unfenced. Found as: npm run simulate -- --seed 20 --path 17918
    name: "I5, I6: the lease is checked after the pacer's slot — a slot wait that outlasts the lease sends nothing over a survivor's lease",
    invariant: "no command in two workers' hands",
    scenario: {
      seed: 641514860,
      journal: "sqlite",
      workers: 2,
      continuous: [true, false, true],
      commands: ["renew", "order"],
      scripts: [
        [
          { op: "pause", ms: 46000 },
          { op: "cmd", cmd: 4, wait: true },
          { op: "pause", ms: 31000 },
          { op: "cmd", cmd: 0, wait: true },
          { op: "cmd", cmd: 2, wait: false },
          { op: "cmd", cmd: 2, wait: false },
        ],
        [
          { op: "cmd", cmd: 2, wait: true },
          { op: "cmd", cmd: 3, wait: false },
          { op: "cmd", cmd: 3, wait: false },
        ],
        [
          { op: "cmd", cmd: 2, wait: false },
          { op: "pause", ms: 31000 },
          { op: "cmd", cmd: 0, wait: true },
        ],
      ],
      events: [
        { step: 61, kind: "fault", fault: "timeout_after", path: "orders", times: 2 },
        { step: 56, kind: "crash-at", worker: 3, role: "call", at: "store.reserve", restart: true },
        { step: 46, kind: "journal-outage", worker: "all", steps: 13 },
        { step: 19, kind: "crash-at", worker: 2, role: "recovery", at: "send GET", restart: true },
        { step: 15, kind: "crash", worker: 1, restart: true },
        { step: 131, kind: "crash", worker: 1, restart: true },
        { step: 109, kind: "crash", worker: 2, restart: true },
      ],
      schedule: [0, 3, 12, 8, 3, 7, 3, 6],
    },
  },
  {
    // The window is full but one slot; a `Retry-After: 0` 429 closed the pacer's window as if the
    // server's had reset, so the next sends opened a window 300 ms before the server's ended → a 429.
    // Found as: npm run simulate -- --seed 20 --path 2422
    name: "C11, C12: a `Retry-After: 0` 429 proves no window over — no 429 from our own pacing after it",
    invariant: "0 × 429 from our own pacing",
    scenario: {
      seed: 9,
      journal: "sqlite",
      workers: 3,
      continuous: [true, true, true],
      commands: ["renew", "renew", "order"],
      scripts: [
        [
          { op: "pause", ms: 46000 },
          { op: "recover" },
          { op: "cmd", cmd: 3, wait: false },
          { op: "cmd", cmd: 2, wait: true },
          { op: "recover" },
          { op: "cmd", cmd: 0, wait: true },
        ],
        [{ op: "cmd", cmd: 4, wait: true }, { op: "recover" }],
      ],
      events: [{ step: 115, kind: "fault", fault: "retry_after_zero", path: "renew", times: 1 }],
      schedule: [7, 1, 11, 5, 8, 5, 9, 1, 4],
    },
  },
  {
    // w1's renewal is accepted while its journal is down: the wait's lease request failed and it went on
    // read-only for good, so once its lease ran out w0's recovery took the command under a live wait.
    // Found as: npm run simulate -- --seed 21 --path 57:0:7:6:6:6:7:6:9:10:11:17:16:15:16:16:10:11:13:18
    name: "F1, I5: a wait that started while its journal was down takes the lease once the journal answers",
    invariant: "no command in two workers' hands",
    scenario: {
      seed: 0,
      journal: "memory",
      workers: 2,
      continuous: [true],
      commands: ["order", "renew", "order"],
      scripts: [[{ op: "cmd", cmd: 0, wait: false }], [{ op: "cmd", cmd: 1, wait: true }, { op: "recover" }]],
      events: [{ step: 4, kind: "journal-outage", worker: 3, steps: 19 }],
      schedule: [],
    },
  },
  {
    // w0's renewal is accepted while its journal is down; its wait's first poll then waits ~50 s for a
    // pacer slot, and a wait that asked for the lease only before each poll held nothing all that time:
    // w1's recovery took the command under the live wait. Found as: npm run simulate -- --seed 22 --path
    // 2053:0:14:13:20:22:22:22:22:25:24:26:27:26:29:28:28:27:32:28:29:27:31:27:28:28:34
    name: "F1, I5: a wait keeps asking for its lease every heartbeat period while the journal is down, not only between polls",
    invariant: "no command in two workers' hands",
    scenario: {
      seed: 0,
      journal: "memory",
      workers: 2,
      continuous: [true],
      commands: ["renew", "order", "order", "renew"],
      scripts: [
        [
          { op: "cmd", cmd: 2, wait: false },
          { op: "cmd", cmd: 0, wait: false },
          { op: "cmd", cmd: 1, wait: false },
          { op: "cmd", cmd: 3, wait: true },
          { op: "cmd", cmd: 0, wait: false },
        ],
        [{ op: "cmd", cmd: 1, wait: false }, { op: "cmd", cmd: 0, wait: true }, { op: "recover" }],
      ],
      events: [{ step: 56, kind: "journal-outage", worker: 0, steps: 51 }],
      schedule: [],
    },
  },
  {
    // A proxy's dated 429 paused the key while the window store had not applied the pause yet: the pump
    // kept asking it, refunding each grant, and every refunded grant moved the spacing cursor on — after
    // a few, every slot lay past every deadline and the wait never settled its command.
    // Found as: npm run simulate -- --seed 20 --path 20538:0:2:4:11:10:2:5:8:8:9:11:11:4:9:11:7:8:11:11:10:13:19:7:9:9:18:18:21:21:20:21:21:19:19
    name: "C12, I1: during a 429 pause the pacer asks its window store nothing, so no refunded grant pushes the key's slots past every deadline",
    invariant: "settled within the bound",
    scenario: {
      seed: 0,
      journal: "memory",
      workers: 3,
      continuous: [true],
      commands: ["renew"],
      scripts: [
        [{ op: "cmd", cmd: 0, wait: false }, { op: "recover" }, { op: "cmd", cmd: 0, wait: true }],
        [{ op: "pause", ms: 1000 }],
      ],
      events: [
        { step: 25, kind: "fault", fault: "proxy_429_date", path: "any", times: 1 },
        { step: 40, kind: "store-outage", worker: "all", steps: 5 },
      ],
      schedule: [],
    },
  },
  {
    // A send in the last guard of a confirmed window opened the next window as a straddler, whose
    // answer confirms nothing; no other send fell between the old window's end and the new one's safe
    // instant, so that window was never confirmed and held the key until its unconfirmed deadline
    // (2 windows after it opened) with 13 of 20 slots free: the survivor's operation poll waited past
    // the bound. Found as: npm run simulate -- --seed 10391 --path
    // 1342:14:10:3:3:7:6:10:5:8:11:11:11:11:11:15:13:13:16:13:13:15:18:19:18:21:29:31:33:36:38:43
    name: "I3, C8: a window opened by a straddler and confirmed by nothing does not hold the key past its safe instant while it has room",
    invariant: "settled within the bound",
    scenario: {
      seed: 491533424,
      journal: "memory",
      workers: 1,
      continuous: [false],
      commands: ["renew", "renew"],
      scripts: [
        [{ op: "cmd", cmd: 0, wait: false }, { op: "cmd", cmd: 3, wait: false }, { op: "recover" }],
        [{ op: "cmd", cmd: 0, wait: false }],
      ],
      events: [
        { step: 0, kind: "fault", fault: "proxy_429_date", path: "renew", times: 1 },
        { step: 21, kind: "crash-at", worker: 0, role: "call", at: "recv POST", restart: false },
        { step: 0, kind: "fault", fault: "proxy_502_html", path: "any", times: 2 },
        { step: 20, kind: "crash-at", worker: 0, role: "call", at: "send POST", restart: true },
      ],
      schedule: [0, 0, 0, 0, 7],
    },
  },
  {
    // w0's background round took cmd-4, cmd-2 and cmd-0 on two lanes; the lane on cmd-2 failed on a
    // journal outage and the round returned, handing cmd-0 back untouched — while the other lane, still
    // on cmd-4, went on to take cmd-0 next. By then w0's own wait held cmd-0, and the stray lane polled
    // it and wrote over the wait's hold (and let its lease go, so w1 claimed it from the live wait).
    // Found as: npm run simulate -- --seed 120712 --path 505
    name: "I6: a recovery round that fails returns only once every lane has stopped, so no lane takes a command the round handed back",
    invariant: "one mover per command",
    scenario: {
      seed: 2147483617,
      journal: "sqlite",
      workers: 2,
      continuous: [true],
      commands: ["renew", "order", "renew", "renew", "renew"],
      scripts: [
        [
          { op: "cmd", cmd: 2, wait: false },
          { op: "cmd", cmd: 0, wait: true },
          { op: "cmd", cmd: 4, wait: false },
          { op: "cmd", cmd: 0, wait: true },
        ],
        [
          { op: "cmd", cmd: 1, wait: false },
          { op: "cmd", cmd: 1, wait: false },
          { op: "pause", ms: 31000 },
          { op: "cmd", cmd: 1, wait: false },
          { op: "cmd", cmd: 2, wait: false },
          { op: "cmd", cmd: 0, wait: false },
        ],
        [{ op: "recover" }, { op: "cmd", cmd: 0, wait: true }, { op: "cmd", cmd: 1, wait: true }],
      ],
      events: [
        { step: 34, kind: "store-outage", worker: 0, steps: 23 },
        { step: 1, kind: "crash-at", worker: 1, role: "wait", at: "journal.claim", restart: true },
        { step: 140, kind: "journal-outage", worker: 3, steps: 13 },
      ],
      schedule: [3, 1, 1, 8],
    },
  },
  {
    // A poll of the window before left 5 s before its server window ended and, the clock jumping, reached
    // the server only after it: it opened the server's next window (Remaining L − 1) ahead of the
    // straddler that opened ours, and its answer — from the window before — raised nothing, so the
    // shared store counted one send too few and the 21st poll of that window got a 429.
    // Found as: npm run simulate -- --seed 81207 --path 11306:0:3:13:15:14:24:25:28:19:25:27:31:33:37:36:40:43:46:49:53:48
    name: "C3, C8: a send of the window before that opened the server's next window counts in ours, though its answer came after a straddler opened it",
    invariant: "0 × 429 from our own pacing",
    scenario: {
      seed: 0,
      journal: "memory",
      workers: 2,
      continuous: [false],
      commands: ["order", "renew", "renew", "order"],
      scripts: [
        [
          { op: "cmd", cmd: 1, wait: true },
          { op: "cmd", cmd: 2, wait: true },
          { op: "cmd", cmd: 0, wait: false },
        ],
      ],
      events: [
        { step: 64, kind: "jump", to: "lease" },
        { step: 87, kind: "jump", to: "short" },
        { step: 0, kind: "fault", fault: "rate_limit_no_header", path: "operations", times: 3 },
      ],
      schedule: [0, 3, 0, 0, 0, 0, 2],
    },
  },
];

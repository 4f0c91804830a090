// Issue 27: the emulator's costs per request and per page — seeding 100k domains, and a list page
// (the last one, found by cursor) at 100k against the same page at 1k, in one run.
import { createEmulator, seedDomains } from "../emulator/public";
import { VirtualClock } from "../src/index";

export interface EmulatorScaleResult {
  seed100kMs: number;
  page1kMs: number;
  page100kMs: number;
}

async function pageMs(count: number): Promise<{ seedMs: number; pageMs: number }> {
  const emulator = createEmulator({ clock: new VirtualClock({ autoAdvance: false }), defaultRateLimit: 10_000 });
  const key = emulator.control.createKey({ environment: "test", rate_limit_per_minute: 10_000 });
  const started = performance.now();
  seedDomains(emulator, { token: key.token, count });
  const seedMs = performance.now() - started;
  const headers = { authorization: `Bearer ${key.token}` };
  const base = "http://emulator.test/api/reseller/v1/domains?per_page=100";
  // A cursor near the end: the page the old code paid most for.
  const cursor = Buffer.from(JSON.stringify({ v: 1, after: count - 150 })).toString("base64url");
  const rounds = 200;
  for (let i = 0; i < 20; i++) await emulator.fetch(`${base}&cursor=${cursor}`, { headers });
  const t = performance.now();
  for (let i = 0; i < rounds; i++) await emulator.fetch(`${base}&cursor=${cursor}`, { headers });
  const ms = (performance.now() - t) / rounds;
  await emulator.close();
  return { seedMs, pageMs: ms };
}

export async function runEmulatorScale(): Promise<EmulatorScaleResult> {
  const small = await pageMs(1_000);
  const large = await pageMs(100_000);
  return { seed100kMs: large.seedMs, page1kMs: small.pageMs, page100kMs: large.pageMs };
}

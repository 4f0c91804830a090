/**
 * The Lua port of pacing/memory-window-store.ts (applyReserve & co.). Each WindowStore method is
 * ONE script over two keys — KEYS[1] the per-key hash, KEYS[2] a window sequence counter that never
 * expires (so an expired hash cannot reuse an old windowId) — so N processes on one API key share
 * one atomic decision (I1). Times come from the caller (ARGV), never from Redis TIME.
 *
 * Every script replies with the record after the operation:
 *   { flag, at, open, seq, windowStart, windowEnd|"", count, limit, windowMs, guardMs, nextSlotAt, pausedUntil }
 * numbers formatted with %.17g so fractional spacing survives exactly.
 */

const PRELUDE = `
local H, SEQ = KEYS[1], KEYS[2]
local function num(s) if s == false or s == nil or s == '' then return nil end return tonumber(s) end
local function f(x) if x == nil then return '' end return string.format('%.17g', x) end
local function load()
  local h = redis.call('HMGET', H, 'open', 'ws', 'we', 'count', 'limit', 'wms', 'gms', 'next', 'paused', 'lastNow')
  return {
    open = h[1] == '1', ws = num(h[2]) or 0, we = num(h[3]), count = num(h[4]) or 0, limit = num(h[5]) or 0,
    wms = num(h[6]) or 0, gms = num(h[7]) or 0, next = num(h[8]) or 0, paused = num(h[9]) or 0,
    lastNow = num(h[10]) or 0, seq = num(redis.call('GET', SEQ)) or 0,
  }
end
-- Keys may expire once every time in them has passed (window-store.ts); grace covers clock drift.
local function save(r, now, grace)
  if now ~= nil and now > r.lastNow then r.lastNow = now end
  redis.call('HSET', H, 'open', r.open and '1' or '0', 'ws', f(r.ws), 'we', f(r.we), 'count', f(r.count),
    'limit', f(r.limit), 'wms', f(r.wms), 'gms', f(r.gms), 'next', f(r.next), 'paused', f(r.paused),
    'lastNow', f(r.lastNow))
  local last = math.max(r.paused, r.next)
  if r.open then last = math.max(last, r.we or (r.ws + 2 * r.wms + r.gms)) end
  local ttl = math.floor(math.max(last - r.lastNow, 0) + grace)
  if ttl < 1 then ttl = 1 end
  redis.call('PEXPIRE', H, ttl)
end
local function reply(r, flag, at)
  return { tostring(flag), f(at), r.open and '1' or '0', f(r.seq), f(r.ws), f(r.we), f(r.count), f(r.limit),
    f(r.wms), f(r.gms), f(r.next), f(r.paused) }
end
local function current(r, id) return r.open and f(r.seq) == id end
`;

/** ARGV: limit, windowMs, spacingMs, guardMs, now, graceMs. flag 1 = granted (at = sendAt), 0 = refused (at = retryAt). */
export const RESERVE_LUA = `${PRELUDE}
local limit, wms, spacing, gms, now, grace =
  tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6])
local r = load()
if now < r.paused then return reply(r, 0, r.paused) end
local t = math.max(now, r.next)
local deadline = r.ws + 2 * r.wms + r.gms
if r.open then
  local over
  if r.we ~= nil then over = t >= r.we else over = t >= deadline end
  if over then r.open = false end
end
if not r.open then
  r.seq = redis.call('INCR', SEQ)
  r.open = true; r.ws = t; r.we = nil; r.count = 1; r.limit = limit; r.wms = wms; r.gms = gms
  r.next = t + spacing
  save(r, now, grace)
  return reply(r, 1, t)
end
r.limit = limit
if r.count < limit and t < r.ws + r.wms - r.gms then
  r.count = r.count + 1
  r.next = t + spacing
  save(r, now, grace)
  return reply(r, 1, t)
end
deadline = r.ws + 2 * r.wms + r.gms
local retry
if r.we ~= nil then retry = math.max(r.we, now)
else retry = math.min(now + math.max(1, math.min(spacing, 250)), deadline) end
save(r, now, grace)
return reply(r, 0, math.max(retry, now))
`;

/** ARGV: windowId, graceMs. */
export const REFUND_LUA = `${PRELUDE}
local r = load()
if current(r, ARGV[1]) then
  r.count = math.max(0, r.count - 1)
  save(r, nil, tonumber(ARGV[2]))
end
return reply(r, -1, nil)
`;

/** ARGV: windowId, receivedAt, graceMs. */
export const CONFIRM_LUA = `${PRELUDE}
local r = load()
local received = tonumber(ARGV[2])
if current(r, ARGV[1]) then
  local e = math.max(received, r.ws) + r.wms + r.gms
  if r.we == nil then r.we = e else r.we = math.min(r.we, e) end
  save(r, received, tonumber(ARGV[3]))
end
return reply(r, -1, nil)
`;

/** ARGV: windowId, remaining, limit, now, graceMs, valid ("1" when remaining and limit are finite). */
export const OBSERVE_LUA = `${PRELUDE}
local r = load()
if current(r, ARGV[1]) and ARGV[6] == '1' then
  local used = math.max(0, tonumber(ARGV[3]) - tonumber(ARGV[2]))
  r.count = math.max(r.count, used)
  save(r, tonumber(ARGV[4]), tonumber(ARGV[5]))
end
return reply(r, -1, nil)
`;

/** ARGV: until ("" when not finite), windowId ("" for null), hasWindowId ("1"/"0"), graceMs. */
export const PAUSE_LUA = `${PRELUDE}
local r = load()
local untilMs = num(ARGV[1])
if untilMs ~= nil then r.paused = math.max(r.paused, untilMs) end
r.next = math.max(r.next, r.paused)
if ARGV[3] == '0' or current(r, ARGV[2]) then r.open = false end
save(r, nil, tonumber(ARGV[4]))
return reply(r, -1, nil)
`;

/** Read-only. */
export const PEEK_LUA = `${PRELUDE}
return reply(load(), -1, nil)
`;

/**
 * The Lua port of pacing/memory-window-store.ts (applyReserve & co.). Each WindowStore method is
 * ONE script over two keys — KEYS[1] the per-key hash, KEYS[2] a window sequence counter that never
 * expires (so an expired hash cannot reuse an old windowId) — so N processes on one API key share
 * one atomic decision (I1). Times come from the caller (ARGV), never from Redis TIME.
 *
 * Every script replies with the record after the operation:
 *   { flag, at, open, seq, windowStart, windowEnd|"", count, limit, windowMs, guardMs, nextSlotAt, pausedUntil,
 *     ord, firstOrd, trusted, endGuardMs, peakUsed, peakAt, peakSentAt, priorUsed, priorAt, priorSentAt,
 *     straddleUntil, straddleRoom, limitLearned }
 * numbers formatted with %.17g so fractional spacing survives exactly.
 */

const PRELUDE = `
local H, SEQ = KEYS[1], KEYS[2]
local function num(s) if s == false or s == nil or s == '' then return nil end return tonumber(s) end
local function f(x) if x == nil then return '' end return string.format('%.17g', x) end
local function load()
  local h = redis.call('HMGET', H, 'open', 'ws', 'we', 'count', 'limit', 'wms', 'gms', 'next', 'paused', 'lastNow',
    'ord', 'ford', 'trust', 'egms', 'pku', 'pka', 'pks', 'pru', 'pra', 'prs', 'su', 'sr', 'll')
  return {
    open = h[1] == '1', ws = num(h[2]) or 0, we = num(h[3]), count = num(h[4]) or 0, limit = num(h[5]) or 0,
    wms = num(h[6]) or 0, gms = num(h[7]) or 0, next = num(h[8]) or 0, paused = num(h[9]) or 0,
    lastNow = num(h[10]) or 0, ord = num(h[11]) or 0, ford = num(h[12]) or 0, trust = h[13] == '1',
    egms = num(h[14]) or num(h[7]) or 0,
    pku = num(h[15]) or -1, pka = num(h[16]) or 0, pks = num(h[17]) or 0,
    pru = num(h[18]) or -1, pra = num(h[19]) or 0, prs = num(h[20]) or 0,
    su = num(h[21]) or 0, sr = num(h[22]) or 0, ll = h[23] == '1',
    seq = num(redis.call('GET', SEQ)) or 0,
  }
end
-- Keys may expire once every time in them has passed (window-store.ts); grace covers clock drift.
local function save(r, now, grace)
  if now ~= nil and now > r.lastNow then r.lastNow = now end
  redis.call('HSET', H, 'open', r.open and '1' or '0', 'ws', f(r.ws), 'we', f(r.we), 'count', f(r.count),
    'limit', f(r.limit), 'wms', f(r.wms), 'gms', f(r.gms), 'next', f(r.next), 'paused', f(r.paused),
    'lastNow', f(r.lastNow), 'ord', f(r.ord), 'ford', f(r.ford),
    'trust', r.trust and '1' or '0', 'egms', f(r.egms),
    'pku', f(r.pku), 'pka', f(r.pka), 'pks', f(r.pks), 'pru', f(r.pru), 'pra', f(r.pra), 'prs', f(r.prs),
    'su', f(r.su), 'sr', f(r.sr), 'll', r.ll and '1' or '0')
  local last = math.max(r.paused, r.next)
  if r.open then last = math.max(last, r.we or (r.ws + 2 * r.wms + r.gms)) end
  local ttl = math.floor(math.max(last - r.lastNow, 0) + grace)
  if ttl < 1 then ttl = 1 end
  redis.call('PEXPIRE', H, ttl)
end
local function reply(r, flag, at)
  return { tostring(flag), f(at), r.open and '1' or '0', f(r.seq), f(r.ws), f(r.we), f(r.count), f(r.limit),
    f(r.wms), f(r.gms), f(r.next), f(r.paused), f(r.ord), f(r.ford), r.trust and '1' or '0', f(r.egms),
    f(r.pku), f(r.pka), f(r.pks), f(r.pru), f(r.pra), f(r.prs), f(r.su), f(r.sr), r.ll and '1' or '0' }
end
local function current(r, id) return r.open and f(r.seq) == id end
local function straddler(r, id) return r.open and f(r.seq) .. 's' == id end
local function resetPeaks(r) r.pku = -1; r.pka = 0; r.pks = 0; r.pru = -1; r.pra = 0; r.prs = 0 end
`;

/**
 * ARGV: limit, windowMs, spacingMs, guardMs, now, graceMs, burst, endGuardMs ("" = guardMs), limitAssumed ("1": the
 * pacer's limit is only its assumption, so a limit another pacer learned is used). flag 1 = granted (at = sendAt),
 * 2 = granted to a straddler (its windowId is straddlerWindowId(seq)), 0 = refused (at = retryAt). The grant's ordinal is the reply's `ord`.
 */
export const RESERVE_LUA = `${PRELUDE}
local limit, wms, spacing, gms, now, grace, burst =
  tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6]),
  math.max(1, math.floor(tonumber(ARGV[7]) or 1))
local egms = num(ARGV[8])
if egms == nil or egms < 0 then egms = gms end
local assumed = ARGV[9] == '1'
local r = load()
if assumed and r.ll and r.limit >= 1 and r.limit ~= limit then
  limit = r.limit
  spacing = math.max(0, math.floor((wms - gms) / limit))
  burst = math.min(burst, limit)
end
local function keepLimit()
  if not assumed then r.limit = limit; r.ll = true elseif not r.ll then r.limit = limit end
end
if now < r.paused then return reply(r, 0, r.paused) end
local t0 = math.max(now, r.next)
local t = t0
local deadline = r.ws + 2 * r.wms + r.gms
local opens = not r.open
local trusted = r.trust
local straddles = false
if r.open then
  if r.we ~= nil then opens = t0 >= r.we else opens = t0 >= deadline or r.count == 0 end
  if opens then trusted = r.we ~= nil or (r.count == 0 and r.trust) end
end
local grant = opens
if not opens then
  if burst > 1 and (r.we ~= nil or r.trust) then t = math.max(now, r.ws, r.next - (burst - 1) * spacing) end
  local lastSafe = r.ws + r.wms - r.gms
  if r.count < limit and t < lastSafe then
    if t >= r.su then grant = true
    elseif r.sr > 0 then grant = true; straddles = true
    elseif r.su < lastSafe then grant = true; t = r.su end
  elseif (r.we ~= nil or r.trust) and r.count < limit and r.su <= t then
    grant = true; opens = true; trusted = true; straddles = true
  end
end
if grant then
  r.ord = r.ord + 1
  if opens then
    if straddles then r.su = r.we or deadline; r.sr = limit - r.count - 1 else r.su = 0; r.sr = 0 end
    r.seq = redis.call('INCR', SEQ)
    r.open = true; r.ws = t; r.we = nil; r.count = 1; r.wms = wms; r.gms = gms; r.egms = egms; r.ford = r.ord; r.trust = trusted
    resetPeaks(r)
  else
    r.count = r.count + 1
    if straddles then r.sr = r.sr - 1 end
  end
  keepLimit()
  r.next = math.max(r.next, t) + spacing
  save(r, now, grace)
  if straddles then return reply(r, 2, t) end
  return reply(r, 1, t)
end
keepLimit()
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
  local e = math.max(received, r.ws) + r.wms + r.egms
  if r.we == nil then r.we = e else r.we = math.min(r.we, e) end
  save(r, received, tonumber(ARGV[3]))
end
return reply(r, -1, nil)
`;

/**
 * ARGV: windowId, remaining, limit, now, graceMs, valid ("1" when remaining and limit are finite),
 * ord ("" when unknown), sentAt, slack, unsent ("" when unknown). Mirrors applyObserve, including the re-dating.
 */
export const OBSERVE_LUA = `${PRELUDE}
local r = load()
local ord = num(ARGV[7])
if current(r, ARGV[1]) and ARGV[6] == '1' then
  local remaining, limit, now = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
  local sentAt = num(ARGV[8])
  local used = math.max(0, limit - remaining)
  local done = false
  if ord ~= nil and ord < r.ford then
    if used <= r.count + (r.ford - ord) + 1 and used > r.count then r.count = used + (r.ord - ord) end
    done = true
  elseif ord ~= nil and sentAt ~= nil and ord > r.ford then
    local bUsed, bSent = nil, nil
    if r.pku >= 0 and r.pka < sentAt then bUsed, bSent = r.pku, r.pks
    elseif r.pru >= 0 and r.pra < sentAt then bUsed, bSent = r.pru, r.prs end
    local first = limit >= 2 and remaining == limit - 1 and r.we ~= nil and sentAt > r.we - r.wms - r.egms
    if first or (bUsed ~= nil and used <= bUsed) then
      local later = r.ord - ord + 1
      local slack = math.max(0, math.min(num(ARGV[9]) or 0, ord - r.ford))
      r.ford = ord
      if used <= 1 or bSent == nil then r.ws = math.max(r.ws, sentAt) else r.ws = math.max(r.ws, bSent) end
      r.we = math.max(now, r.ws) + r.wms + r.egms
      r.count = math.max(0, used - 1) + later + slack
      resetPeaks(r)
      r.pku = used; r.pka = now; r.pks = sentAt
      done = true
    end
  end
  if not done then
    if used > r.count then
      r.count = used
      if ord ~= nil then r.count = used + math.max(0, r.ord - ord) end
    elseif ord ~= nil and num(ARGV[10]) ~= nil then
      local unsent = math.max(0, math.min(math.floor(num(ARGV[10])), r.ord - ord))
      if used + unsent > r.count then r.count = used + unsent end
    end
    if used > r.pku then
      r.pru = r.pku; r.pra = r.pka; r.prs = r.pks
      r.pku = used; r.pka = now; r.pks = sentAt or r.ws
    end
  end
  save(r, now, tonumber(ARGV[5]))
elseif r.open and ARGV[6] == '1' and ord ~= nil and ord < r.ford and ARGV[1] == f(r.seq - 1) then
  local used = math.max(0, tonumber(ARGV[3]) - tonumber(ARGV[2]))
  if used <= r.count + 1 + math.max(0, num(ARGV[9]) or 0) and used + (r.ord - r.ford + 1) > r.count then
    r.count = used + (r.ord - r.ford + 1)
    save(r, tonumber(ARGV[4]), tonumber(ARGV[5]))
  end
end
return reply(r, -1, nil)
`;

/**
 * ARGV: until ("" when not finite), windowId ("" for null), hasWindowId ("1"/"0"), graceMs,
 * closesWindow ("1"/"0"; mirrors applyPause).
 */
export const PAUSE_LUA = `${PRELUDE}
local r = load()
local untilMs = num(ARGV[1])
if untilMs ~= nil then r.paused = math.max(r.paused, untilMs) end
r.next = math.max(r.next, r.paused)
if ARGV[5] == '1' and (ARGV[3] == '0' or current(r, ARGV[2]) or straddler(r, ARGV[2])) then r.open = false; r.trust = true end
save(r, nil, tonumber(ARGV[4]))
return reply(r, -1, nil)
`;

/** Read-only. */
export const PEEK_LUA = `${PRELUDE}
return reply(load(), -1, nil)
`;

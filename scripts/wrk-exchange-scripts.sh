# The wrk scripts that code exchange needs, written by scripts/benchmark.sh and
# scripts/benchmark-ab.sh alike: `write_exchange_scripts DIR CLIENT REDIRECT` writes into DIR
# threads.lua (each wrk thread gets a number; `total(name)` sums a counter over the threads),
# mint-codes.lua (authorize's redirects: each thread's codes into DIR/codes-<thread>.txt) and
# exchange.lua (one authorization_code grant per code, with BENCH_SECRET from the environment).
# Sourced, not run.

write_exchange_scripts() {
  local WORK=$1 CLIENT=$2 REDIRECT=$3
cat >"$WORK/threads.lua" <<'LUA'
local threads, counter = {}, 0
function setup(thread)
  counter = counter + 1
  thread:set("id", counter)
  table.insert(threads, thread)
end
function total(name)
  local sum = 0
  for _, thread in ipairs(threads) do sum = sum + (thread:get(name) or 0) end
  return sum
end
LUA
cat >"$WORK/mint-codes.lua" <<LUA
dofile("$WORK/threads.lua")
local out
function init(args) out = io.open("$WORK/codes-" .. id .. ".txt", "a") end
function response(status, headers, body)
  local code = (headers["Location"] or headers["location"] or ""):match("code=([^&]+)")
  if code then out:write(code, "\n"); out:flush() end
end
LUA
# Each exchange is the same request but for its code, and minted codes all have one length: the
# request is formatted once in init and each one is that text with the code appended. wrk runs on
# the same cores, and wrk.format on every request took CPU from the server; formatting them all in
# init would not do either, since wrk starts each thread's load before the next thread's init runs.
cat >"$WORK/exchange.lua" <<LUA
dofile("$WORK/threads.lua")
local codes, next, head, length = {}, 1, nil, nil
local prefix = "grant_type=authorization_code&client_id=$CLIENT&redirect_uri=$REDIRECT&client_secret=" .. os.getenv("BENCH_SECRET") .. "&code="
local function exchange(code)
  return wrk.format("POST", "/auth/token", {["Content-Type"] = "application/x-www-form-urlencoded"}, prefix .. code)
end
function init(args)
  for line in io.lines("$WORK/codes-" .. id .. ".txt") do codes[#codes + 1] = line end
  if codes[1] then
    length = #codes[1]
    local formatted = exchange(codes[1])
    head = formatted:sub(1, #formatted - length)
  end
end
function request()
  local code = codes[next] or "exhausted"
  next = next + 1
  if #code == length then return head .. code end
  return exchange(code)
end
LUA
}

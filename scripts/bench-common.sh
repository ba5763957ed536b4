# What scripts/benchmark.sh and scripts/benchmark-ab.sh share. Sourced, not run.
#
# The wrk scripts that code exchange needs: `write_exchange_scripts DIR CLIENT REDIRECT` writes into DIR
# threads.lua (each wrk thread gets a number; `total(name)` sums a counter over the threads),
# mint-codes.lua (authorize's redirects: each thread's codes into DIR/codes-<thread>.txt) and
# exchange.lua (one authorization_code grant per code, with BENCH_SECRET from the environment).

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

# Keeps the running mock's keys answer and one of its refresh answers (for the refresh token $1) in
# $WORK for the bare server to send, and sets SIGNING_PEM to the bundled key in the folder $2 that
# signed the id_token (the bundled keys are named by kid); fails when there is none. Needs BASE,
# CLIENT and BENCH_SECRET.
save_bare_answers() {
  local header kid
  curl -s "$BASE/auth/keys" >"$WORK/keys-answer.json"
  curl -s "$BASE/auth/token" -d grant_type=refresh_token -d client_id="$CLIENT" -d client_secret="$BENCH_SECRET" \
    -d refresh_token="$1" >"$WORK/token-answer.json"
  header=$(sed -n 's/.*"id_token":"\([^.]*\)\..*/\1/p' "$WORK/token-answer.json" | tr '_-' '/+')
  while ((${#header} % 4)); do header="$header="; done
  kid=$(base64 -d <<<"$header" 2>/dev/null | sed -n 's/.*"kid":"\([^"]*\)".*/\1/p')
  SIGNING_PEM=$2/keys/signing/$kid.pem
  [ -n "$kid" ] && [ -f "$SIGNING_PEM" ] || { echo "no bundled key for kid '$kid'" >&2; return 1; }
}

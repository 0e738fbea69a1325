-- POST usage reports (one per request, or PER as a device's outbox uploads them), each with a
-- new report id, rotating over children:
-- wrk -s usage.lua URL -- "TOKEN:CHILD_ID,TOKEN:CHILD_ID,..." [PER]
local counter = 0
local thread_id = 0
function setup(thread)
  thread_id = thread_id + 1
  thread:set("id", thread_id)
end
function init(args)
  children = {}
  for pair in string.gmatch(args[1], "[^,]+") do
    local token, child = string.match(pair, "([^:]+):(.+)")
    children[#children + 1] = {token = token, child = child}
  end
  -- LOAD_NONCE (set by load.sh for each run) keeps ids unique across runs: wrk's math.random is
  -- never seeded, so it gives every run the same numbers, and a second run would send only
  -- duplicates (which the server rightly does not write again).
  prefix = "u" .. id .. "-" .. (os.getenv("LOAD_NONCE") or math.random(1, 1e9))
  per = tonumber(args[2] or "1")
end
function request()
  counter = counter + 1
  local who = children[(counter % #children) + 1]
  -- The reports of one upload follow each other back from two minutes ago, 30 s each.
  local reports = {}
  for i = 1, per do
    local started = os.date("!%Y-%m-%dT%H:%M:%SZ", os.time() - 120 - 30 * (i - 1))
    reports[i] = string.format('{"id":"%s-%d-%d","appToken":"load.learn","startedAt":"%s","durationSeconds":30,"timeZone":"Europe/Berlin"}',
      prefix, counter, i, started)
  end
  local body = '{"reports":[' .. table.concat(reports, ",") .. ']}'
  local headers = {["Content-Type"] = "application/json", ["Authorization"] = "Bearer " .. who.token}
  return wrk.format("POST", "/api/v1/children/" .. who.child .. "/usage", headers, body)
end

-- POST reads with unique event ids: wrk -s reads.lua URL -- TOKEN SIZE
-- SIZE 1 records one read per request (/reads); more records a batch (/reads/batch).
local counter = 0
local thread_id = 0
function setup(thread)
  thread_id = thread_id + 1
  thread:set("id", thread_id)
end
function init(args)
  token = args[1]
  size = tonumber(args[2] or "1")
  -- LOAD_NONCE (set by load.sh for each run) keeps ids unique across runs: wrk's math.random is
  -- never seeded, so it gives every run the same numbers, and a second run would send only
  -- duplicates (which the server rightly does not write again).
  prefix = "t" .. id .. "-" .. (os.getenv("LOAD_NONCE") or math.random(1, 1e9))
end
local function read(now)
  counter = counter + 1
  return string.format('{"eventId":"%s-%d","articleId":"Load_%d","title":"Load %d","language":"en","at":"%s","timeZone":"Europe/Berlin"}',
    prefix, counter, counter % 500, counter % 500, now)
end
function request()
  local now = os.date("!%Y-%m-%dT%H:%M:%SZ")
  local headers = {["Content-Type"] = "application/json", ["Authorization"] = "Bearer " .. token}
  if size == 1 then
    return wrk.format("POST", "/api/v1/reading/reads", headers, read(now))
  end
  local items = {}
  for i = 1, size do items[i] = read(now) end
  return wrk.format("POST", "/api/v1/reading/reads/batch", headers, '{"reads":[' .. table.concat(items, ",") .. ']}')
end

-- POST a batch of 100 reads with unique event ids.
local counter = 0
local thread_id = 0
function setup(thread)
  thread_id = thread_id + 1
  thread:set("id", thread_id)
end
function init(args)
  token = args[1]
  prefix = "b" .. id .. "-" .. math.random(1, 1e9)
end
function request()
  local now = os.date("!%Y-%m-%dT%H:%M:%SZ")
  local items = {}
  for i = 1, 100 do
    counter = counter + 1
    items[i] = string.format('{"eventId":"%s-%d","articleId":"Load_%d","title":"Load %d","language":"en","at":"%s","timeZone":"Europe/Berlin"}',
      prefix, counter, counter % 500, counter % 500, now)
  end
  return wrk.format("POST", "/api/v1/reading/reads/batch", {["Content-Type"] = "application/json", ["Authorization"] = "Bearer " .. token},
    '{"reads":[' .. table.concat(items, ",") .. ']}')
end

-- POST one read with a unique event id per request.
local counter = 0
local thread_id = 0
local tokens = {}
function setup(thread)
  thread_id = thread_id + 1
  thread:set("id", thread_id)
end
function init(args)
  token = args[1]
  prefix = "t" .. id .. "-" .. math.random(1, 1e9)
end
function request()
  counter = counter + 1
  local body = string.format('{"eventId":"%s-%d","articleId":"Load_%d","title":"Load %d","language":"en","at":"%s","timeZone":"Europe/Berlin"}',
    prefix, counter, counter % 500, counter % 500, os.date("!%Y-%m-%dT%H:%M:%SZ"))
  return wrk.format("POST", "/api/v1/reading/reads", {["Content-Type"] = "application/json", ["Authorization"] = "Bearer " .. token}, body)
end

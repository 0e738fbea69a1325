-- GET a path with bearer tokens: wrk -s get.lua URL -- TOKENS PATH
-- TOKENS is one token or several separated by commas; requests take them in turn, so many
-- members ask at once (as widgets do) rather than one member 64 times.
local tokens = {}
local turn = 0
function init(args)
  for token in string.gmatch(args[1], "[^,]+") do tokens[#tokens + 1] = token end
  path = args[2]
  turn = math.random(0, #tokens - 1)
end
function request()
  turn = turn % #tokens + 1
  return wrk.format("GET", path, {["Authorization"] = "Bearer " .. tokens[turn]})
end

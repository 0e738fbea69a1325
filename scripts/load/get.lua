-- GET a path with a bearer token: wrk -s get.lua URL -- TOKEN PATH
function init(args)
  token = args[1]
  path = args[2]
end
function request()
  return wrk.format("GET", path, {["Authorization"] = "Bearer " .. token})
end

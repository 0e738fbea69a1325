-- POST a one-minute redemption per request: wrk -s redeem.lua URL -- TOKEN CHILD_ID
function init(args)
  token = args[1]
  child = args[2]
end
function request()
  local headers = {["Content-Type"] = "application/json", ["Authorization"] = "Bearer " .. token}
  return wrk.format("POST", "/api/v1/children/" .. child .. "/redemptions", headers, '{"appToken":"load.reward","minutes":1}')
end

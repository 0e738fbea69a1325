-- POST the answer to question 1 of a game again and again (the retry path: the first answer is returned).
function init(args)
  token = args[1]
  session = args[2]
end
function request()
  return wrk.format("POST", "/api/v1/game/sessions/" .. session .. "/answers",
    {["Content-Type"] = "application/json", ["Authorization"] = "Bearer " .. token}, '{"questionIndex":0,"choice":"first"}')
end

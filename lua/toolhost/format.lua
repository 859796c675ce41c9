-- Short texts for job lists: durations, exit states, the first line of what a job ran.
local M = {}

function M.duration(seconds)
  if type(seconds) ~= "number" then
    return ""
  end
  if seconds < 60 then
    return ("%.1fs"):format(seconds)
  end
  return ("%dm%02ds"):format(math.floor(seconds / 60), math.floor(seconds % 60))
end

function M.exit(job)
  if type(job.signal) == "string" then
    return job.signal
  end
  if type(job.exit_code) == "number" then
    return "exit " .. job.exit_code
  end
  return ""
end

-- What the job ran, on one line: the command, else the path or pattern, else its params.
function M.summary(job)
  local params = type(job.params) == "table" and job.params or {}
  local text = params.command or params.path or params.pattern or params.query or params.url
  if type(text) ~= "string" then
    text = vim.fn.json_encode(params)
  end
  return (text:gsub("\n.*", " …"))
end

return M

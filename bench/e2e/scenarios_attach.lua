-- The P1 attach scenarios of bench/e2e/scenarios.lua (which adds them to its table B): opening and
-- attaching a big chat.
local uv = vim.loop
local api = vim.api

return function(B, env)
  -- P1 attach: a chat of `mb` megabytes (replies of `calls` bash calls, each with a result block of
  -- tool output: what makes chats big) written and opened under a name toolhost does not attach;
  -- reports when Neovim has it. attach_big then attaches it; over when the host has read and
  -- parsed it (run_all_plan waits for the reading).
  function B.big_chat(args)
    local path = env.dir() .. "/big.md"
    local f = assert(io.open(path, "w"))
    local row = ("output %s\n"):format(("x"):rep(72))
    local per_call = math.max(1, math.floor(args.mb * 1e6 / #row / args.calls))
    local block = row:rep(per_call)
    for i = 1, args.calls do
      f:write(("USER: question %d\nASSISTANT: Running it.\n\n"):format(i))
      f:write(("✓ Executed: `echo %d`\n````result id=job-%d status=succeeded\n"):format(i, i))
      f:write(block, "````\n\n")
    end
    f:write("USER: \n")
    f:close()
    vim.cmd("edit " .. vim.fn.fnameescape(path))
    B.big_buf = api.nvim_get_current_buf()
    env.report({ name = args.name, rows = api.nvim_buf_line_count(B.big_buf) })
  end

  function B.attach_big(args)
    local buf, t0 = B.big_buf, uv.hrtime()
    local slices = require("toolhost.slices")
    slices.stats(true)
    require("toolhost").attach(buf)
    require("toolhost.host").call("toolhost.run_all_plan", { buf = buf }, function(err)
      local read_ms = (uv.hrtime() - t0) / 1e6
      -- The feedback the parse sent (an extmark per call) has arrived by now or is queued
      -- behind this answer (a round trip to the host), and is applied in slices: the window
      -- ends once the last of them is done.
      require("toolhost.host").call("toolhost.run_all_plan", { buf = buf }, function()
        local function settled()
          if slices.busy() then
            return vim.defer_fn(settled, 1)
          end
          env.report({ name = args.name, read_ms = read_ms, error = err, slices = slices.stats() })
        end
        settled()
      end)
    end)
  end

  -- Outside the window: freeing 50 MB of lines is Neovim's own work.
  function B.drop_big(args)
    require("toolhost").detach(B.big_buf)
    vim.cmd("bwipeout! " .. B.big_buf)
    env.report({ name = args.name })
  end
end

-- P11 (issue #39) for bench/e2e/scenarios.lua (which adds it to its table B): a job printing a
-- gcc log of `lines` lines over `files` files, run with :ToolRun, its items in the call's
-- quickfix list and diagnostics as it streams.
local uv = vim.loop
local api = vim.api

return function(B, env)
  -- The child runs under the name `gcc` (a symlink), so that the built-in map picks the format,
  -- as for a user's `gcc …`. Over when the call's list is done (QuickFixCmdPost toolhost after
  -- the job's last update); reports the items, and the time from the child's exit (its stamp)
  -- to the list complete, and from :ToolRun to then (the probe's window).
  function B.quickfix_log(args)
    local name = args.name
    local gcc = env.dir() .. "/bin/gcc"
    if vim.fn.executable(gcc) == 0 then
      vim.fn.mkdir(env.dir() .. "/bin", "p")
      assert(uv.fs_symlink(env.child(), gcc))
    end
    local stamp = ("%s/%s.exit"):format(env.dir(), name)
    env.setup({ max_concurrent = 1, quickfix = { enabled = true, diagnostics = true } })
    local buf, rows = env.chat(name, { ("exec %s gcclog %d %d %s"):format(gcc, args.lines, args.files, stamp) })
    local t0, finished_us
    local group = api.nvim_create_augroup("toolhost_bench_quickfix", { clear = true })
    local function done(st)
      local list_us = env.now_us()
      api.nvim_del_augroup_by_id(group)
      B.on_finished = nil
      local exited = env.stamp_us(stamp)
      os.remove(stamp)
      local qf = st.id and vim.fn.getqflist({ id = st.id, size = 0 }).size or -1
      local trace = require("toolhost.slices").trace
      require("toolhost.slices").trace = nil
      env.report({
        name = name,
        started_ns = t0,
        seconds = (uv.hrtime() - t0) / 1e9,
        items = #st.items,
        list_size = qf,
        exit_to_list_ms = exited and (list_us - exited) / 1000 or nil,
        finished_to_list_ms = finished_us and (list_us - finished_us) / 1000 or nil,
        diagnostics = #vim.diagnostic.get(nil, { namespace = api.nvim_get_namespaces()["toolhost.quickfix." .. st.call] }),
        slices = require("toolhost.slices").stats(),
        trace = trace,
      })
    end
    api.nvim_create_autocmd("QuickFixCmdPost", {
      group = group,
      pattern = "toolhost",
      callback = function()
        local lists = require("toolhost").quickfix_lists()
        local st = lists[#lists]
        if t0 and st and st.done and st.buf == buf then
          done(st)
        end
      end,
    })
    B.on_finished = function(data)
      if data.buf == buf then
        finished_us = env.now_us()
      end
    end
    env.when_parsed(buf, 1, function()
      api.nvim_win_set_cursor(0, { rows[1], 0 })
      require("toolhost.slices").stats(true)
      if args.trace then
        require("toolhost.slices").trace = {}
      end
      t0 = uv.hrtime()
      require("toolhost").run_at_cursor()
    end)
  end
end

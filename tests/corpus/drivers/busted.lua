-- lua-busted: the real test runner (busted.runner: CLI, file loader,
-- context tree, mediator events, output handler) running a spec again and
-- again (--repeat), as `busted` on a project does.  The spec ends the
-- process after arg[1] seconds (CORPUS_DEADLINE).
local here = arg[0]:match("^(.*)/drivers/") or "."
CORPUS_DEADLINE = os.time() + (tonumber(arg[1]) or 5) + 1
arg = { [0] = "busted", "--repeat=1000000", "--output=plainTerminal",
	here .. "/spec/orders_spec.lua" }
require("busted.runner")({ standalone = false })

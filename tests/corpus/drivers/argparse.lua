-- lua-argparse: a git-like command line with subcommands, options,
-- flags, mutexes and defaults, parsing many command lines (and the
-- help text, as a CLI does on --help).
local C = require("corpus_common")
local argparse = require("argparse")
local function build()
	local p = argparse("deploy", "Deploys services to a cluster.")
	p:option("-c --config", "Config file.", "deploy.yaml")
	p:flag("-v --verbose", "More output."):count("*")
	p:flag("-q --quiet")
	p:mutex(p:flag("--json"), p:flag("--yaml"))
	local up = p:command("up", "Start services.")
	up:argument("services", "Services."):args("*")
	up:option("-r --replicas", "Replicas.", "1"):convert(tonumber)
	up:option("-e --env", "Environment variables."):args(1):count("*")
	up:flag("--force")
	local down = p:command("down", "Stop services.")
	down:argument("services"):args("+")
	down:option("--timeout", "Seconds."):convert(tonumber)
	local logs = p:command("logs")
	logs:argument("service")
	logs:option("-n --lines", "Lines.", "100")
	logs:flag("-f --follow")
	return p
end
local lines = {
	{ "-vv", "--config", "prod.yaml", "up", "api", "worker", "-r", "3", "-e", "A=1", "-e", "B=2", "--force" },
	{ "--json", "down", "api", "--timeout", "30" },
	{ "-q", "logs", "worker", "-n", "500", "-f" },
	{ "up" },
	{ "--yaml", "--json", "up" },	-- a mutex error
	{ "down" },			-- a missing argument
}
C.run(function(n)
	local p = build()
	for _, l in ipairs(lines) do p:pparse(l) end
	if n % 4 == 0 then assert(#p:get_help() > 100) end
end)

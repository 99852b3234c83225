-- A small JSON API, written the way application code usually is, for
-- tests/t_stacks.sh: every request reads its headers (ngx.req.get_headers),
-- builds a document from them and from a table of records, and encodes it
-- with a JSON encoder that sorts keys with a Lua comparator (table.sort),
-- walks tables with pairs, escapes strings with string.gsub and a function
-- replacement, and builds the output in a buffer (table.concat).  nginx
-- resumes each request's coroutine from C.
local M = {}

local escapes = { ['"'] = '\\"', ['\\'] = '\\\\', ['\n'] = '\\n', ['\t'] = '\\t' }

local function escape_char(c)
	return escapes[c] or string.format("\\u%04x", c:byte())
end

local function encode_string(s, buf)
	buf[#buf + 1] = '"'
	buf[#buf + 1] = (s:gsub('[%c"\\]', escape_char))
	buf[#buf + 1] = '"'
end

local function key_before(a, b)
	local ta, tb = type(a), type(b)
	if ta ~= tb then return ta < tb end
	return a < b
end

local encode_value

local function encode_table(t, buf, depth)
	if #t > 0 then
		buf[#buf + 1] = "["
		for i = 1, #t do
			if i > 1 then buf[#buf + 1] = "," end
			encode_value(t[i], buf, depth + 1)
		end
		buf[#buf + 1] = "]"
		return
	end
	local keys = {}
	for k in pairs(t) do keys[#keys + 1] = k end
	table.sort(keys, key_before)
	buf[#buf + 1] = "{"
	for i, k in ipairs(keys) do
		if i > 1 then buf[#buf + 1] = "," end
		encode_string(tostring(k), buf)
		buf[#buf + 1] = ":"
		encode_value(t[k], buf, depth + 1)
	end
	buf[#buf + 1] = "}"
end

function encode_value(v, buf, depth)
	local tv = type(v)
	if tv == "table" then
		encode_table(v, buf, depth)
	elseif tv == "string" then
		encode_string(v, buf)
	elseif tv == "number" then
		buf[#buf + 1] = string.format("%.14g", v)
	elseif tv == "boolean" then
		buf[#buf + 1] = v and "true" or "false"
	else
		buf[#buf + 1] = "null"
	end
end

local function encode(v)
	local buf = {}
	encode_value(v, buf, 0)
	return table.concat(buf)
end

local records = {}
for i = 1, 40 do
	records[i] = {
		id = i, name = "item \"" .. i .. "\"\twith\\escapes\n",
		price = i * 1.25, tags = { "a" .. i, "b" .. (i % 7), "c" },
		active = i % 2 == 0, owner = { login = "user" .. i, karma = i * 3 },
	}
end

function M.handle()
	local headers = ngx.req.get_headers()
	local doc = { headers = {}, records = records, served_by = ngx.worker.pid() }
	for k, v in pairs(headers) do
		doc.headers[k] = type(v) == "table" and table.concat(v, ",") or v
	end
	ngx.header.content_type = "application/json"
	ngx.say(encode(doc))
end

return M
-- SPDX-License-Identifier: MIT

-- Issue 42, item 3: a LuaJIT process that reserves COUNT (default 64)
-- regions of GIB (default 1) GiB each, readable and writable but never
-- touched (MAP_NORESERVE: a few MB of RSS), each followed by a PROT_NONE
-- guard page so that the kernel cannot merge them into one mapping too
-- large to be scanned, then sleeps in poll(2) until
-- killed.  A VM scan that reads every readable anonymous mapping reads
-- COUNT GiB of zero pages here.  Prints "reserved N" once they are mapped.
local ffi = require("ffi")
ffi.cdef[[
void *mmap(void *addr, size_t len, int prot, int flags, int fd, long off);
int mprotect(void *addr, size_t len, int prot);
int poll(void *fds, unsigned long n, int timeout);
]]
local count = tonumber(arg[1]) or 64
local gib = tonumber(arg[2]) or 1
local PROT_RW, FLAGS = 3, 0x02 + 0x20 + 0x4000	-- MAP_PRIVATE|MAP_ANONYMOUS|MAP_NORESERVE
local keep, n = {}, 0
for i = 1, count do
	local p = ffi.C.mmap(nil, gib * 2^30 + 4096, PROT_RW, FLAGS, -1, 0)
	if ffi.cast("intptr_t", p) ~= -1 then
		ffi.C.mprotect(ffi.cast("char *", p) + gib * 2^30, 4096, 0)
		n = n + 1; keep[i] = p
	end
end
io.write("reserved ", n, "\n"); io.flush()
while true do ffi.C.poll(nil, 0, 1000) end
-- SPDX-License-Identifier: MIT

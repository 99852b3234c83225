-- luakit's own configuration, then a timer that reads a window's widget
-- fields (t_realprog.sh): each read is the widget class's C __index, which
-- luakit's webview.lua wraps in a Lua closure.
dofile("/etc/xdg/luakit/rc.lua")
local window = require "window"
local burn = timer{ interval = 20 }
burn:add_signal("timeout", function()
    for _, w in pairs(window.bywidget) do
        for _ = 1, 20000 do
            local v = w.view
            local _ = v.uri, v.zoom_level, w.win.title
        end
    end
end)
burn:start()
-- SPDX-License-Identifier: MIT
